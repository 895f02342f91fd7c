import Testing
@testable import CourierClient

typealias Pool = ConnectionPoolStateMachine<Int>

/// A model of the I/O driver for ``ConnectionPoolStateMachine``: runs the actions against its own
/// bookkeeping and records every violation of the pool's promises as a test issue.
struct PoolDriver {
    var pool: Pool
    var connecting: Set<Int> = []
    var idle: [Int] = []
    var leased: [Int: Int] = [:]
    var timers: Set<Int> = []
    var waiting: [Int] = []
    /// Waiters in the order they got a connection.
    var served: [Int] = []
    var failed: [Int: ClientError] = [:]
    var closed: [Int] = []
    var created: [Int] = []
    var shutdownCompleted = false
    var maxOpen = 0
    var nextWaiter = 0

    /// Drive as `ConnectionPool` does: try the one-step inputs first (``Pool/leaseIdleConnection(to:)``,
    /// ``Pool/parkReleasedConnection(_:)``) and ask the full inputs only when they decline.
    var fast = false

    init(_ configuration: Pool.Configuration, fast: Bool = false) {
        pool = Pool(configuration: configuration)
        self.fast = fast
    }

    var open: Int { connecting.count + idle.count + leased.count }

    @discardableResult
    mutating func request(preferring isPreferred: ((Int) -> Bool)? = nil) -> (waiter: Int, actions: Pool.Actions) {
        let w = nextWaiter
        nextWaiter += 1
        if fast {
            if let isPreferred { pool.preferIdleConnection(where: isPreferred) }
            if let c = pool.leaseIdleConnection(to: w) {
                // The driver leaves the idle timer armed: it finds the connection leased.
                #expect(idle.contains(c), "fast lease of \(c), which is not idle")
                idle.removeAll { $0 == c }
                return (w, apply(Pool.Actions(.lease(c, to: w))))
            }
            return (w, apply(pool.requestConnection(waiter: w)))
        }
        guard let isPreferred else { return (w, apply(pool.requestConnection(waiter: w))) }
        return (w, apply(pool.requestConnection(waiter: w, preferring: isPreferred)))
    }

    @discardableResult mutating func establish(_ c: Int) -> Pool.Actions { apply(pool.connectionEstablished(c)) }
    @discardableResult mutating func failConnect(_ c: Int) -> Pool.Actions {
        connecting.remove(c)
        return apply(pool.connectionFailedToConnect(c, error: ClientError(.connectionFailed, detail: "refused")))
    }
    @discardableResult mutating func release(_ c: Int, reusable: Bool = true) -> Pool.Actions {
        leased[c] = nil
        if fast, reusable, pool.parkReleasedConnection(c) { return apply(Pool.Actions(.scheduleIdleTimer(c))) }
        return apply(pool.connectionReleased(c, reusable: reusable))
    }

    /// The driver saw the connection close on its own.
    @discardableResult mutating func closedByPeer(_ c: Int) -> Pool.Actions {
        connecting.remove(c)
        leased[c] = nil
        idle.removeAll { $0 == c }
        return apply(pool.connectionClosed(c))
    }

    @discardableResult
    mutating func apply(_ actions: Pool.Actions, sourceLocation: SourceLocation = #_sourceLocation) -> Pool.Actions {
        for action in actions {
            switch action {
            case .createConnection(let c):
                #expect(!created.contains(c), "connection id \(c) reused", sourceLocation: sourceLocation)
                created.append(c)
                connecting.insert(c)
            case .enqueue(let w):
                waiting.append(w)
            case .lease(let c, let w):
                #expect(leased[c] == nil, "connection \(c) leased twice", sourceLocation: sourceLocation)
                #expect(!idle.contains(c), "lease of \(c) without cancelling its idle timer", sourceLocation: sourceLocation)
                #expect(!failed.keys.contains(w), "lease to failed waiter \(w)", sourceLocation: sourceLocation)
                connecting.remove(c)
                leased[c] = w
                served.append(w)
                waiting.removeAll { $0 == w }
            case .scheduleIdleTimer(let c):
                #expect(leased[c] == nil, "parking a leased connection", sourceLocation: sourceLocation)
                connecting.remove(c)
                idle.append(c)
                timers.insert(c)
            case .cancelIdleTimer(let c):
                #expect(timers.remove(c) != nil, "cancel of a timer never scheduled for \(c)", sourceLocation: sourceLocation)
                idle.removeAll { $0 == c }
            case .closeConnection(let c):
                connecting.remove(c)
                idle.removeAll { $0 == c }
                timers.remove(c)
                leased[c] = nil
                closed.append(c)
            case .failWaiter(let w, let e):
                failed[w] = e
                waiting.removeAll { $0 == w }
            case .shutdownComplete:
                #expect(!shutdownCompleted, "shutdown completed twice", sourceLocation: sourceLocation)
                shutdownCompleted = true
            }
        }
        maxOpen = max(maxOpen, open)
        check(sourceLocation)
        return actions
    }

    func check(_ sourceLocation: SourceLocation) {
        #expect(open <= pool.configuration.maximumConnections, "over the limit", sourceLocation: sourceLocation)
        #expect(waiting.isEmpty || idle.isEmpty, "waiters wait while a connection is idle", sourceLocation: sourceLocation)
        #expect(pool.invariantViolation() == nil, "\(pool.invariantViolation() ?? "")", sourceLocation: sourceLocation)
        #expect(pool.connectionCount == open, "pool and driver disagree on open connections", sourceLocation: sourceLocation)
        #expect(pool.queuedWaiters == waiting, "pool and driver disagree on the queue", sourceLocation: sourceLocation)
        #expect(Set(pool.idleConnections) == Set(idle), sourceLocation: sourceLocation)
        #expect(zip(served, served.dropFirst()).allSatisfy { $0 < $1 }, "waiters not served in FIFO order", sourceLocation: sourceLocation)
    }
}
