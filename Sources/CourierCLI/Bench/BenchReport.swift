/// The summary of a run, for people (wrk's layout) and for machines (`--json`).
enum BenchReport {
    static let percentiles: [(String, Double)] = [
        ("p50", 50), ("p75", 75), ("p90", 90), ("p99", 99), ("p99.9", 99.9), ("p99.99", 99.99),
    ]

    static func text(plan: BenchPlan, result: BenchResult) -> String {
        let record = result.record
        let seconds = max(result.seconds, 1e-9)
        var out = "Running \(plan.duration.map { TextFormat.duration(nanoseconds: Double($0)) + " test" } ?? "\(plan.requests ?? 0) requests") @ \(plan.url)\n"
        out += "  \(plan.threads) threads and \(plan.connections) connections"
        if let rate = plan.rate { out += ", constant rate \(TextFormat.fixed(rate, 0)) req/s (latency from the due time)" }
        if let window = plan.batchWindow { out += ", replies gathered for \(TextFormat.duration(nanoseconds: Double(window))) per wake-up" }
        out += "\n  Latency distribution\n"
        for (name, percentile) in percentiles {
            out += "    " + pad(name, 8) + TextFormat.duration(nanoseconds: Double(record.latency.value(atPercentile: percentile))) + "\n"
        }
        out += "    " + pad("max", 8) + TextFormat.duration(nanoseconds: Double(record.latency.reportedMax)) + "\n"
        out += "  Phases          mean        p50         p99         max      count\n"
        for (name, histogram) in phases(record) {
            out += "    " + pad(name, 12)
            for value in [histogram.mean, Double(histogram.value(atPercentile: 50)), Double(histogram.value(atPercentile: 99)), Double(histogram.reportedMax)] {
                out += pad(TextFormat.duration(nanoseconds: value), 12)
            }
            out += String(histogram.totalCount) + "\n"
        }
        out += "  \(record.requests) requests in \(TextFormat.fixed(seconds, 2))s, \(TextFormat.bytes(Double(record.bytesReceived))) read, \(record.connectionsOpened) connections opened\n"
        out += "  Status codes: " + record.statusCounts.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "\n"
        if record.failures > 0 {
            out += "  Errors: " + record.errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "\n"
            for sample in result.errorSamples { out += "    \(sample)\n" }
        }
        out += "Requests/sec: \(TextFormat.fixed(Double(record.requests) / seconds, 2))\n"
        out += "Transfer/sec: \(TextFormat.bytes(Double(record.bytesReceived) / seconds))\n"
        return out
    }

    static func json(plan: BenchPlan, result: BenchResult) -> String {
        let record = result.record
        let seconds = max(result.seconds, 1e-9)
        func histogramJSON(_ histogram: HDRHistogram) -> String {
            var fields = ["\"count\":\(histogram.totalCount)", "\"mean_ns\":\(TextFormat.fixed(histogram.mean, 1))"]
            for (name, percentile) in percentiles { fields.append("\"\(name)_ns\":\(histogram.value(atPercentile: percentile))") }
            fields.append("\"max_ns\":\(histogram.reportedMax)")
            return "{" + fields.joined(separator: ",") + "}"
        }
        var fields: [String] = []
        fields.append("\"url\":\(JSONText.string(plan.url))")
        fields.append("\"connections\":\(plan.connections)")
        fields.append("\"threads\":\(plan.threads)")
        fields.append("\"mode\":\"\(plan.rate == nil ? "closed-loop" : "constant-rate")\"")
        if let rate = plan.rate { fields.append("\"rate\":\(TextFormat.fixed(rate, 3))") }
        fields.append("\"batch_window_ns\":\(plan.batchWindow.map(String.init) ?? "null")")
        fields.append("\"seconds\":\(TextFormat.fixed(seconds, 6))")
        fields.append("\"requests\":\(record.requests)")
        fields.append("\"responses\":\(record.responses)")
        fields.append("\"failures\":\(record.failures)")
        fields.append("\"requests_per_second\":\(TextFormat.fixed(Double(record.requests) / seconds, 3))")
        fields.append("\"bytes_received\":\(record.bytesReceived)")
        fields.append("\"bytes_sent\":\(record.bytesSent)")
        fields.append("\"bytes_per_second\":\(TextFormat.fixed(Double(record.bytesReceived) / seconds, 3))")
        fields.append("\"connections_opened\":\(record.connectionsOpened)")
        fields.append("\"latency\":" + histogramJSON(record.latency))
        fields.append("\"phases\":{" + phases(record).map { "\"\($0.0)\":" + histogramJSON($0.1) }.joined(separator: ",") + "}")
        fields.append("\"status\":{" + record.statusCounts.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
        fields.append("\"errors\":{" + record.errors.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value)" }.joined(separator: ",") + "}")
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    static func phases(_ record: BenchRecord) -> [(String, HDRHistogram)] {
        [("connect", record.connect), ("tls", record.tls), ("first_byte", record.firstByte), ("total", record.total)]
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
