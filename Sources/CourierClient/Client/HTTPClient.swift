import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

/// An HTTP/1.1 client: a pool of keep-alive connections over its own event loops.
///
/// Create one and share it; every method may be called from any thread. Call ``shutdown()``
/// before releasing it.
public final class HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    public let eventLoopGroup: EventLoopGroup
    let pool: ConnectionPool
    private let ownsGroup: Bool

    /// A client with its own event loop group.
    public convenience init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(PosixError) {
        let group = try EventLoopGroup(numberOfThreads: configuration.eventLoopThreads ?? EventLoopGroup.coreCount)
        self.init(configuration: configuration, eventLoopGroup: group, ownsGroup: true)
    }

    /// A client on a group the caller owns (and shuts down after the client).
    public convenience init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(), eventLoopGroup: EventLoopGroup) {
        self.init(configuration: configuration, eventLoopGroup: eventLoopGroup, ownsGroup: false)
    }

    private init(configuration: HTTPClientConfiguration, eventLoopGroup: EventLoopGroup, ownsGroup: Bool) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.ownsGroup = ownsGroup
        self.pool = ConnectionPool(group: eventLoopGroup, resolver: Resolver(), configuration: configuration)
    }

    /// Starts `request`; `delegate` hears about its progress on an event loop.
    ///
    /// The delegate is handed over: the client calls it from its loops, one call at a time,
    /// and the caller must not use it concurrently.
    @discardableResult
    public func execute(_ request: HTTPClientRequest, delegate: sending any HTTPClientResponseDelegate) -> HTTPClientTask {
        let loop = eventLoopGroup.currentLoop ?? eventLoopGroup.next()
        let task = HTTPClientTask(client: self, request: request, delegate: delegate, homeLoop: loop)
        task.start()
        return task
    }

    /// Number of open or connecting connections, all hosts together (for tests and tools).
    public var openConnectionCount: Int { pool.openConnectionCount() }

    /// Closes every connection and, if the client created its event loops, stops them.
    /// Waiting requests fail with `.poolShutdown`; requests in flight finish first.
    public func shutdown() {
        let done = Mutex(false)
        let semaphore = ConditionFlag()
        pool.shutdown {
            done.withLock { $0 = true }
            semaphore.set()
        }
        semaphore.wait()
        if ownsGroup { eventLoopGroup.shutdown() }
    }
}

/// A one-shot flag a thread can wait for.
final class ConditionFlag: Sendable {
    private let state = Mutex(false)
    private let waiters = Atomic<Int>(0)

    func set() {
        state.withLock { $0 = true }
        futexWake()
    }

    func wait() {
        while !state.withLock({ $0 }) { futexWait() }
    }

    // A short sleep keeps this dependency-free; it only runs at shutdown.
    private func futexWait() {
        var ts = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        nanosleep(&ts, nil)
    }

    private func futexWake() {}
}

#if canImport(Glibc)
import Glibc
#endif
