#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import Synchronization

/// A scripted HTTP/1.1 test server on loopback, plain or TLS, with one real thread per connection.
///
/// Routes are closures that write whatever bytes the test wants, at whatever pace; the server
/// parses requests with ``CourierHTTP1/HTTPRequestParser`` (Content-Length and chunked bodies,
/// `Expect: 100-continue`), keeps connections alive between requests, records every request, and
/// counts connections. It is deliberately independent of the client's transport code.
///
/// ```swift
/// let server = try ScriptedServer()
/// defer { server.shutdown() }
/// server.route("/hello") { request, connection in
///     try connection.respond(status: 200, body: "hi")
/// }
/// // ... point the client at server.baseURL + "/hello" ...
/// #expect(server.requests.count == 1)
/// ```
public final class ScriptedServer: Sendable {
    /// A route handler; it runs on the connection's thread.
    public typealias Handler = @Sendable (RecordedRequest, ServerConnection) throws -> Void

    /// How a route receives the request body.
    public enum BodyReading: Sendable {
        /// The server reads the whole body before the handler runs, first sending `100 Continue`
        /// when the request asks for it.
        case automatic
        /// The handler gets the head only and decides: ``ServerConnection/sendContinue()`` and
        /// ``ServerConnection/readRequestBody()``, or a final response without reading (the
        /// connection then closes after the handler).
        case manual
    }

    let core: ServerCore

    /// Starts listening at once on `address` (port chosen by the kernel); TLS if `tls` is given.
    ///
    /// - Parameter backlog: the `listen(2)` backlog. With ``pauseAccepting()``, a tiny backlog
    ///   makes further connects hang (SYNs are dropped once the accept queue is full), which is
    ///   how to test a connect timeout on loopback.
    public init(tls: ServerTLS? = nil, address: ServerAddress = .loopbackIPv4, backlog: Int32 = 1024) throws {
        core = try ServerCore(tls: tls, address: address, backlog: backlog)
        try core.start()
    }

    deinit { core.shutdown() }

    /// The TCP port (0 for a Unix-domain socket).
    public var port: Int { core.port }
    public var address: ServerAddress { core.address }
    public var isTLS: Bool { core.tlsContext != nil }

    /// `host:port` as a client would put it in `Host` (`127.0.0.1:P`, `[::1]:P`, `localhost:P` for TLS).
    public var authority: String {
        switch core.address {
        case .loopbackIPv4: isTLS ? "localhost:\(port)" : "127.0.0.1:\(port)"
        case .loopbackIPv6: "[::1]:\(port)"
        case .unix: "localhost"
        }
    }

    /// `http://127.0.0.1:PORT`, `https://localhost:PORT` (TLS: the test certificates name
    /// `localhost`), `http://[::1]:PORT`, or `http://localhost` for a Unix socket.
    public var baseURL: String { (isTLS ? "https://" : "http://") + authority }

    /// The socket path for ``ServerAddress/unix(_:)``.
    public var unixPath: String? {
        if case .unix(let path) = core.address { return path }
        return nil
    }

    /// Serves `path` (the target's path, query ignored; absolute-form targets match by their
    /// path too) with `handler`. Replaces an earlier route for the same path.
    public func route(_ path: String, body: BodyReading = .automatic, _ handler: @escaping Handler) {
        core.routes.withLock { $0[path] = Route(bodyReading: body, handler: handler) }
    }

    /// The handler for paths without a route (initially a `404 Not Found`).
    public func setDefaultHandler(body: BodyReading = .automatic, _ handler: @escaping Handler) {
        core.defaultRoute.withLock { $0 = Route(bodyReading: body, handler: handler) }
    }

    /// Runs on each new connection's thread before anything else (before the TLS handshake):
    /// stall here to test a handshake timeout, or close/reset to refuse the connection.
    public func onAccept(_ hook: (@Sendable (ServerConnection) throws -> Void)?) {
        core.acceptHookStorage.withLock { $0 = hook }
    }

    /// A pause before each `accept(2)`.
    public var acceptDelay: Duration? {
        get { core.acceptState.withLock { $0.delay } }
        set {
            core.acceptState.withLock { $0.delay = newValue }
            core.listener.wake()
        }
    }

    /// Stops calling `accept(2)`: connections complete the TCP handshake in the kernel (up to
    /// the backlog) but are not served.
    public func pauseAccepting() {
        core.acceptState.withLock { $0.paused = true }
        core.listener.wake()
    }

    public func resumeAccepting() {
        core.acceptState.withLock { $0.paused = false }
        core.listener.wake()
    }

    /// Closes every connection that is idle between requests (FIN, with close_notify for TLS),
    /// and returns once they are closed: the client's pooled connections are then stale.
    /// A connection counts as idle once its handler has sent a complete response with
    /// ``ServerConnection/respond(status:reason:headers:body:)`` or ``ServerConnection/endChunks(trailers:)``,
    /// even if the handler has not returned yet. Returns how many were closed.
    @discardableResult
    public func closeIdleConnections(timeout: Duration = .seconds(5)) -> Int {
        let events = core.registry.requestCloseOfIdle()
        for event in events { event.wait(timeout: timeout) }
        return events.count
    }

    /// Closes the listener and every connection, waits for all threads, and removes a Unix
    /// socket file. Synchronous: afterwards the server holds no file descriptors. Idempotent.
    public func shutdown() { core.shutdown() }

    /// Connections accepted so far.
    public var connectionsAccepted: Int { core.stats.withLock { $0.accepted } }
    /// Connections currently open.
    public var openConnections: Int { core.stats.withLock { $0.open } }
    /// The most connections that were open at once.
    public var maxConcurrentConnections: Int { core.stats.withLock { $0.maxOpen } }
    /// TLS handshakes that completed / failed.
    public var tlsHandshakesCompleted: Int { core.stats.withLock { $0.handshakes } }
    public var tlsHandshakeFailures: Int { core.stats.withLock { $0.handshakeFailures } }
    /// Every request received, in arrival order.
    public var requests: [RecordedRequest] { core.log.all }

    /// Forgets the requests recorded so far (``waitForRequests(_:timeout:)`` keeps counting them).
    public func clearRequestLog() { core.log.clear() }

    /// Waits until at least `count` requests have arrived. Returns false on timeout.
    @discardableResult
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(10)) -> Bool {
        core.waitFor(.requests, count, timeout: timeout)
    }

    /// Waits until at least `count` connections have been accepted. Returns false on timeout.
    @discardableResult
    public func waitForConnections(_ count: Int, timeout: Duration = .seconds(10)) -> Bool {
        core.waitFor(.accepted, count, timeout: timeout)
    }

    /// Waits until at least `count` TLS handshakes have failed on the server's side (it records a
    /// failure after sending its alert, so a client can see the alert first). Returns false on
    /// timeout.
    @discardableResult
    public func waitForHandshakeFailures(_ count: Int, timeout: Duration = .seconds(10)) -> Bool {
        core.waitFor(.handshakeFailures, count, timeout: timeout)
    }

    /// Waits until no connection is open (the client closed them all). Returns false on timeout.
    @discardableResult
    public func waitForAllConnectionsClosed(timeout: Duration = .seconds(10)) -> Bool {
        core.waitFor(.openAtMost, 0, timeout: timeout)
    }
}

struct Route: Sendable {
    var bodyReading: ScriptedServer.BodyReading
    var handler: ScriptedServer.Handler
}

/// The server's shared state; connection threads hold it, not the ``ScriptedServer``, so the
/// server's `deinit` can shut everything down.
final class ServerCore: Sendable {
    struct Stats {
        var accepted = 0
        var open = 0
        var maxOpen = 0
        var handshakes = 0
        var handshakeFailures = 0
    }

    struct AcceptState {
        var paused = false
        var delay: Duration?
    }

    enum Counter { case requests, accepted, openAtMost, handshakeFailures }

    let address: ServerAddress
    let listener: Listener
    let tlsContext: TLSServerContext?
    let routes = Mutex<[String: Route]>([:])
    let defaultRoute = Mutex(Route(bodyReading: .automatic) { request, connection in
        try connection.respond(status: 404, body: "no route for \(request.path)\n")
    })
    let acceptHookStorage = Mutex<(@Sendable (ServerConnection) throws -> Void)?>(nil)
    let acceptState = Mutex(AcceptState())
    let stats = Mutex(Stats())
    let log = RequestLog()
    private let waiters = Mutex<[(Counter, Int, TestEvent)]>([])

    init(tls: ServerTLS?, address: ServerAddress, backlog: Int32) throws {
        self.tlsContext = try tls.map { settings throws(TestTLSError) in try TLSServerContext(settings) }
        self.address = address
        self.listener = try Listener(address: address, backlog: backlog)
    }

    func start() throws {
        try listener.start({ [self] in acceptLoop() }, orElse: shutdown)
    }

    var port: Int { listener.port }
    var registry: ConnectionRegistry { listener.registry }
    /// Set once shutdown began: every wait of a connection thread also ends on it.
    var stopped: TestEvent { listener.stopped }

    var acceptHook: (@Sendable (ServerConnection) throws -> Void)? { acceptHookStorage.withLock { $0 } }

    func route(for path: String) -> Route {
        routes.withLock { $0[path] } ?? defaultRoute.withLock { $0 }
    }

    func record(_ request: RecordedRequest) -> Int {
        let index = log.append(request)
        notifyWaiters()
        return index
    }

    func handshakeFinished(ok: Bool) {
        stats.withLock { if ok { $0.handshakes += 1 } else { $0.handshakeFailures += 1 } }
        notifyWaiters()
    }

    func connectionClosed() {
        stats.withLock { $0.open -= 1 }
        notifyWaiters()
    }

    private func value(of counter: Counter) -> Int {
        switch counter {
        case .requests: log.totalCount
        case .accepted: stats.withLock { $0.accepted }
        case .openAtMost: stats.withLock { $0.open }
        case .handshakeFailures: stats.withLock { $0.handshakeFailures }
        }
    }

    private func reached(_ counter: Counter, _ target: Int) -> Bool {
        let current = value(of: counter)
        return counter == .openAtMost ? current <= target : current >= target
    }

    func waitFor(_ counter: Counter, _ target: Int, timeout: Duration) -> Bool {
        let event = TestEvent()
        waiters.withLock { $0.append((counter, target, event)) }
        notifyWaiters()
        let result = event.wait(timeout: timeout)
        waiters.withLock { $0.removeAll { $0.2 === event } }
        return result
    }

    private func notifyWaiters() {
        let pending = waiters.withLock { $0 }
        for (counter, target, event) in pending where reached(counter, target) { event.signal() }
    }

    private func acceptLoop() {
        var nextID = 0
        while !stopped.isSignaled {
            let state = acceptState.withLock { $0 }
            if let delay = state.delay, !state.paused {
                if stopped.wait(timeout: delay) { return }
            }
            switch listener.waitForConnection(listening: !state.paused) {
            case .failed: return
            case .woken: continue
            case .connectionPending: break
            }
            guard !stopped.isSignaled, !acceptState.withLock({ $0.paused }), let fd = listener.accept() else { continue }
            if case .unix = address {} else { Socket.setNoDelay(fd) }
            let id = nextID
            nextID += 1
            stats.withLock {
                $0.accepted += 1
                $0.open += 1
                $0.maxOpen = max($0.maxOpen, $0.open)
            }
            registry.add(id, fds: [fd])
            notifyWaiters()
            let spawned = listener.spawnConnection(fd, id: id) { [self] in
                ServerConnection(id: id, fd: fd, core: self).run()
            }
            if !spawned { connectionClosed() }
        }
    }

    /// Stops accepting, wakes and closes every connection, waits for all threads, frees fds.
    func shutdown() {
        listener.shutdown {
            if case .unix(let path) = address { unlink(path) }
            notifyWaiters()
        }
    }
}
