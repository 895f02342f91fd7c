import CourierCore
import CourierHTTP1
import CourierPosix
import Synchronization

/// The execution of one request — what ``HTTPClient/execute(_:delegate:)`` returns: the handle
/// the caller keeps (``cancel()``, ``resumeReading()``) and the per-request driver, the logic
/// that spans connections — redirects, the one safe retry, decompression, metrics, and calling
/// the delegate. (Named for what it is; "task" belongs to the session layer's `SessionTask`.)
///
/// `@unchecked Sendable`: `shared` is a `Mutex`. Every other mutable member is touched by one
/// thread at a time: the caller's thread in `start`, then the loop of the connection running
/// the request (or the execution's home loop between connections, or the last connection's loop
/// while a redirect handler's answer is awaited). Each hand-over goes through `EventLoop.execute`
/// or the pool's lock, which orders the accesses.
public final class HTTPRequestExecution: EventLoopTask, @unchecked Sendable {
    private static let ids = Atomic<Int>(0)

    /// Made anew for every request the object carries (``reuse(for:request:delegate:homeLoop:)``):
    /// the pool knows waiters by it.
    @exclusivity(unchecked) private(set) var id: Int
    /// Strong: a request in flight keeps its client (and pool) alive until it ends.
    let client: HTTPClient
    let shared = Mutex(Shared())
    /// `shared.cancelled`, readable without the lock: set inside it by ``cancel()``, so a check
    /// under the lock sees it too. The early checks on the request's own path (several per
    /// request) read this instead of taking the lock.
    private let cancelledFlag = Atomic<Bool>(false)
    /// The loop the execution starts on (the caller's, when it calls from one): the pool
    /// prefers connections of this loop, and makes new ones on it.
    @exclusivity(unchecked) private(set) var homeLoop: EventLoop
    /// True while the start job runs ``acquire()``; touched on `homeLoop` only.
    @exclusivity(unchecked) private var acquiringInStartJob = false
    /// What the last request derived (credentials, pool key, head). Kept across `reuse`: it
    /// depends only on the request it names and the client's fixed configuration. Touched by
    /// `acquire` and `attach`, one thread at a time like the members below.
    @exclusivity(unchecked) private var route: RequestRoute?

    // One thread at a time (see the type's comment). Internal rather than private only where
    // the redirect and response extensions (`HTTPRequestExecution+Redirects.swift`,
    // `+Response.swift`) need them.
    //
    // Every member below is per request: a member added here is also set back in
    // `reuse(for:request:delegate:homeLoop:)`.
    //
    // `@exclusivity(unchecked)`, as on `HTTP1Connection`: the run-time check of every access
    // cost about 700 instructions per request, and no member is passed `inout` to code that
    // reaches back into the execution (the hold, the decoder and the metrics are values whose
    // methods call nothing outside them).
    //
    // In the order a request touches them, the ones only a redirect uses last: stored
    // properties are laid out in declaration order, and with many connections each request
    // finds the execution out of the cache, so every line its members span is a miss.
    @exclusivity(unchecked) var request: HTTPClientRequest
    @exclusivity(unchecked) private(set) var delegate: any HTTPClientResponseDelegate
    @exclusivity(unchecked) private(set) var deadline: Deadline?
    @exclusivity(unchecked) private var ended = false
    @exclusivity(unchecked) private var retried = false
    @exclusivity(unchecked) private var headSent = false
    /// How the connection frames this attempt's body; set on the loop before the head goes out.
    @exclusivity(unchecked) var bodyKind: HTTP1ConnectionStateMachine.RequestBodyKind = .none
    /// A redirect started (`startRedirect`): the members after `redirectHandler` hold something
    /// `reuse` must clear. Without one they are left untouched.
    @exclusivity(unchecked) var redirected = false
    @exclusivity(unchecked) private var poolTimer: TimerID?
    /// `Basic …` from the current URL's user information, set by `acquire()` for a hop whose
    /// route is not kept (an environment proxy); a kept route carries its own.
    @exclusivity(unchecked) private var urlAuthorization: String?
    @exclusivity(unchecked) private(set) var redirects: RedirectConfiguration
    /// The loop of the connection running the current attempt (where answers arrive).
    @exclusivity(unchecked) var attemptLoop: EventLoop?
    /// The head of the current attempt, as handed to the encoder (what `didSendRequestHead`
    /// reports: with the fields the client added, such as Accept-Encoding).
    @exclusivity(unchecked) private var sentHead: HTTPRequestHead?
    @exclusivity(unchecked) var metrics: HTTPClientMetrics
    /// What becomes of the current response's body while a redirect is decided or followed.
    @exclusivity(unchecked) var hold = RedirectHold<HTTPClientRequest>()
    @exclusivity(unchecked) var decoder: ContentDecoder?
    @exclusivity(unchecked) var decoded = ByteBuffer()
    @exclusivity(unchecked) private var timeouts: HTTPClientTimeouts
    @exclusivity(unchecked) private(set) var redirectHandler: HTTPClientRedirectHandler?
    @exclusivity(unchecked) var history: [RedirectVisit] = []
    /// The redirect response being decided or followed, and the request ``RedirectConfiguration``
    /// proposed for it.
    @exclusivity(unchecked) var redirectHead: HTTPClientResponseHead?
    @exclusivity(unchecked) var proposedRedirect: RedirectedRequest?
    /// The handler's reply while its answer is pending.
    @exclusivity(unchecked) var reply: HTTPClientRedirectReply?
    /// The total deadline while the execution waits for an answer without a connection.
    @exclusivity(unchecked) var decisionTimer: TimerID?

    init(client: HTTPClient, request: HTTPClientRequest, delegate: any HTTPClientResponseDelegate, homeLoop: EventLoop) {
        self.id = Self.ids.add(1, ordering: .relaxed).newValue
        self.client = client
        self.request = request
        self.delegate = delegate
        self.homeLoop = homeLoop
        let settings = Settings(client: client, request: request)
        self.timeouts = settings.timeouts
        self.redirects = settings.redirects
        self.redirectHandler = settings.redirectHandler
        self.deadline = settings.deadline
        self.metrics = HTTPClientMetrics(fetchStart: settings.now)
    }

    /// What a request takes from the client's configuration unless it overrides it.
    private struct Settings {
        let timeouts: HTTPClientTimeouts
        let redirects: RedirectConfiguration
        let redirectHandler: HTTPClientRedirectHandler?
        let now: Deadline
        let deadline: Deadline?

        init(client: HTTPClient, request: HTTPClientRequest, now: Deadline = .now()) {
            timeouts = request.timeouts ?? client.configuration.timeouts
            redirects = request.redirects ?? client.configuration.redirects
            redirectHandler = request.redirectHandler ?? client.configuration.redirectHandler
            self.now = now
            deadline = timeouts.total.map { now + $0 }
        }
    }

    // MARK: Reuse

    /// Whether `client` may run its next request in this object: it has ended, for `client`.
    /// The caller has checked that nothing else refers to it (`isKnownUniquelyReferenced`),
    /// so no connection, pool, timer or queued job can reach it any more.
    func isReusable(by client: HTTPClient) -> Bool {
        ended && self.client === client
    }

    /// Makes this ended execution the execution of `request`, as `init` would have made it.
    /// Called only on an object nothing else refers to (``isReusable(by:)``).
    func reuse(request: HTTPClientRequest, delegate: any HTTPClientResponseDelegate, homeLoop: EventLoop) {
        id = Self.ids.add(1, ordering: .relaxed).newValue
        shared.withLock { $0 = Shared() }
        cancelledFlag.store(false, ordering: .relaxed)
        // Stored only when they differ: a caller that sends one request again from one
        // delegate on one loop (`courier bench`) would otherwise pay a retain and a release for
        // each, to put back what is there.
        if self.homeLoop !== homeLoop { self.homeLoop = homeLoop }
        acquiringInStartJob = false
        if self.delegate !== delegate { self.delegate = delegate }
        let now = Deadline.now()
        if self.request.isSameRequest(as: request) {
            // The same box from the same client (`isReusable`): the settings taken from them
            // are the ones already here. Only the deadline moves.
            deadline = timeouts.total.map { now + $0 }
        } else {
            self.request = request
            let settings = Settings(client: client, request: request, now: now)
            timeouts = settings.timeouts
            redirects = settings.redirects
            redirectHandler = settings.redirectHandler
            deadline = settings.deadline
        }
        if !hold.isPassing { hold = RedirectHold() }
        // A request that met no redirect left these as they were made: not even read then.
        if redirected {
            redirected = false
            history = []
            redirectHead = nil
            proposedRedirect = nil
            reply = nil
            decisionTimer = nil
        }
        // `attemptLoop` is kept: `attach` sets it before anything reads it (it matters only
        // once a response has arrived), and most reuses run on the same loop again.
        decoder = nil
        decoded.clear()
        metrics.restart(fetchStart: now)
        retried = false
        headSent = false
        // `sentHead` is kept, like `attemptLoop`: `attach` sets it before it is read.
        poolTimer = nil
        ended = false
        if urlAuthorization != nil { urlAuthorization = nil }
        bodyKind = .none
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
            cancelledFlag.store(true, ordering: .releasing)
            return shared.location
        }
        switch location {
        case .waiting(let entry):
            client.pool.removeWaiter(self, entry: entry, timedOut: false)
        case .running(let connection):
            connection.loop.execute { connection.cancel(self) }
        case .deciding(let loop):
            loop.execute { self.cancelWhileDeciding() }
        case .starting, .finished:
            break
        }
    }

    /// Resumes reading after the delegate returned `.pause`.
    public func resumeReading() {
        guard case .running(let connection) = shared.withLock({ $0.location }) else { return }
        connection.loop.execute { connection.resumeReading(self) }
    }

    var isCancelled: Bool { cancelledFlag.load(ordering: .acquiring) }

    // MARK: Starting and re-starting

    /// Validates the request and queues it for a connection.
    func start() {
        // Everything from here runs on a loop, so the delegate is only ever called from one.
        // Queued as a task, not a closure: the hop allocates nothing (``runOnEventLoop()``).
        homeLoop.execute(task: self)
    }

    /// The start job (queued once, by ``start()``).
    package func runOnEventLoop() {
        // The same request again (the same box, ``RequestRoute/serves(_:)``) passed the checks
        // when its route was made: a route is made only in `acquire`, after them, and the
        // redirected requests that get routes of their own never reach a caller.
        if route?.serves(request) != true, let problem = Self.validate(request) {
            end(failure: problem)
            return
        }
        acquiringInStartJob = true
        acquire()
        acquiringInStartJob = false
    }

    /// Ends the execution on the caller's thread: only for a client already shut down.
    func failWithoutLoop(_ error: ClientError) {
        end(failure: error)
    }

    func acquire() {
        if isCancelled { end(failure: ClientError(.cancelled)); return }
        // A redirect or the retry after shutdown began: the pool takes no new request.
        if client.pool.isShutDown {
            end(failure: ClientError(.poolShutdown, detail: history.isEmpty && !retried ? nil : "the client was shut down before the next request of the chain"))
            return
        }
        if let deadline, deadline.hasPassed {
            end(failure: ClientError(.totalTimeout, phase: history.isEmpty ? .pool : .redirect, detail: "before the request was made"))
            return
        }
        // The route keeps its pool entry: one reference, where finding it compared keys (and
        // holding the key in `location` retained its parts).
        let entry: ConnectionPool.Entry
        if let route, route.serves(request) {
            entry = route.entry
        } else {
            guard let derived = deriveRoute() else { return }
            entry = derived
        }
        let proceed = shared.withLock { shared -> Bool in
            if shared.cancelled { return false }
            shared.location = .waiting(entry)
            return true
        }
        guard proceed else { end(failure: ClientError(.cancelled)); return }
        armPoolTimer(entry)
        client.pool.acquire(self, entry: entry, timeouts: timeouts)
    }

    /// Derives the request's credentials and pool key, and remembers them as `route` (unless
    /// the proxy comes from the environment, which is read again for each request), taking the
    /// loop's last route when it serves the request (``LoopRouteMemory``). Returns the key's
    /// pool entry; ends the execution and returns nil when the request cannot be sent.
    private func deriveRoute() -> ConnectionPool.Entry? {
        do {
            let made: RequestRoute
            // An environment proxy is read again for each request: its settings may change.
            let fromEnvironment = if case .environment = client.configuration.proxy { true } else { false }
            if !fromEnvironment, let memory = client.routeMemory() {
                made = try memory.route(of: request, client: client)
            } else {
                made = try RequestRoute(request, client: client)
            }
            // Read by `makeHead` when `route` does not serve the request (an environment proxy).
            urlAuthorization = made.urlAuthorization
            route = fromEnvironment ? nil : made
            return made.entry
        } catch {
            end(failure: error)
            return nil
        }
    }

    /// A time limit on waiting for a connection: the pool wait timeout or the total deadline.
    private func armPoolTimer(_ entry: ConnectionPool.Entry) {
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
                client.pool.removeWaiter(self, entry: entry, timedOut: true)
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

    /// Whether this execution's start job is running on `loop` now (the caller is on `loop`):
    /// a connection of `loop` leased during it may run the request at once, because nothing of
    /// any connection is on the stack (a start job always runs from the loop's queue).
    func isStarting(on loop: EventLoop) -> Bool {
        homeLoop === loop && acquiringInStartJob
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

    /// The connection is about to run this execution; returns what to send, or nil if it was
    /// cancelled meanwhile (it then ends here).
    /// `isFirstRequest`: the connection's first request, which gets how the connection was made
    /// (its `establishment`); every request gets its `facts` (addresses and TLS).
    func attach(to connection: HTTP1Connection, isFirstRequest: Bool) -> Attempt? {
        // `poolTimer` belongs to the home loop (this may be another loop): decide from the
        // immutable settings that make `armPoolTimer` arm one, and let the hop do the rest.
        if deadline != nil || client.configuration.poolWaitTimeout != nil { cancelPoolTimer() }
        if isCancelled {
            end(failure: ClientError(.cancelled))
            return nil
        }
        // The connect and TLS times go to the connection's first request only. Read from the
        // connection rather than passed: an optional copy of the record cost every request.
        metrics.reusedConnection = !isFirstRequest
        if isFirstRequest {
            let establishment = connection.establishment
            metrics.resolveStart = establishment.resolveStart
            metrics.resolveEnd = establishment.resolveEnd
            metrics.resolution = establishment.resolution
            metrics.connectStart = establishment.connectStart
            metrics.connectEnd = establishment.connectEnd
            metrics.tlsStart = establishment.tlsStart
            metrics.tlsEnd = establishment.tlsEnd
        }
        metrics.attach(connection.facts)
        metrics.requestStart = nil
        metrics.requestEnd = nil
        metrics.responseStart = nil
        headSent = false
        decoder = nil
        hold.reset()
        if attemptLoop !== connection.loop { attemptLoop = connection.loop }
        // Through a SOCKS5 tunnel requests are in origin form, as to the origin itself.
        let proxied = connection.key.proxy?.scheme == .http && request.url.scheme == .http
        let head: HTTPRequestHead
        if let route, route.serves(request), let made = route.head(proxied: proxied) {
            head = made
        } else {
            head = makeHead(proxied: proxied)
        }
        // Stored only when it is another head: reusing an execution keeps the last one (it is
        // read only after this attach), and the same head again would be a release and a retain.
        if sentHead.map({ !$0.isCopy(of: head) }) ?? true { sentHead = head }
        return Attempt(head: head,
                       host: request.url.hostHeader, body: request.body,
                       expectContinue: request.expectContinue, deadline: deadline, source: request.identity,
                       sourceIsKeepable: request.holdsOnlyValues)
    }

    private func makeHead(proxied: Bool) -> HTTPRequestHead {
        let urlAuthorization: String?
        if let route, route.serves(request) { urlAuthorization = route.urlAuthorization } else { urlAuthorization = self.urlAuthorization }
        let credentials = proxied ? (try? client.configuration.proxy.proxy(for: request.url))?.credentials : nil
        return RequestRoute.head(
            of: request, urlAuthorization: urlAuthorization, proxyCredentials: credentials,
            decompression: client.configuration.decompression, proxied: proxied)
    }

    /// What this execution has measured so far: the connection (new or reused, its address,
    /// resolve, connect and TLS times) and the request's progress. For a delegate that wants it
    /// before ``HTTPClientResponseDelegate/didFinish(_:trailers:metrics:)``, such as `curl -v`'s
    /// connection lines before the request head: read it from a delegate call, on the loop.
    /// In `didFinish` and `didFail` the metrics are their argument (lent, not copied), and this
    /// holds only their `fetchStart`.
    public var metricsSoFar: HTTPClientMetrics { metrics }

    /// A head given to ``HTTPClientResponseDelegate/didSendRequestHead(_:_:)`` as the connection
    /// wrote it: with the `Host` (RFC 9112 §3.2), `Expect: 100-continue` (RFC 9110 §10.1.1) and
    /// framing fields (RFC 9112 §6) the connection adds. Computed on demand (the delegate call
    /// itself carries the head as built, at no cost); call it from that delegate call.
    public func headAsWritten(_ head: HTTPRequestHead) -> HTTPRequestHead {
        let (expecting, _) = HTTP1ConnectionStateMachine.expecting(head, body: bodyKind, expectContinue: request.expectContinue)
        let framing = HTTP1ConnectionStateMachine.framing(of: bodyKind)
        return HTTPRequestEncoder.headAsWritten(expecting, host: request.url.hostHeader, framing: framing) ?? head
    }

    /// `bytes` went to the connection; `start` is when the connection began this request (its
    /// clock read in `execute`, right before it writes the head): the request start when these
    /// are the head's bytes.
    func sent(bytes: Int, requestStartedAt start: Deadline) {
        metrics.bytesSent += Int64(bytes)
        if !headSent {
            headSent = true
            metrics.requestStart = start
            if let sentHead { delegate.didSendRequestHead(self, sentHead) }
        }
    }

    func sentBody(total: Int64) {
        if hold.isPassing { delegate.didSendRequestBody(self, total: total) }
    }

    func requestFlushed() {
        if metrics.requestEnd == nil { metrics.requestEnd = .now() }
    }

    /// A read at `time` brought response bytes (the connection's clock read for that read).
    func firstByteReceived(at time: Deadline) {
        if metrics.responseStart == nil { metrics.responseStart = time }
    }

    func received(bytes: Int) {
        metrics.bytesReceived += Int64(bytes)
    }

    /// The response is complete; `time` is when its last bytes were read (its `responseEnd`).
    func succeeded(trailers: HTTPFields, at time: Deadline) {
        switch hold.end(trailers: trailers) {
        case .finish:
            finishResponse(trailers: trailers, at: time)
        case .wait:
            waitForAnswer()
        case .follow(let next):
            follow(next)
        }
    }

    /// The response delivered to the delegate is complete.
    func finishResponse(trailers: HTTPFields, at time: Deadline) {
        if let decoder {
            do {
                try decoder.finish()
            } catch {
                end(failure: ClientError(.contentDecoding, cause: error, detail: error.description))
                return
            }
        }
        end(trailers: trailers, at: time)
    }

    func failed(_ error: ClientError) {
        var error = error
        if hold.isDeciding, error.code == .totalTimeout {
            error = ClientError(.totalTimeout, phase: .redirect, cause: error.cause, detail: "while a redirect was being decided")
        }
        if error.isSafeToRetry, !retried, !isCancelled, hold.isPassing {
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

    func end(trailers: HTTPFields, at time: Deadline) {
        guard markEnded(at: time) else { return }
        lendMetrics { delegate.didFinish(self, trailers: trailers, metrics: $0) }
        client.requests.ended()
    }

    func end(failure error: ClientError) {
        guard markEnded(at: .now()) else { return }
        lendMetrics { delegate.didFail(self, error: error, metrics: $0) }
        client.requests.ended()
    }

    /// Passes the metrics to the delegate's last call moved out of `self`, and puts them back
    /// after it unless the delegate reused this ended execution for its next request (`reuse`
    /// gives it a new `id`). Passing the stored property copied it: a retain and a release of
    /// the connection facts, an object nothing else touches per request (with many
    /// connections, a cache miss). ``metricsSoFar`` has nothing to say during the call.
    private func lendMetrics(_ call: (HTTPClientMetrics) -> Void) {
        var lent = HTTPClientMetrics(fetchStart: metrics.fetchStart)
        swap(&lent, &metrics)
        let id = self.id
        call(lent)
        if self.id == id { swap(&lent, &metrics) }
    }

    private func markEnded(at time: Deadline) -> Bool {
        guard !ended else { return false }
        ended = true
        metrics.responseEnd = time
        shared.withLock { $0.location = .finished }
        decoder = nil
        endDecision()
        return true
    }
}
