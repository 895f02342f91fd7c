import Courier
import CourierCore

/// What a set of requests measured: latency and phase histograms, status counts, errors by
/// kind and byte totals. One per event loop thread (only that thread records into it, so no
/// lock per request); the totals are their sum (``add(_:)``). Recording allocates nothing,
/// except the first error of a kind.
struct BenchRecord: Sendable {
    /// Request latency in nanoseconds: from the due time at a constant rate, else from the send.
    var latency: HDRHistogram
    /// Phases, from the library's metrics (nanoseconds): TCP connect, TLS handshake, first
    /// response byte after the request was written, and the whole request (execute to end).
    var connect: HDRHistogram
    var tls: HDRHistogram
    var firstByte: HDRHistogram
    var total: HDRHistogram
    /// Responses by status code (index 100...599; index 0: any other).
    var statuses: [Int64]
    var errors: [String: Int64] = [:]
    var responses: Int64 = 0
    var failures: Int64 = 0
    var bytesReceived: Int64 = 0
    var bytesSent: Int64 = 0
    var connectionsOpened: Int64 = 0

    /// Latencies up to an hour, `digits` significant digits (phases: two).
    init(digits: Int) {
        latency = HDRHistogram(highestTrackableValue: BenchRecord.highest, significantDigits: digits)
        let phase = HDRHistogram(highestTrackableValue: BenchRecord.highest, significantDigits: 2)
        connect = phase
        tls = phase
        firstByte = phase
        total = phase
        statuses = [Int64](repeating: 0, count: 600)
    }

    static let highest: Int64 = 3_600_000_000_000

    var requests: Int64 { responses + failures }

    /// A response ended (`status` its code), `latency` after it was due.
    mutating func recordResponse(status: Int, latency: UInt64, metrics: HTTPClientMetrics) {
        responses += 1
        statuses[(100..<600).contains(status) ? status : 0] += 1
        self.latency.record(Int64(clamping: latency))
        recordPhases(metrics)
    }

    /// A request failed with `error`.
    mutating func recordFailure(_ error: ClientError, metrics: HTTPClientMetrics) {
        failures += 1
        errors[error.code.name, default: 0] += 1
        recordPhases(metrics)
    }

    private mutating func recordPhases(_ metrics: HTTPClientMetrics) {
        bytesReceived += metrics.bytesReceived
        bytesSent += metrics.bytesSent
        if let start = metrics.connectStart, let end = metrics.connectEnd {
            connectionsOpened += 1
            connect.record((end - start).nanoseconds)
        }
        if let start = metrics.tlsStart, let end = metrics.tlsEnd { tls.record((end - start).nanoseconds) }
        if let sent = metrics.requestEnd ?? metrics.requestStart, let first = metrics.responseStart {
            firstByte.record((first - sent).nanoseconds)
        }
        if let end = metrics.responseEnd { total.record((end - metrics.fetchStart).nanoseconds) }
    }

    mutating func add(_ other: BenchRecord) {
        latency.add(other.latency)
        connect.add(other.connect)
        tls.add(other.tls)
        firstByte.add(other.firstByte)
        total.add(other.total)
        for index in statuses.indices where other.statuses[index] != 0 { statuses[index] += other.statuses[index] }
        for (kind, count) in other.errors { errors[kind, default: 0] += count }
        responses += other.responses
        failures += other.failures
        bytesReceived += other.bytesReceived
        bytesSent += other.bytesSent
        connectionsOpened += other.connectionsOpened
    }

    mutating func reset() {
        latency.reset()
        connect.reset()
        tls.reset()
        firstByte.reset()
        total.reset()
        for index in statuses.indices { statuses[index] = 0 }
        errors.removeAll(keepingCapacity: true)
        responses = 0
        failures = 0
        bytesReceived = 0
        bytesSent = 0
        connectionsOpened = 0
    }

    /// Status codes seen, ascending, with their counts ("other" for codes outside 100–599).
    var statusCounts: [(String, Int64)] {
        var result: [(String, Int64)] = []
        for code in 100..<600 where statuses[code] != 0 { result.append((String(code), statuses[code])) }
        if statuses[0] != 0 { result.append(("other", statuses[0])) }
        return result
    }
}
