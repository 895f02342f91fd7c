/// One round of route lookups for a target: which requests are outstanding, what came back,
/// and the resulting status. Pure state; ``PathMonitor`` sends the requests it asks for.
///
/// Phase 1 sends one RTM_GETROUTE per destination; phase 2 one RTM_GETLINK per distinct output
/// interface (name and IFF_LOOPBACK are read in the monitor's own namespace, which
/// `if_indextoname` on another thread could not promise).
struct PathEvaluation {
    enum RouteOutcome: Hashable {
        case via(Int32)
        case unreachable
    }

    let destinations: [RouteDestination]
    let loopbackSatisfies: Bool
    private(set) var pendingRoutes: [UInt32: Int] = [:]
    private(set) var pendingLinks: [UInt32: Int32] = [:]
    private(set) var routes: [Int: RouteOutcome] = [:]
    private(set) var links: [Int32: RouteNetlink.LinkReply] = [:]

    init(destinations: [RouteDestination], loopbackSatisfies: Bool) {
        self.destinations = destinations
        self.loopbackSatisfies = loopbackSatisfies
    }

    /// The route requests to send, numbered from `firstSequence` on.
    mutating func routeRequests(firstSequence: UInt32) -> [[UInt8]] {
        var requests: [[UInt8]] = []
        for (index, destination) in destinations.enumerated() {
            let sequence = firstSequence &+ UInt32(truncatingIfNeeded: index)
            pendingRoutes[sequence] = index
            requests.append(RouteNetlink.routeRequest(to: destination, sequence: sequence))
        }
        // Nothing to look up: complete at once (unsatisfied).
        if destinations.isEmpty { linksRequested = true }
        return requests
    }

    /// Whether `sequence` belongs to this round.
    func expects(_ sequence: UInt32) -> Bool {
        pendingRoutes[sequence] != nil || pendingLinks[sequence] != nil
    }

    /// Takes one reply. Returns link requests to send once every route has answered (numbered
    /// from `nextSequence`), else an empty list.
    mutating func receive(_ message: RouteNetlink.Message, nextSequence: UInt32) -> [[UInt8]] {
        switch message {
        case .route(let sequence, let reply):
            guard let index = pendingRoutes.removeValue(forKey: sequence) else { return [] }
            if reply.deliversPackets, let interface = reply.outputInterface {
                routes[index] = .via(interface)
            } else {
                routes[index] = .unreachable
            }
        case .error(let sequence, let code):
            if let index = pendingRoutes.removeValue(forKey: sequence) {
                // ENETUNREACH, EHOSTUNREACH, any other failure, or a bare acknowledgement
                // (code 0, not asked for): no route came back.
                _ = code
                routes[index] = .unreachable
            } else {
                // ENODEV: the interface vanished between the two lookups; its route does not
                // count, and the change notification that follows re-evaluates.
                pendingLinks[sequence] = nil
            }
            return linkRequestsIfRoutesDone(nextSequence: nextSequence)
        case .link(let sequence, let reply):
            guard let interface = pendingLinks.removeValue(forKey: sequence) else { return [] }
            if reply.index == interface { links[interface] = reply }
            return []
        case .other:
            return []
        }
        return linkRequestsIfRoutesDone(nextSequence: nextSequence)
    }

    private var linksRequested = false

    private mutating func linkRequestsIfRoutesDone(nextSequence: UInt32) -> [[UInt8]] {
        guard pendingRoutes.isEmpty, !linksRequested else { return [] }
        linksRequested = true
        var seen = Set<Int32>()
        var requests: [[UInt8]] = []
        for index in destinations.indices {
            guard case .via(let interface)? = routes[index], seen.insert(interface).inserted else { continue }
            let sequence = nextSequence &+ UInt32(truncatingIfNeeded: requests.count)
            pendingLinks[sequence] = interface
            requests.append(RouteNetlink.linkRequest(index: interface, sequence: sequence))
        }
        return requests
    }

    /// Whether every request has been answered.
    var isComplete: Bool { linksRequested && pendingRoutes.isEmpty && pendingLinks.isEmpty }

    /// The status the answers add up to (meaningful once ``isComplete``).
    var status: PathStatus {
        for index in destinations.indices {
            guard case .via(let interface)? = routes[index], let link = links[interface] else { continue }
            if link.isLoopback && !loopbackSatisfies { continue }
            return .satisfied(interface: link.name ?? "if\(interface)")
        }
        return .unsatisfied
    }
}
