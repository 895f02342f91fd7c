import CourierCore

/// The connections to one pool key — (scheme, host, port, TLS configuration, proxy) — and the
/// requests waiting for one, as a pure value: inputs in, ``Action``s out.
///
/// One machine per key: the driver keeps a dictionary from key to machine, so limits are per
/// key (DESIGN.md: 6 connections per host). Connection IDs are made here and are unique within
/// one machine only; the driver addresses connections by (key, id).
///
/// The driver runs the actions in order: it creates and closes connections, arms and cancels idle
/// timers (``Configuration/idleTimeout`` is only carried for it), and hands leased connections to
/// requests.
///
/// Policies:
/// - Waiters are served strictly first come, first served (a FIFO queue).
/// - An idle connection is leased most-recently-used first (LIFO). Under light load the same few
///   connections stay busy and the rest stay idle long enough for their idle timers to close them,
///   so the pool shrinks back; the most recently used connection is also the least likely to have
///   been closed by the server. A request may say which connections it prefers (the driver: those
///   on its own event loop); the most recent preferred one among the few most recent is leased
///   first.
/// - A new connection is started only when a waiter has no connection coming: fewer connections
///   are connecting than requests wait, and the key is under ``Configuration/maximumConnections``
///   (connecting and open connections both count).
/// - A failed connection attempt does not start another one (no spinning on a dead host). Waiters
///   keep waiting while another connection is connecting or leased (it will serve them); when none
///   is left, every waiter fails with the connect error. New requests start new attempts.
public struct ConnectionPoolStateMachine<WaiterID: Hashable & Sendable>: Sendable {
    public typealias ConnectionID = Int

    public struct Configuration: Hashable, Sendable {
        /// Connecting plus open connections allowed at once (per key).
        public var maximumConnections: Int
        /// Requests one connection may carry before it is closed; nil for no limit.
        public var maximumUses: Int?
        /// How long a connection may stay idle; the driver arms the timer on
        /// ``Action/scheduleIdleTimer(_:)``.
        public var idleTimeout: TimeAmount

        public init(maximumConnections: Int = 6, maximumUses: Int? = nil, idleTimeout: TimeAmount = .seconds(60)) {
            precondition(maximumConnections > 0, "maximumConnections must be positive")
            precondition(maximumUses.map { $0 > 0 } ?? true, "maximumUses must be positive")
            self.maximumConnections = maximumConnections
            self.maximumUses = maximumUses
            self.idleTimeout = idleTimeout
        }
    }

    /// One thing for the driver to do. Inputs return them as ``Actions``, to run in order.
    public enum Action: Equatable, Sendable {
        /// Open a new connection with this id, then report ``connectionEstablished(_:)`` or
        /// ``connectionFailedToConnect(_:error:)``.
        case createConnection(ConnectionID)
        /// The waiter is queued (the driver may arm its wait timeout).
        case enqueue(WaiterID)
        /// Hand this connection to this waiter's request. Report ``connectionReleased(_:reusable:)``
        /// when the request is over.
        case lease(ConnectionID, to: WaiterID)
        /// Arm the idle timer of a connection that was just parked.
        case scheduleIdleTimer(ConnectionID)
        /// Cancel the idle timer of a connection that leaves the idle set.
        case cancelIdleTimer(ConnectionID)
        /// Close this connection (or abort its connection attempt). The pool has forgotten it.
        case closeConnection(ConnectionID)
        /// Fail this waiter's request with this error; it is no longer queued.
        case failWaiter(WaiterID, ClientError)
        /// Shutdown finished: no connection is left.
        case shutdownComplete
    }

    /// What one input asks for, in order: up to two actions inline, so the per-request inputs
    /// (a lease, a release) allocate nothing. Those build their lists with `Actions(…)`: an array
    /// literal makes a variadic array first, and destroying it costs about 300 instructions.
    public typealias Actions = ActionList<Action>

    private enum ConnectionState: Hashable, Sendable {
        case connecting
        case idle
        case leased
    }

    private struct Connection: Hashable, Sendable {
        var state: ConnectionState
        /// Leases so far.
        var uses = 0
    }

    public let configuration: Configuration
    private var connections = ConnectionTable<Connection>()
    /// Idle connections, least recently used first; leases pop from the end (LIFO).
    private var idleStack: [ConnectionID] = []
    /// Waiting requests, oldest first.
    private var waiters = FIFOQueue<WaiterID>()
    private var nextConnectionID: ConnectionID = 0
    private var connectingCount = 0
    private var shuttingDown = false
    private var shutdownReported = false

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: - Observation

    /// Connections connecting, idle or leased.
    public var connectionCount: Int { connections.count }
    public var connectingConnectionCount: Int { connectingCount }
    public var idleConnectionCount: Int { idleStack.count }
    public var leasedConnectionCount: Int { connections.count - connectingCount - idleStack.count }
    public var waiterCount: Int { waiters.count }
    public var isShuttingDown: Bool { shuttingDown }

    /// The idle connections, most recently used first.
    public var idleConnections: [ConnectionID] { idleStack.reversed() }

    /// The waiters, oldest first.
    public var queuedWaiters: [WaiterID] { Array(waiters) }

    // MARK: - Inputs

    /// How many of the most recently used idle connections ``requestConnection(waiter:preferring:)``
    /// looks through for a preferred one.
    public static var preferenceWindow: Int { 8 }

    /// A request wants a connection: the most recently used idle one, else it waits.
    /// (Always inlined: once per request, and the preferring form below falls back to it.)
    @inline(__always)
    public mutating func requestConnection(waiter: WaiterID) -> Actions {
        if shuttingDown { return [.failWaiter(waiter, ClientError(.poolShutdown))] }
        precondition(waiters.isEmpty || !waiters.contains(waiter), "waiter \(waiter) is already queued")
        if let id = leaseIdleConnection(to: waiter) {
            return Actions(.cancelIdleTimer(id), .lease(id, to: waiter))
        }
        waiters.append(waiter)
        var actions: Actions = [.enqueue(waiter)]
        createConnectionsIfNeeded(&actions)
        return actions
    }

    /// A request wants a connection, and would rather have one of those `isPreferred` accepts
    /// (the driver's: those on the request's own event loop, which run it without a thread hop).
    /// Among the ``preferenceWindow`` most recently used idle connections the most recent
    /// preferred one is leased; when none of them is preferred, the most recent of all, as
    /// ``requestConnection(waiter:)`` does.
    public mutating func requestConnection(waiter: WaiterID, preferring isPreferred: (ConnectionID) -> Bool) -> Actions {
        preferIdleConnection(where: isPreferred)
        return requestConnection(waiter: waiter)
    }

    /// The lease that ``requestConnection(waiter:)`` makes when a connection is idle, on its
    /// own: the most recently used idle connection is leased to `waiter` and returned. Returns
    /// nil, changing nothing, when none is idle or the pool is shutting down; the caller then
    /// asks ``requestConnection(waiter:)``. A driver that leases this way has no idle timer to
    /// cancel (the ``Action/cancelIdleTimer(_:)`` that comes with a lease is only a courtesy for
    /// drivers that cancel timers eagerly), and it skips building an action list: this is the
    /// input of almost every request on a warm pool.
    @inline(__always)
    public mutating func leaseIdleConnection(to waiter: WaiterID) -> ConnectionID? {
        guard !shuttingDown, let id = idleStack.popLast() else { return nil }
        // Every idle id is in the table (parking puts it in both; closing takes it from both).
        guard let index = connections.index(of: id) else { preconditionFailure("idle connection \(id) is not in the table") }
        _ = lease(id, at: index, to: waiter)
        return id
    }

    /// Moves the most recently used idle connection that `isPreferred` accepts, among the
    /// ``preferenceWindow`` most recent, to the top of the idle stack, where the next lease
    /// takes it from. (The driver's preference: connections on the request's own event loop.)
    public mutating func preferIdleConnection(where isPreferred: (ConnectionID) -> Bool) {
        let top = idleStack.count - 1
        guard !shuttingDown, top > 0, !isPreferred(idleStack[top]) else { return }
        var index = top - 1
        let lowest = Swift.max(0, idleStack.count - Self.preferenceWindow)
        while index >= lowest, !isPreferred(idleStack[index]) { index -= 1 }
        if index >= lowest { idleStack.append(idleStack.remove(at: index)) }
    }

    /// A connection attempt succeeded: lease it to the oldest waiter, or park it.
    public mutating func connectionEstablished(_ id: ConnectionID) -> Actions {
        guard let index = connections.index(of: id), connections[slot: index].state == .connecting else {
            // Forgotten (shutdown aborted it): it must not stay open.
            return [.closeConnection(id)]
        }
        connectingCount -= 1
        if let waiter = waiters.popFirst() {
            return Actions(lease(id, at: index, to: waiter))
        }
        return Actions(park(id, at: index))
    }

    /// A connection attempt failed. See the type's policy notes: no new attempt is started; the
    /// waiters fail with `error` only when no other connection can serve them.
    public mutating func connectionFailedToConnect(_ id: ConnectionID, error: ClientError) -> Actions {
        guard let connection = connections[id], connection.state == .connecting else { return [] }
        connections[id] = nil
        connectingCount -= 1
        var actions: Actions = []
        if connectingCount + leasedConnectionCount == 0 {
            // Nothing connecting or leased: nobody will ever serve the waiters (no idle connection
            // can exist while waiters wait).
            while let waiter = waiters.popFirst() { actions.append(.failWaiter(waiter, error)) }
        }
        reportShutdownIfDone(&actions)
        return actions
    }

    /// A request is over with this connection. `reusable` is the connection machine's verdict
    /// (``HTTP1ConnectionStateMachine/isReusable``). The connection goes to the oldest waiter, is
    /// parked idle, or is closed when not reusable or out of uses (then a replacement is started
    /// if waiters need one).
    public mutating func connectionReleased(_ id: ConnectionID, reusable: Bool) -> Actions {
        if reusable, parkReleasedConnection(id) { return Actions(.scheduleIdleTimer(id)) }
        guard let index = connections.index(of: id), connections[slot: index].state == .leased else {
            preconditionFailure("release of connection \(id), which is not leased")
        }
        let outOfUses = configuration.maximumUses.map { connections[slot: index].uses >= $0 } ?? false
        if shuttingDown || !reusable || outOfUses {
            connections.remove(at: index)
            var actions: Actions = [.closeConnection(id)]
            createConnectionsIfNeeded(&actions)
            reportShutdownIfDone(&actions)
            return actions
        }
        if let waiter = waiters.popFirst() {
            return Actions(lease(id, at: index, to: waiter))
        }
        return Actions(park(id, at: index))
    }

    /// The release that ``connectionReleased(_:reusable:)`` makes most often, on its own: a
    /// reusable leased connection with uses left, no waiter queued and no shutdown under way is
    /// parked idle, and true is returned (the driver arms its idle timer, as
    /// ``Action/scheduleIdleTimer(_:)`` asks). Otherwise nothing changes and false is returned;
    /// the caller then asks ``connectionReleased(_:reusable:)``, which decides the rest. One
    /// table lookup, and no action list: this runs once per request.
    public mutating func parkReleasedConnection(_ id: ConnectionID) -> Bool {
        guard !shuttingDown, waiters.isEmpty, let index = connections.index(of: id),
            connections[slot: index].state == .leased,
            configuration.maximumUses.map({ connections[slot: index].uses < $0 }) ?? true
        else { return false }
        _ = park(id, at: index)
        return true
    }

    /// The driver saw a connection close on its own: an idle connection closed by the server
    /// (stale), or a leased one that died. No waiter is failed; a replacement is started if
    /// waiters need one. Unknown ids (already closed by the pool) are ignored.
    public mutating func connectionClosed(_ id: ConnectionID) -> Actions {
        guard let connection = connections[id] else { return [] }
        switch connection.state {
        case .connecting:
            return connectionFailedToConnect(id, error: ClientError(.connectionFailed, detail: "closed while connecting"))
        case .idle:
            connections[id] = nil
            idleStack.removeAll { $0 == id }
            var actions: Actions = [.cancelIdleTimer(id)]
            reportShutdownIfDone(&actions)
            return actions
        case .leased:
            connections[id] = nil
            var actions: Actions = []
            createConnectionsIfNeeded(&actions)
            reportShutdownIfDone(&actions)
            return actions
        }
    }

    /// An idle timer fired: close the connection if it is still idle (a lease may have won the race).
    public mutating func idleTimerFired(_ id: ConnectionID) -> Actions {
        guard connections[id]?.state == .idle else { return [] }
        connections[id] = nil
        idleStack.removeAll { $0 == id }
        return [.closeConnection(id)]
    }

    /// A waiter's request was cancelled: it leaves the queue (`.failWaiter(.cancelled)`).
    /// Connections are unaffected. Returns nothing if it was not queued (already leased).
    public mutating func waiterCancelled(_ waiter: WaiterID) -> Actions {
        guard waiters.remove(waiter) else { return [] }
        return [.failWaiter(waiter, ClientError(.cancelled))]
    }

    /// A waiter waited too long for a connection: it leaves the queue (`.failWaiter(.poolTimeout)`).
    public mutating func waiterTimedOut(_ waiter: WaiterID) -> Actions {
        guard waiters.remove(waiter) else { return [] }
        return [.failWaiter(waiter, ClientError(.poolTimeout))]
    }

    /// Closes idle connections, aborts connection attempts, fails every waiter, and reports
    /// ``Action/shutdownComplete`` once the last leased connection is released or closed
    /// (immediately if none is leased). Requests after this fail with `.poolShutdown`.
    public mutating func shutdown() -> Actions {
        guard !shuttingDown else { return [] }
        shuttingDown = true
        var actions: Actions = []
        while let waiter = waiters.popFirst() { actions.append(.failWaiter(waiter, ClientError(.poolShutdown))) }
        for id in idleStack.reversed() {
            actions.append(.cancelIdleTimer(id))
            actions.append(.closeConnection(id))
            connections[id] = nil
        }
        idleStack.removeAll()
        for (id, connection) in connections.sorted(by: { $0.id < $1.id }) where connection.state == .connecting {
            actions.append(.closeConnection(id))
            connections[id] = nil
        }
        connectingCount = 0
        reportShutdownIfDone(&actions)
        return actions
    }

    // MARK: - Helpers

    /// The helpers take the connection's place in the table, which their callers have just
    /// found: one lookup per input.
    private mutating func lease(_ id: ConnectionID, at index: Int, to waiter: WaiterID) -> Action {
        connections[slot: index].state = .leased
        connections[slot: index].uses += 1
        return .lease(id, to: waiter)
    }

    private mutating func park(_ id: ConnectionID, at index: Int) -> Action {
        connections[slot: index].state = .idle
        idleStack.append(id)
        return .scheduleIdleTimer(id)
    }

    /// Starts connections for waiters that have none coming, within the limit.
    private mutating func createConnectionsIfNeeded(_ actions: inout Actions) {
        guard !shuttingDown else { return }
        while connectingCount < waiters.count && connections.count < configuration.maximumConnections {
            let id = nextConnectionID
            nextConnectionID += 1
            connections[id] = Connection(state: .connecting)
            connectingCount += 1
            actions.append(.createConnection(id))
        }
    }

    private mutating func reportShutdownIfDone(_ actions: inout Actions) {
        if shuttingDown && !shutdownReported && connections.isEmpty {
            shutdownReported = true
            actions.append(.shutdownComplete)
        }
    }

    /// Checks the invariants; returns a description of the first violation, or nil. For tests.
    func invariantViolation() -> String? {
        if connections.count > configuration.maximumConnections {
            return "\(connections.count) connections over the limit \(configuration.maximumConnections)"
        }
        if !waiters.isEmpty && !idleStack.isEmpty { return "waiters wait while a connection is idle" }
        if connectingCount != connections.filter({ $0.value.state == .connecting }).count {
            return "connecting count is off"
        }
        if Set(idleStack).count != idleStack.count { return "a connection is idle twice" }
        if Set(idleStack) != Set(connections.filter { $0.value.state == .idle }.map(\.id)) { return "idle set is off" }
        if let max = configuration.maximumUses, connections.contains(where: { $0.value.uses > max }) {
            return "a connection exceeded maximumUses"
        }
        if shuttingDown && (!waiters.isEmpty || !idleStack.isEmpty || connectingCount != 0) {
            return "shutdown left waiters, idle or connecting connections"
        }
        return nil
    }
}

/// A first-in, first-out queue with O(1) amortised append and removal from the front.
struct FIFOQueue<Element: Hashable & Sendable>: Sequence, Sendable {
    private var storage: [Element] = []
    private var head = 0
    private var members: Set<Element> = []

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }

    func contains(_ element: Element) -> Bool { members.contains(element) }

    mutating func append(_ element: Element) {
        storage.append(element)
        members.insert(element)
    }

    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        members.remove(element)
        if head > 32 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes `element` wherever it is; returns whether it was queued. O(n).
    mutating func remove(_ element: Element) -> Bool {
        guard members.remove(element) != nil else { return false }
        let index = storage[head...].firstIndex(of: element)!
        storage.remove(at: index)
        return true
    }

    func makeIterator() -> ArraySlice<Element>.Iterator { storage[head...].makeIterator() }
}
