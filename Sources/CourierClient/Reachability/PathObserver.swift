import CourierCore
import CourierPosix
import Dispatch
import Synchronization

/// One watch on whether a target is routable: its own one-thread event loop, a
/// `CourierPosix.PathMonitor` on it, and for a host name the lookups of its addresses. The
/// façade through which the session layer's reachability manager reaches the routing table
/// without importing CourierPosix.
///
/// ``init(target:)`` opens the netlink sockets on the calling thread (so they watch that
/// thread's network namespace); ``start(_:)`` begins reporting; ``cancel()`` closes the sockets
/// and ends the loop's thread. Nothing is sent to the target: the kernel is asked which route a
/// packet would take (see `PathMonitor`).
public final class PathObserver: Sendable {
    /// What is watched.
    public enum Target: Hashable, Sendable {
        /// The internet in general: a global IPv4 or IPv6 address, out of a non-loopback
        /// interface.
        case internet
        /// A host name, resolved with `getaddrinfo` at start and after each network change;
        /// routable when any of its addresses is. A name that does not resolve is not routable.
        case host(String)
        /// One address (routes out of `lo` count).
        case address(RouteDestination)
    }

    private let target: Target
    private let loop: EventLoop
    private let monitor: PathMonitor
    private let resolver = Resolver()
    private let lookup = Mutex<ResolveHandle?>(nil)

    /// Starts the loop's thread and opens the netlink sockets; nothing is reported before
    /// ``start(_:)``.
    public init(target: Target) throws(PosixError) {
        let loop = try EventLoop(name: "courier-reach")
        let initial: PathTarget
        switch target {
        case .internet: initial = .internet
        case .host: initial = .addresses([])
        case .address(let destination): initial = .addresses([destination])
        }
        do {
            monitor = try PathMonitor(target: initial, loop: loop)
        } catch {
            loop.shutdown()
            throw error
        }
        self.target = target
        self.loop = loop
    }

    /// Begins watching: `report` runs on the observer's loop with the first evaluation, then
    /// with every change.
    public func start(_ report: @escaping @Sendable (PathStatus) -> Void) {
        guard case .host(let host) = target else {
            monitor.start(report)
            return
        }
        // Resolve first, then start with the addresses; re-resolve after every change.
        // The closures hold the observer until ``cancel()`` (which drops the lookup and the
        // monitor's handlers), as a started watch must.
        let resolve: @Sendable (_ then: @escaping @Sendable () -> Void) -> Void = { [self] then in
            let monitor = self.monitor
            let handle = resolver.resolve(host: host, port: 0, on: loop) { result in
                if case .failure(.cancelled) = result { return }
                let addresses = (try? result.get())?.compactMap(RouteDestination.init) ?? []
                monitor.setTarget(.addresses(addresses))
                then()
            }
            lookup.withLock { $0 = handle }
        }
        resolve { [monitor] in
            monitor.start(onNetworkChange: { resolve {} }, report)
        }
    }

    /// Closes the sockets and ends the loop's thread; from the loop itself, off-thread (a loop
    /// cannot join its own thread). No report follows.
    public func cancel() {
        // Dropping the handle also breaks its cycle back to this observer's loop.
        let pending = lookup.withLock { handle -> ResolveHandle? in
            defer { handle = nil }
            return handle
        }
        pending?.cancel()
        monitor.cancel()
        if loop.inEventLoop {
            let loop = self.loop
            DispatchQueue.global().async { loop.shutdown() }
        } else {
            loop.shutdown()
        }
    }
}
