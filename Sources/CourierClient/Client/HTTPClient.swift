import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS
import Dispatch
import Synchronization

/// An HTTP/1.1 client: a pool of keep-alive connections over its own event loops.
///
/// Create one and share it; every method may be called from any thread. Call ``shutdown()``
/// before releasing it.
public final class HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    public let eventLoopGroup: EventLoopGroup
    let pool: ConnectionPool
    /// Requests that have not made their final delegate call yet (shutdown waits for them).
    let requests = RequestTracker()
    private let ownsGroup: Bool
    /// Whether this is ``shared`` (whose ``shutdown()`` does nothing).
    private let isShared: Bool
    /// One per loop of the group, in its order (``LoopRouteMemory``).
    private let routeMemories: [LoopRouteMemory]

    /// A client with its own event loop group.
    public convenience init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(PosixError) {
        let group = try EventLoopGroup(numberOfThreads: configuration.eventLoopThreads ?? EventLoopGroup.coreCount, busyPoll: configuration.busyPoll, batchWindow: configuration.batchWindow)
        self.init(configuration: configuration, eventLoopGroup: group, ownsGroup: true)
    }

    /// A client on a group the caller owns (and shuts down after the client).
    public convenience init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(), eventLoopGroup: EventLoopGroup) {
        self.init(configuration: configuration, eventLoopGroup: eventLoopGroup, ownsGroup: false)
    }

    private init(configuration: HTTPClientConfiguration, eventLoopGroup: EventLoopGroup, ownsGroup: Bool, isShared: Bool = false) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.ownsGroup = ownsGroup
        self.isShared = isShared
        self.pool = ConnectionPool(group: eventLoopGroup, resolver: Resolver(cache: configuration.dnsCache), configuration: configuration)
        self.routeMemories = eventLoopGroup.loops.map { _ in LoopRouteMemory() }
    }

    /// The route memory of the loop the caller runs on, if it runs on one of the group's.
    func routeMemory() -> LoopRouteMemory? {
        eventLoopGroup.loops.firstIndex { $0.inEventLoop }.map { routeMemories[$0] }
    }

    /// The process-wide client for the common case: default configuration, one event loop per
    /// core, created on first use and never shut down (``shutdown()`` on it does nothing), so
    /// that every session manager and caller that uses it shares its loops and connections.
    /// Managers given it do not own it: invalidating one ends only that manager's tasks.
    ///
    /// - Throws: the `PosixError` of creating its event loops (epoll, eventfd or thread
    ///   creation failed); the next use tries again.
    public static var shared: HTTPClient {
        get throws(PosixError) {
            try sharedClient.withLock { client throws(PosixError) in
                if let client { return client }
                let group = try EventLoopGroup(numberOfThreads: EventLoopGroup.coreCount)
                let created = HTTPClient(configuration: HTTPClientConfiguration(), eventLoopGroup: group, ownsGroup: true, isShared: true)
                client = created
                return created
            }
        }
    }

    private static let sharedClient = Mutex<HTTPClient?>(nil)

    /// Starts `request`; `delegate` hears about its progress on an event loop.
    ///
    /// The delegate is handed over: the client calls it from its loops, one call at a time,
    /// and the caller must not use it concurrently.
    ///
    /// After ``shutdown()`` the request fails at once with `.poolShutdown`, and that one
    /// `didFail` is called on the caller's thread (the loops may be gone).
    @discardableResult
    public func execute(_ request: HTTPClientRequest, delegate: sending any HTTPClientResponseDelegate) -> HTTPRequestExecution {
        let loop = eventLoopGroup.currentLoop ?? eventLoopGroup.next()
        return launch(HTTPRequestExecution(client: self, request: request, delegate: delegate, homeLoop: loop))
    }

    /// ``execute(_:delegate:)``, made in the memory of `spare` when it can be: an execution of
    /// this client that has ended and that nothing but `spare` refers to any more (no
    /// connection, timer or caller holds it). Otherwise a new execution is made, exactly as
    /// `execute` makes it. `spare` is nil on return; a caller that sends request after request
    /// passes the execution of the request before last (the last one is still on the stack
    /// while its `didFinish` runs) and so allocates nothing per request: `courier bench` does.
    ///
    /// A spare keeps its last request and delegate until it is reused or dropped.
    @discardableResult
    public func execute(
        _ request: HTTPClientRequest, delegate: sending any HTTPClientResponseDelegate,
        reusing spare: inout HTTPRequestExecution?
    ) -> HTTPRequestExecution {
        let loop = eventLoopGroup.currentLoop ?? eventLoopGroup.next()
        // Taken, not copied: a copy and then `spare = nil` retained and released it.
        if var candidate = spare.take() {
            // Unique: no other thread can reach it, and its last writes happened before the
            // releases that made it unique.
            if isKnownUniquelyReferenced(&candidate), candidate.isReusable(by: self) {
                candidate.reuse(request: request, delegate: delegate, homeLoop: loop)
                return launch(candidate)
            }
        }
        return launch(HTTPRequestExecution(client: self, request: request, delegate: delegate, homeLoop: loop))
    }

    private func launch(_ execution: HTTPRequestExecution) -> HTTPRequestExecution {
        requests.started()
        if pool.isShutDown {
            execution.failWithoutLoop(ClientError(.poolShutdown))
        } else {
            execution.start()
        }
        return execution
    }

    /// Number of open or connecting connections, all hosts together (for tests and tools).
    public var openConnectionCount: Int { pool.openConnectionCount() }

    /// Shuts the client down and returns once it is done: waiting requests fail with
    /// `.poolShutdown`, requests in flight finish first (their own timeouts bound that), and a
    /// redirect or retry that would start meanwhile fails with `.poolShutdown`. It returns
    /// after every request's final delegate call (`didFinish` or `didFail`) has returned and
    /// every connection is closed; then, if the client created its event loops, it stops them.
    ///
    /// It may be called more than once and from several threads. It blocks: it must not be
    /// called on one of the client's loops (use ``shutdown()-async`` from `async` code). Does
    /// nothing on ``shared``, which lives as long as the process.
    public func shutdown() {
        precondition(eventLoopGroup.currentLoop == nil, "shutdown() waits for the loops: call it from another thread")
        guard !isShared else { return }
        let done = DispatchSemaphore(value: 0)
        drain { done.signal() }
        done.wait()
        if ownsGroup { eventLoopGroup.shutdown() }
    }

    /// ``shutdown()`` for `async` callers: the same guarantees, without blocking a thread of
    /// the cooperative pool while requests end.
    public func shutdown() async {
        guard !isShared else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in drain { done.resume() } }
        guard ownsGroup else { return }
        // Stopping the loops joins their threads: done on a thread of its own.
        let group = eventLoopGroup
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                group.shutdown()
                done.resume()
            }
        }
    }

    /// Shuts the pool down, waits for every request's final call, then for the connection
    /// closes already queued on the loops; `done` runs after all of that.
    private func drain(_ done: @escaping @Sendable () -> Void) {
        let loops = eventLoopGroup.loops
        pool.shutdown { [requests, routeMemories] in
            requests.whenIdle {
                // A job queued on each loop after the closes: it is released once it ran (or
                // once its loop dropped it, stopped), and the last release runs `done`. It also
                // lets go of the loop's last route (only its loop touches it).
                let barrier = LoopBarrier(done)
                for (loop, memory) in zip(loops, routeMemories) {
                    loop.execute {
                        memory.forget()
                        barrier.touch()
                    }
                }
            }
        }
    }
}

/// Runs its closure when the last job holding it is released.
private final class LoopBarrier: Sendable {
    private let done: @Sendable () -> Void
    init(_ done: @escaping @Sendable () -> Void) { self.done = done }
    func touch() {}
    deinit { done() }
}
