import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials

/// Writes one line per completed task: method, URL (credentials redacted), status (or the
/// error), bytes sent and received on the wire (every request of the task), attempts, retries
/// and redirects, and the phases of the last request — resolve, connect, TLS handshake, request
/// written, wait for the first response byte, response read — and the task's whole duration:
///
/// ```
/// GET https://api.example/items status=200 sent=112 received=1532 attempts=1 retries=0 redirects=0 resolve=1.204ms connect=0.318ms tls=4.127ms request=0.044ms wait=12.610ms response=0.201ms total=18.930ms
/// ```
///
/// A phase that did not happen (a reused connection resolves nothing) prints `-`. The lines go to
/// `write` (standard output by default) on the monitor's queue.
public struct LoggingEventMonitor: EventMonitor {
    public let queue: DispatchQueue
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes (without a line break); `print` by default.
    public init(queue: DispatchQueue = DispatchQueue(label: "courier.logging-monitor"), write: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.queue = queue
        self.write = write
    }

    public func taskCompleted(_ completion: TaskCompletion) {
        write(Self.line(for: completion))
    }

    /// The line for one completion.
    static func line(for completion: TaskCompletion) -> String {
        let request = completion.task.currentRequest
        var line = "\(request.method) \((completion.response?.url ?? request.url).redactedForDisplay)"
        if let response = completion.response {
            line += " status=\(response.statusCode)"
        } else {
            line += " status=-"
        }
        if let error = completion.error { line += " error=\(error.code)" }
        let metrics = completion.metrics
        let transactions = metrics?.transactionMetrics ?? []
        line += " sent=\(transactions.reduce(0) { $0 + $1.bytesSent })"
        line += " received=\(transactions.reduce(0) { $0 + $1.bytesReceived })"
        line += " attempts=\(metrics?.attemptCount ?? 0) retries=\(metrics?.retryCount ?? 0) redirects=\(metrics?.redirectCount ?? 0)"
        let last = transactions.last
        line += " resolve=\(Self.span(last?.resolveStart, last?.resolveEnd))"
        line += " connect=\(Self.span(last?.connectStart, last?.connectEnd))"
        line += " tls=\(Self.span(last?.tlsStart, last?.tlsEnd))"
        line += " request=\(Self.span(last?.requestStart, last?.requestEnd))"
        line += " wait=\(Self.span(last?.requestEnd, last?.responseStart))"
        line += " response=\(Self.span(last?.responseStart, last?.responseEnd))"
        line += " total=\(metrics.map { Self.milliseconds($0.duration * 1e9) } ?? "-")"
        return line
    }

    /// `1.234ms` between two points on the monotonic clock, `-` unless both happened.
    private static func span(_ start: Deadline?, _ end: Deadline?) -> String {
        guard let start, let end, end >= start else { return "-" }
        return milliseconds(Double((end - start).nanoseconds))
    }

    private static func milliseconds(_ nanoseconds: Double) -> String {
        let micros = Int64((max(0, nanoseconds) / 1000).rounded())
        let fraction = String(micros % 1000)
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)ms"
    }
}
