import CourierCore
import CourierHTTP1
import CourierPosix
import Synchronization

/// One request in progress: the handle the caller keeps (``cancel()``, ``resumeReading()``)
/// and the logic that spans connections — redirects, the one safe retry, decompression,
/// metrics, and calling the delegate.
///
/// `@unchecked Sendable`: `shared` is a `Mutex`. Every other mutable member is touched by one
/// thread at a time: the caller's thread in `start`, then the loop of the connection running
/// the request (or the task's home loop between connections). Each hand-over goes through
/// `EventLoop.execute` or the pool's lock, which orders the accesses.
public final class HTTPClientTask: @unchecked Sendable {
    enum Location {
        case starting
        case waiting(PoolKey)
        case running(HTTP1Connection)
        case finished
    }

    struct Shared {
        var location: Location = .starting
        var cancelled = false
    }

    /// What a connection needs to start one attempt.
    struct Attempt {
        var head: HTTPRequestHead
        var host: String
        var body: HTTPClientRequestBody?
        var expectContinue: Bool
        var deadline: Deadline?
    }

    enum BodyDisposition {
        case more
        case pause
        case abort(ClientError)
    }

    private static let ids = Atomic<Int>(0)

    let id: Int
    /// Strong: a request in flight keeps its client (and pool) alive until it ends.
    private let client: HTTPClient
    private let shared = Mutex(Shared())
    private let homeLoop: EventLoop

    // One thread at a time (see the type's comment).
    private var request: HTTPClientRequest
    private let delegate: any HTTPClientResponseDelegate
    private let deadline: Deadline?
    private let timeouts: HTTPClientTimeouts
    private let redirects: RedirectConfiguration
    private var history: [RedirectVisit] = []
    private var pendingRedirect: RedirectedRequest?
    private var decoder: ContentDecoder?
    private var decoded = ByteBuffer()
    private var metrics: HTTPClientMetrics
    private var retried = false
    private var headSent = false
    /// The head of the current attempt, as handed to the encoder (what `didSendRequestHead`
    /// reports: with the fields the client added, such as Accept-Encoding).
    private var sentHead: HTTPRequestHead?
    private var poolTimer: TimerID?
    private var ended = false
    /// `Basic …` from the current URL's user information, set by `acquire()` for each hop.
    private var urlAuthorization: String?

    init(client: HTTPClient, request: HTTPClientRequest, delegate: any HTTPClientResponseDelegate, homeLoop: EventLoop) {
        self.id = Self.ids.add(1, ordering: .relaxed).newValue
        self.client = client
        self.request = request
        self.delegate = delegate
        self.homeLoop = homeLoop
        let timeouts = request.timeouts ?? client.configuration.timeouts
        self.timeouts = timeouts
        self.redirects = request.redirects ?? client.configuration.redirects
        let now = Deadline.now()
        self.deadline = timeouts.total.map { now + $0 }
        self.metrics = HTTPClientMetrics(fetchStart: now)
    }

    /// The idle read timeout for this request.
    var idleReadTimeout: TimeAmount? { timeouts.idleRead }

    // MARK: Public handle

    /// Cancels the request in whatever phase it is. The delegate gets `didFail` with
    /// `.cancelled` unless the request already ended. A connection with this request in
    /// flight is closed; a request still waiting for a connection just leaves the queue.
    public func cancel() {
        let location = shared.withLock { shared -> Location in
            shared.cancelled = true
            return shared.location
        }
        switch location {
        case .waiting(let key):
            client.pool.removeWaiter(self, key: key, timedOut: false)
        case .running(let connection):
            connection.loop.execute { connection.cancel(self) }
        case .starting, .finished:
            break
        }
    }

    /// Resumes reading after the delegate returned `.pause`.
    public func resumeReading() {
        guard case .running(let connection) = shared.withLock({ $0.location }) else { return }
        connection.loop.execute { connection.resumeReading(self) }
    }

    var isCancelled: Bool { shared.withLock { $0.cancelled } }

    // MARK: Starting and re-starting

    /// Validates the request and queues it for a connection.
    func start() {
        // Everything from here runs on a loop, so the delegate is only ever called from one.
        homeLoop.execute { [self] in
            if let problem = Self.validate(request) {
                end(failure: problem)
                return
            }
            acquire()
        }
    }

    /// Ends the task on the caller's thread: only for a client already shut down.
    func failWithoutLoop(_ error: ClientError) {
        end(failure: error)
    }

    private static func validate(_ request: HTTPClientRequest) -> ClientError? {
        for name in ["Content-Length", "Transfer-Encoding"] where request.headers.contains(name) {
            return ClientError(.invalidRequest, detail: "\(name) is derived from the body; do not set it (RFC 9112 §6)")
        }
        if case .stream(let length?, _) = request.body, length < 0 {
            return ClientError(.invalidRequest, detail: "a stream body's length cannot be negative (\(length))")
        }
        return nil
    }

    private func acquire() {
        if isCancelled { end(failure: ClientError(.cancelled)); return }
        if let deadline, deadline.hasPassed {
            end(failure: ClientError(.totalTimeout, phase: history.isEmpty ? .pool : .redirect, detail: "before the request was made"))
            return
        }
        do {
            urlAuthorization = try Self.authorization(from: request.url)
        } catch {
            end(failure: error)
            return
        }
        let proxy: ProxyServer?
        do {
            proxy = request.url.scheme == .unix ? nil : try client.configuration.proxy.proxy(for: request.url)
        } catch {
            end(failure: ClientError(.invalidRequest, phase: .proxy, cause: error, detail: error.description))
            return
        }
        // The request's own TLS settings and trust evaluator (if any) are part of the key:
        // connections made with different trust settings are never shared.
        let https = request.url.scheme == .https
        let tls = https ? (request.tls ?? client.configuration.tls) : nil
        let key = PoolKey(origin: request.url.origin, tls: tls, trustEvaluator: https ? request.serverTrustEvaluator : nil, proxy: proxy)
        let proceed = shared.withLock { shared -> Bool in
            if shared.cancelled { return false }
            shared.location = .waiting(key)
            return true
        }
        guard proceed else { end(failure: ClientError(.cancelled)); return }
        armPoolTimer(key)
        client.pool.acquire(self, key: key, timeouts: timeouts)
    }

    /// A time limit on waiting for a connection: the pool wait timeout or the total deadline.
    private func armPoolTimer(_ key: PoolKey) {
        var limit = deadline
        if let wait = client.configuration.poolWaitTimeout {
            let waitDeadline = Deadline.after(wait)
            limit = min(limit ?? waitDeadline, waitDeadline)
        }
        guard let limit else { return }
        homeLoop.execute { [self] in
            guard case .waiting = shared.withLock({ $0.location }) else { return }
            if let poolTimer { homeLoop.cancelTimer(poolTimer) }
            poolTimer = homeLoop.scheduleTimer(at: limit) { [self] in
                poolTimer = nil
                client.pool.removeWaiter(self, key: key, timedOut: true)
            }
        }
    }

    private func cancelPoolTimer() {
        homeLoop.execute { [self] in
            if let poolTimer { homeLoop.cancelTimer(poolTimer) }
            poolTimer = nil
        }
    }

    /// The pool picked `connection` (called under no lock, before the hop to its loop).
    func leased(_ connection: HTTP1Connection) {
        shared.withLock { $0.location = .running(connection) }
    }

    /// The pool could not give a connection.
    func poolFailed(_ error: ClientError) {
        var error = error
        if error.code == .poolTimeout, let deadline, deadline.hasPassed { error = ClientError(.totalTimeout, phase: .pool, detail: "while waiting for a connection") }
        if isCancelled { error = ClientError(.cancelled) }
        homeLoop.execute { [self, error] in end(failure: error) }
    }

    /// The leased connection turned out closed before this request started on it.
    func connectionUnusable() {
        acquire()
    }

    // MARK: On the connection's loop

    /// The connection is about to run this task; returns what to send, or nil if the task was
    /// cancelled meanwhile (it then ends here).
    func attach(to connection: HTTP1Connection, establishment: ConnectionEstablishment, reused: Bool) -> Attempt? {
        // `poolTimer` belongs to the home loop (this may be another loop): decide from the
        // immutable settings that make `armPoolTimer` arm one, and let the hop do the rest.
        if deadline != nil || client.configuration.poolWaitTimeout != nil { cancelPoolTimer() }
        if isCancelled {
            end(failure: ClientError(.cancelled))
            return nil
        }
        metrics.reusedConnection = reused
        if !reused {
            metrics.resolveStart = establishment.resolveStart
            metrics.resolveEnd = establishment.resolveEnd
            metrics.connectStart = establishment.connectStart
            metrics.connectEnd = establishment.connectEnd
            metrics.tlsStart = establishment.tlsStart
            metrics.tlsEnd = establishment.tlsEnd
        }
        metrics.localAddress = establishment.localAddress
        metrics.remoteAddress = establishment.remoteAddress
        if let info = establishment.tlsInfo {
            metrics.tlsVersion = info.version
            metrics.tlsCipher = info.cipher
            metrics.peerCertificates = info.verifiedChain
        }
        metrics.requestStart = nil
        metrics.requestEnd = nil
        metrics.responseStart = nil
        headSent = false
        decoder = nil
        pendingRedirect = nil
        let head = makeHead(proxied: connection.key.proxy != nil && request.url.scheme == .http)
        sentHead = head
        return Attempt(head: head,
                       host: request.url.hostHeader, body: request.body,
                       expectContinue: request.expectContinue, deadline: deadline)
    }

    /// The `Authorization` value for a URL with user information (`http://user:pass@host/`): Basic
    /// credentials (RFC 7617) of the percent-decoded user and password (RFC 3986 §3.2.1), as
    /// curl and URLSession send them; no password is an empty one. They belong to the URL's
    /// origin: a redirect to another origin leaves the user information behind
    /// (``RedirectConfiguration/decide(method:url:headers:body:status:location:history:)``).
    static func authorization(from url: HTTPURL) throws(ClientError) -> String? {
        guard let user = url.user else { return nil }
        do {
            return try basicAuthorizationValue(username: user, password: url.password ?? "")
        } catch {
            // The error names the reason only, never the credentials.
            throw ClientError(.invalidURL, cause: error, detail: "the URL's user information cannot be sent as Basic credentials")
        }
    }

    private func makeHead(proxied: Bool) -> HTTPRequestHead {
        var headers = request.headers
        // The caller's own Authorization field wins over the URL's user information.
        if let urlAuthorization, !headers.contains("Authorization") {
            try? headers.append(name: "Authorization", value: urlAuthorization)
        }
        if client.configuration.decompression, !headers.contains("Accept-Encoding") {
            try? headers.append(name: "Accept-Encoding", value: "gzip, deflate")
        }
        let target: RequestTarget
        if proxied {
            // RFC 9112 §3.2.2: absolute form to a forward proxy, with its credentials.
            target = .absolute(request.url.absoluteFormTarget)
            if let credentials = try? client.configuration.proxy.proxy(for: request.url)?.credentials,
               !headers.contains("Proxy-Authorization"),
               let value = try? basicAuthorizationValue(username: credentials.username, password: credentials.password) {
                try? headers.append(name: "Proxy-Authorization", value: value)
            }
        } else {
            target = .origin(request.url.requestTarget)
        }
        return HTTPRequestHead(method: request.method, target: target, headers: headers)
    }

    func sent(bytes: Int) {
        metrics.bytesSent += Int64(bytes)
        if !headSent {
            headSent = true
            metrics.requestStart = .now()
            if let sentHead { delegate.didSendRequestHead(self, sentHead) }
        }
    }

    func sentBody(total: Int64) {
        if pendingRedirect == nil { delegate.didSendRequestBody(self, total: total) }
    }

    func requestFlushed() {
        if metrics.requestEnd == nil { metrics.requestEnd = .now() }
    }

    func firstByteReceived() {
        if metrics.responseStart == nil { metrics.responseStart = .now() }
    }

    func received(bytes: Int) {
        metrics.bytesReceived += Int64(bytes)
    }

    /// The final head arrived. Returns an error to fail the request with, or nil.
    func receivedHead(_ head: HTTPClientResponseHead) -> ClientError? {
        if redirects.follow, [301, 302, 303, 307, 308].contains(head.status) {
            do {
                let decision = try redirects.decide(
                    method: request.method, url: request.url, headers: request.headers,
                    body: request.body == nil ? .none : .replayable, status: head.status,
                    location: head.headers[first: "Location"], history: history)
                if case .follow(let next) = decision {
                    pendingRedirect = next
                    return nil
                }
            } catch {
                let code: ClientError.Code = if case .loop = error { .redirectLoop } else if case .tooManyRedirects = error { .tooManyRedirects } else { .unexpectedResponse }
                return ClientError(code, phase: .redirect, cause: error, detail: error.description)
            }
        }
        var head = head
        let fields = head.headers.values(for: "Content-Encoding")
        switch ContentDecodingPlan(contentEncoding: fields, decoding: client.configuration.decompression) {
        case .decode(let codings):
            decoder = ContentDecoder(codings: codings, limits: client.configuration.decompressionLimits)
        case .passThrough(let undecoded):
            // Delivered as received; the head says what is left (RFC 9110 §8.4).
            head.undecodedContentCodings = undecoded
        case .none:
            break
        }
        delegate.didReceiveHead(self, head)
        return nil
    }

    func receivedBody(_ part: ByteBuffer) -> BodyDisposition {
        if pendingRedirect != nil { return .more }
        guard let decoder else {
            metrics.bodyBytesDelivered += Int64(part.readableBytes)
            return delegate.didReceiveBodyPart(self, part) == .pause ? .pause : .more
        }
        decoded.clear()
        do {
            try decoder.decode(part, into: &decoded)
        } catch {
            return .abort(ClientError(.contentDecoding, cause: error, detail: error.description))
        }
        guard decoded.readableBytes > 0 else { return .more }
        metrics.bodyBytesDelivered += Int64(decoded.readableBytes)
        return delegate.didReceiveBodyPart(self, decoded) == .pause ? .pause : .more
    }

    func succeeded(trailers: HTTPFields) {
        if let next = pendingRedirect {
            pendingRedirect = nil
            history.append(RedirectVisit(method: request.method, url: request.url))
            request.method = next.method
            request.url = next.url
            request.headers = next.headers
            if !next.keepsBody { request.body = nil }
            metrics.redirectCount += 1
            shared.withLock { $0.location = .starting }
            acquire()
            return
        }
        if let decoder {
            do {
                try decoder.finish()
            } catch {
                end(failure: ClientError(.contentDecoding, cause: error, detail: error.description))
                return
            }
        }
        end(trailers: trailers)
    }

    func failed(_ error: ClientError) {
        if error.isSafeToRetry, !retried, !isCancelled {
            // RFC 9112 §9.3.1: the one automatic retry, on a fresh lease.
            retried = true
            metrics.retried = true
            shared.withLock { $0.location = .starting }
            acquire()
            return
        }
        end(failure: isCancelled && error.code != .cancelled ? ClientError(.cancelled, cause: error) : error)
    }

    // MARK: Ending

    private func end(trailers: HTTPFields) {
        guard markEnded() else { return }
        delegate.didFinish(self, trailers: trailers, metrics: metrics)
    }

    private func end(failure error: ClientError) {
        guard markEnded() else { return }
        delegate.didFail(self, error: error, metrics: metrics)
    }

    private func markEnded() -> Bool {
        guard !ended else { return false }
        ended = true
        metrics.responseEnd = .now()
        shared.withLock { $0.location = .finished }
        decoder = nil
        return true
    }
}
