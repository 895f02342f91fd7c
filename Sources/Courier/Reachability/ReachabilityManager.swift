import CourierClient
import CourierCore
import Dispatch
import Synchronization

/// Monitors whether the internet, a host or an address is reachable: AFNetworking's
/// `AFNetworkReachabilityManager`, on Linux's routing table instead of SystemConfiguration.
///
/// "Reachable" means what it means in AFN: the system has a route that would carry a packet
/// there, not that a server answers. The kernel is asked (`RTM_GETROUTE` lookups over netlink,
/// nothing is sent to the target) at start and again after every burst of link, address or
/// route changes; see `CourierClient.PathObserver`.
///
/// | AFNetworking | Courier |
/// | --- | --- |
/// | `sharedManager` | ``shared`` (the internet in general) |
/// | `managerForDomain:` | ``init(domain:)`` |
/// | `managerForAddress:` | ``init(address:)`` |
/// | `startMonitoring` / `stopMonitoring` | ``startMonitoring()`` / ``stopMonitoring()`` |
/// | `networkReachabilityStatus`, `isReachable` | ``status``, ``isReachable`` |
/// | `setReachabilityStatusChangeBlock:` | ``setStatusChangeHandler(queue:_:)``, ``statusUpdates()`` |
/// | `localizedNetworkReachabilityStatusString` | ``localizedStatusString`` |
/// | `isReachableViaWWAN` / `isReachableViaWiFi` | none: ``ReachabilityStatus/reachable(via:)`` names the interface |
///
/// Each started manager owns a one-thread event loop for its netlink sockets, shut down by
/// ``stopMonitoring()`` or when the manager goes away. The sockets are opened on the thread
/// that calls ``startMonitoring()`` and so watch that thread's network namespace.
public final class ReachabilityManager: Sendable {
    /// What is monitored.
    typealias Target = PathObserver.Target

    /// The internet in general (AFN's `sharedManager`): reachable when the kernel has a route
    /// for a global IPv4 or IPv6 address out of a non-loopback interface.
    public static let shared = ReachabilityManager(target: .internet)

    let target: Target
    private let state: Mutex<State>

    private struct State {
        var status: ReachabilityStatus = .unknown
        var handler: (@Sendable (ReachabilityStatus) -> Void)?
        var handlerQueue: DispatchQueue
        var continuations: [Int: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        var nextContinuation = 0
        /// The started monitoring (CourierClient's façade over the routing table).
        var observer: PathObserver?
        /// Bumped by every start and stop, so a late report from a stopped observer is dropped.
        var generation: UInt64 = 0
    }

    init(target: Target) {
        self.target = target
        let label = "courier.reachability"
        self.state = Mutex(State(handlerQueue: DispatchQueue(label: label)))
    }

    /// Monitors a host name (AFN's `managerForDomain:`): its addresses are resolved with
    /// `getaddrinfo` off the loop when monitoring starts and again after each network change;
    /// reachable when any of them has a route. A name that does not resolve is not reachable.
    public convenience init(domain: String) {
        self.init(target: .host(domain))
    }

    /// Monitors one address (AFN's `managerForAddress:`), an IPv4 or IPv6 literal without
    /// brackets or port, e.g. `"192.0.2.1"` or `"::1"`. Routes out of `lo` count here
    /// (127.0.0.1 is reachable via `lo`).
    public convenience init(address: String) throws(ReachabilityError) {
        guard let destination = RouteDestination(address) else { throw .notAnIPAddress(address) }
        self.init(target: .address(destination))
    }

    deinit {
        let (observer, continuations) = state.withLock { state in
            (state.observer, state.continuations.values)
        }
        observer?.cancel()
        for continuation in continuations { continuation.finish() }
    }

    // MARK: Status

    /// The last status (``ReachabilityStatus/unknown`` until the first evaluation).
    public var status: ReachabilityStatus { state.withLock { $0.status } }

    /// Whether ``status`` is reachable.
    public var isReachable: Bool { status.isReachable }

    /// AFN's `localizedNetworkReachabilityStatusString`: `"Unknown"`, `"Not Reachable"`,
    /// `"Reachable via eth0"` (English only).
    public var localizedStatusString: String { status.description }

    /// Sets the block called with each new status (AFN's `setReachabilityStatusChangeBlock:`),
    /// on `queue` (nil: the manager's own serial queue), in order. After ``startMonitoring()``
    /// it is first called with the first evaluation, then on every change. nil removes it.
    public func setStatusChangeHandler(queue: DispatchQueue? = nil, _ handler: (@Sendable (ReachabilityStatus) -> Void)?) {
        state.withLock { state in
            state.handler = handler
            if let queue { state.handlerQueue = queue }
        }
    }

    /// Each new status as an async sequence: the current one first (unless unknown), then every
    /// change. The stream ends when the manager is released or the consumer stops iterating.
    public func statusUpdates() -> AsyncStream<ReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ReachabilityStatus.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state -> Int in
            defer { state.nextContinuation += 1 }
            state.continuations[state.nextContinuation] = continuation
            if state.status != .unknown { continuation.yield(state.status) }
            return state.nextContinuation
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Monitoring

    /// Starts monitoring (a running one is stopped and started afresh, as in AFN). If the
    /// netlink sockets or the loop cannot be opened, the status becomes not reachable.
    public func startMonitoring() {
        stopMonitoring()
        let generation = state.withLock { state -> UInt64 in
            state.generation += 1
            return state.generation
        }
        let observer: PathObserver
        do {
            observer = try PathObserver(target: target)
        } catch {
            deliver(.notReachable, generation: generation)
            return
        }
        let stale = state.withLock { state -> Bool in
            guard state.generation == generation else { return true }
            state.observer = observer
            return false
        }
        if stale { return observer.cancel() }
        observer.start { [weak self] path in
            self?.deliver(ReachabilityStatus(path), generation: generation)
        }
    }

    /// Stops monitoring: closes the netlink sockets and ends the loop's thread. The status
    /// keeps its last value; no handler call follows for this observer.
    public func stopMonitoring() {
        let observer = state.withLock { state -> PathObserver? in
            state.generation += 1
            defer { state.observer = nil }
            return state.observer
        }
        observer?.cancel()
    }

    private func deliver(_ status: ReachabilityStatus, generation: UInt64) {
        let delivery = state.withLock { state -> ((@Sendable (ReachabilityStatus) -> Void)?, DispatchQueue, [AsyncStream<ReachabilityStatus>.Continuation])? in
            guard state.generation == generation else { return nil }
            state.status = status
            return (state.handler, state.handlerQueue, Array(state.continuations.values))
        }
        guard let (handler, queue, continuations) = delivery else { return }
        if let handler { queue.async { handler(status) } }
        for continuation in continuations { continuation.yield(status) }
    }
}

extension ReachabilityStatus {
    init(_ path: PathStatus) {
        switch path {
        case .unknown: self = .unknown
        case .unsatisfied: self = .notReachable
        case .satisfied(let interface): self = .reachable(via: interface)
        }
    }
}
