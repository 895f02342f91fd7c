import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials
import Synchronization

/// Records a session's requests as an HTTP Archive (HAR 1.2): give it to
/// ``SessionConfiguration/eventMonitors``, then read ``document`` or ``jsonData(prettyPrinted:)``.
///
/// One entry per request made — each redirect hop, each retry and each answer to a challenge is
/// an entry of its own — added when its task completes, with the headers, sizes and timings of
/// that request's transaction (``TaskMetrics/transactionMetrics``). Bodies are not kept unless
/// asked for (``includesBodies``: the request's in-memory body and the final response's body of a
/// data or upload task). Credentials — the `Authorization`, `Proxy-Authorization`, `Cookie` and
/// `Set-Cookie` fields, and a URL's user information — are redacted unless
/// ``includesCredentials`` is set, and cookies are listed only then.
public final class HARRecorder: EventMonitor {
    public let queue: DispatchQueue
    public let includesBodies: Bool
    public let includesCredentials: Bool
    /// How a request's URL is written in the log, when not as it is: for a client that sends
    /// over a Unix socket (an `http+unix` URL), the `http` URL it stands for. A nil answer, or no
    /// closure, writes the URL itself (its user information redacted unless
    /// ``includesCredentials``).
    public let displayedURL: (@Sendable (Request) -> String?)?

    private struct Exchange {
        var request: Request
        var response: Response?
    }

    private struct State {
        /// Requests of tasks not yet completed, by task identifier.
        var open: [Int: [Exchange]] = [:]
        var entries: [HAR.Entry] = []
    }

    private let state = Mutex(State())

    public init(
        includesBodies: Bool = false, includesCredentials: Bool = false, displayedURL: (@Sendable (Request) -> String?)? = nil,
        queue: DispatchQueue = DispatchQueue(label: "courier.har-recorder")
    ) {
        self.includesBodies = includesBodies
        self.includesCredentials = includesCredentials
        self.displayedURL = displayedURL
        self.queue = queue
    }

    /// The archive so far: every request of every task that completed, in completion order.
    public var document: HAR.Document {
        let entries = state.withLock { $0.entries }
        return HAR.Document(log: HAR.Log(version: "1.2", creator: HAR.Creator(name: "Courier", version: CourierLibrary.version), entries: entries))
    }

    /// ``document`` as JSON (UTF-8).
    public func jsonData(prettyPrinted: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// Forgets every entry recorded so far.
    public func removeAll() {
        state.withLock { $0.entries = [] }
    }

    // MARK: Events (on `queue`, in order per task)

    public func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request) {
        state.withLock { $0.open[task.taskIdentifier, default: []].append(Exchange(request: request)) }
    }

    public func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request) {
        state.withLock { state in
            let id = task.taskIdentifier
            if let last = state.open[id]?.indices.last { state.open[id]?[last].response = response }
            state.open[id, default: []].append(Exchange(request: request))
        }
    }

    public func task(_ task: SessionTask, didReceiveResponse response: Response) {
        state.withLock { state in
            let id = task.taskIdentifier
            if let last = state.open[id]?.indices.last { state.open[id]?[last].response = response }
        }
    }

    public func taskCompleted(_ completion: TaskCompletion) {
        let exchanges = state.withLock { $0.open.removeValue(forKey: completion.task.taskIdentifier) } ?? []
        let entries = makeEntries(exchanges, completion: completion)
        state.withLock { $0.entries.append(contentsOf: entries) }
    }

    // MARK: Entries

    private func makeEntries(_ exchanges: [Exchange], completion: TaskCompletion) -> [HAR.Entry] {
        let transactions = completion.metrics?.transactionMetrics ?? []
        // The monotonic clock of the transactions, mapped to the wall clock once.
        let (wallNow, monotonicNow) = (Date(), Deadline.now())
        var exchanges = exchanges
        if exchanges.isEmpty, let response = completion.response {
            // Answered from the session's cache: no request was made.
            exchanges = [Exchange(request: completion.task.currentRequest, response: response)]
        }
        return exchanges.enumerated().map { index, exchange in
            let isLast = index == exchanges.count - 1
            let metrics = index < transactions.count ? transactions[index] : nil
            let started = metrics.map { wallNow.addingTimeInterval(-Double((monotonicNow - $0.fetchStart).nanoseconds) / 1e9) }
                ?? completion.metrics?.taskStart ?? wallNow
            let timings = Self.timings(metrics)
            var error: String?
            if isLast, let failure = completion.error { error = "\(failure.code): \(failure.detail ?? "\(failure)")" }
            return HAR.Entry(
                startedDateTime: HAR.iso8601(started), time: Self.total(timings),
                request: harRequest(exchange.request),
                response: harResponse(exchange.response, metrics: metrics, body: isLast ? completion.data : nil),
                cache: HAR.Cache(), timings: timings, _error: error)
        }
    }

    private func harRequest(_ request: Request) -> HAR.Request {
        let url = displayedURL?(request) ?? (includesCredentials ? request.url.absoluteString : request.url.redactedForDisplay)
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        var postData: HAR.PostData?
        if includesBodies, case .data(let body)? = request.body, let text = String(validating: body, as: UTF8.self) {
            postData = HAR.PostData(mimeType: request.headers[first: "Content-Type"] ?? "", text: text)
        }
        return HAR.Request(
            method: request.method.rawValue, url: url, httpVersion: "HTTP/1.1",
            cookies: includesCredentials ? Self.cookies(request.headers.values(for: "Cookie"), pairs: true) : [],
            headers: headers(request.headers),
            queryString: query.map { HAR.QueryParameter(name: $0.name, value: $0.value ?? "") },
            postData: postData, headersSize: -1,
            bodySize: request.body.map { body in body.length.map { Int($0) } ?? -1 } ?? 0)
    }

    private func harResponse(_ response: Response?, metrics: HTTPClientMetrics?, body: Data?) -> HAR.Response {
        guard let response else {
            return HAR.Response(
                status: 0, statusText: "", httpVersion: "", cookies: [], headers: [],
                content: HAR.Content(size: 0, mimeType: "x-unknown", text: nil, encoding: nil), redirectURL: "", headersSize: -1, bodySize: -1)
        }
        let delivered = Int(metrics?.bodyBytesDelivered ?? 0)
        var content = HAR.Content(size: body?.count ?? delivered, mimeType: response.headers[first: "Content-Type"] ?? "x-unknown", text: nil, encoding: nil)
        if includesBodies, let body {
            if let text = String(validating: body, as: UTF8.self) {
                content.text = text
            } else {
                content.text = body.base64EncodedString()
                content.encoding = "base64"
            }
        }
        // The transferred size is the delivered one unless the transport undid a content coding.
        let decoded = response.hasContentCoding && response.undecodedContentCodings.isEmpty
        return HAR.Response(
            status: response.statusCode, statusText: StatusText.text(for: response.statusCode), httpVersion: "HTTP/1.1",
            cookies: includesCredentials ? Self.cookies(response.headers.values(for: "Set-Cookie"), pairs: false) : [],
            headers: headers(response.headers), content: content,
            redirectURL: (300..<400).contains(response.statusCode) ? response.headers[first: "Location"] ?? "" : "",
            headersSize: -1, bodySize: decoded || metrics == nil ? -1 : delivered)
    }

    private static let credentialFields: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    private func headers(_ fields: HTTPFields) -> [HAR.Header] {
        fields.map { field in
            let secret = !includesCredentials && Self.credentialFields.contains(field.name.lowercased())
            return HAR.Header(name: field.name, value: secret ? "<redacted>" : field.value)
        }
    }

    /// `Cookie` values hold `name=value` pairs separated by `;` (RFC 6265 §4.2.1); a `Set-Cookie`
    /// value one pair, then attributes (§4.1.1).
    private static func cookies(_ values: [String], pairs: Bool) -> [HAR.Cookie] {
        values.flatMap { value -> [HAR.Cookie] in
            let parts = value.split(separator: ";")
            return (pairs ? parts[...] : parts.prefix(1)).compactMap { part in
                let pair = part.split(separator: "=", maxSplits: 1)
                guard let name = pair.first?.trimmingOWS, !name.isEmpty else { return nil }
                return HAR.Cookie(name: String(name), value: pair.count > 1 ? String(pair[1].trimmingOWS) : "")
            }
        }
    }

    // MARK: Timings (HAR 1.2 "timings")

    /// The phases of one transaction in milliseconds: `blocked` until resolving, connecting or
    /// sending began; `dns`; `connect` (TCP and TLS: `ssl` is included in it, as HAR 1.2 asks);
    /// `send`; `wait` for the first response byte; `receive`. -1 for the optional phases that did
    /// not happen (a reused connection resolves and connects nothing).
    static func timings(_ metrics: HTTPClientMetrics?) -> HAR.Timings {
        guard let metrics else { return HAR.Timings(blocked: -1, dns: -1, connect: -1, send: 0, wait: 0, receive: 0, ssl: -1) }
        let firstWork = metrics.resolveStart ?? metrics.connectStart ?? metrics.requestStart
        return HAR.Timings(
            blocked: span(metrics.fetchStart, firstWork) ?? -1,
            dns: span(metrics.resolveStart, metrics.resolveEnd) ?? -1,
            connect: span(metrics.connectStart, metrics.tlsEnd ?? metrics.connectEnd) ?? -1,
            send: span(metrics.requestStart, metrics.requestEnd) ?? 0,
            wait: span(metrics.requestEnd, metrics.responseStart) ?? 0,
            receive: span(metrics.responseStart, metrics.responseEnd) ?? 0,
            ssl: span(metrics.tlsStart, metrics.tlsEnd) ?? -1)
    }

    /// An entry's `time`: the sum of the timings that apply, `ssl` excluded (part of `connect`).
    static func total(_ timings: HAR.Timings) -> Double {
        let parts = [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait, timings.receive]
        return rounded(parts.filter { $0 >= 0 }.reduce(0, +))
    }

    /// Milliseconds between two points, to the microsecond; nil unless both happened.
    private static func span(_ start: Deadline?, _ end: Deadline?) -> Double? {
        guard let start, let end else { return nil }
        return rounded(Double(max(0, (end - start).nanoseconds)) / 1e6)
    }

    private static func rounded(_ milliseconds: Double) -> Double { (milliseconds * 1000).rounded() / 1000 }
}
