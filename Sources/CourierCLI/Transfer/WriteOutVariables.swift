import Courier

/// curl's `-w` variables for one transfer (curl(1), "--write-out"), from Courier's metrics, plus
/// what Courier knows beyond curl: `connection_reused`, `tls_session_resumed`, `dns_cache_hit`,
/// `num_retries`.
///
/// Times are seconds from the start of the transfer, each at least the one before it (curl's
/// order: namelookup ≤ connect ≤ appconnect ≤ pretransfer ≤ starttransfer ≤ total); for a
/// reused connection the phases it skipped take the time of the phase before.
struct WriteOutVariables {
    let response: Response?
    let metrics: TaskMetrics?
    let effectiveURL: String
    let bodyBytes: Int64
    let uploadBytes: Int64
    let exitCode: Int32
    let errorMessage: String?
    let outputName: String?

    var all: [(name: String, value: WriteOut.Value)] {
        let transactions = metrics?.transactionMetrics ?? []
        let last = transactions.last
        let origin = transactions.first?.fetchStart
        func seconds(_ deadline: Deadline?) -> Double? {
            guard let deadline, let origin, deadline >= origin else { return nil }
            return Double(deadline.uptimeNanoseconds - origin.uptimeNanoseconds) / 1e9
        }
        let start = seconds(last?.fetchStart) ?? 0
        let namelookup = max(start, seconds(last?.resolveEnd) ?? start)
        let connect = max(namelookup, seconds(last?.connectEnd) ?? namelookup)
        let appconnect = last?.tlsEnd == nil ? 0 : max(connect, seconds(last?.tlsEnd) ?? connect)
        let pretransfer = max(connect, appconnect, seconds(last?.requestStart) ?? connect)
        let starttransfer = max(pretransfer, seconds(last?.responseStart) ?? pretransfer)
        let total = max(starttransfer, seconds(last?.responseEnd) ?? starttransfer, metrics?.duration ?? 0)
        let redirectTime = transactions.count > 1 ? start : 0
        let remote = last?.remoteAddress
        let local = last?.localAddress
        let connects = transactions.filter { !$0.reusedConnection && $0.connectEnd != nil }.count
        var list: [(String, WriteOut.Value)] = [
            ("content_type", response?.value(forHTTPHeaderField: "Content-Type").map(WriteOut.Value.text) ?? .null),
            ("errormsg", errorMessage.map(WriteOut.Value.text) ?? .null),
            ("exitcode", .integer(Int64(exitCode))),
            ("filename_effective", outputName.map(WriteOut.Value.text) ?? .null),
            ("http_code", .integer(Int64(response?.statusCode ?? 0))),
            ("http_version", .text(response == nil ? "0" : "1.1")),
            ("local_ip", .text(local?.host ?? "")),
            ("local_port", .integer(Int64(local?.port ?? 0))),
            ("method", .text(metrics == nil ? "GET" : "")),
            ("num_connects", .integer(Int64(connects))),
            ("num_headers", .integer(Int64(response?.headers.count ?? 0))),
            ("num_redirects", .integer(Int64(metrics?.redirectCount ?? 0))),
            ("num_retries", .integer(Int64(metrics?.retryCount ?? 0))),
            ("redirect_url", response.flatMap { ($0.statusCode / 100 == 3) ? $0.value(forHTTPHeaderField: "Location") : nil }.map(WriteOut.Value.text) ?? .null),
            ("remote_ip", .text(remote?.host ?? "")),
            ("remote_port", .integer(Int64(remote?.port ?? 0))),
            ("response_code", .integer(Int64(response?.statusCode ?? 0))),
            ("scheme", .text(effectiveURL.hasPrefix("https") ? "HTTPS" : "HTTP")),
            ("size_download", .integer(bodyBytes)),
            ("size_header", .integer(Int64(response.map { HeadText.response($0).utf8.count } ?? 0))),
            ("size_request", .integer(last?.bytesSent ?? 0)),
            ("size_upload", .integer(uploadBytes)),
            ("speed_download", .integer(total > 0 ? Int64(Double(bodyBytes) / total) : 0)),
            ("speed_upload", .integer(total > 0 ? Int64(Double(uploadBytes) / total) : 0)),
            ("time_appconnect", .seconds(appconnect)),
            ("time_connect", .seconds(connect)),
            ("time_namelookup", .seconds(namelookup)),
            ("time_pretransfer", .seconds(pretransfer)),
            ("time_redirect", .seconds(redirectTime)),
            ("time_starttransfer", .seconds(starttransfer)),
            ("time_total", .seconds(total)),
            ("url", .text(effectiveURL)),
            ("url_effective", .text(effectiveURL)),
            // Courier's own.
            ("connection_reused", .integer(last?.reusedConnection == true ? 1 : 0)),
            ("tls_session_resumed", .integer(last?.tlsSessionReused == true ? 1 : 0)),
            ("dns_cache_hit", .integer(last?.resolvedFromCache == true ? 1 : 0)),
            ("tls_version", last?.tlsVersion.map(WriteOut.Value.text) ?? .null),
        ]
        list.removeAll { $0.0 == "method" }
        if let response {
            for field in response.headers { list.append(("header:" + field.name.lowercased(), .text(field.value))) }
        }
        return list.map { (name: $0.0, value: $0.1) }
    }
}
