import CourierCore
import CourierPosix
import CourierTLS
import Dispatch
import Synchronization

/// The I/O driver around one ``ConnectionPoolStateMachine`` per ``PoolKey``.
///
/// Threading: the machines, the connection tables and the waiting executions live in one `Mutex`.
/// Every input takes the lock, asks the machine, and returns its actions; the actions run
/// after the lock is released, and anything that touches a connection hops to that
/// connection's loop. Nothing calls out while holding the lock.
final class ConnectionPool: Sendable {
    /// One key's machine and open connections. A class, so one table lookup per request finds
    /// both and the actions that follow use them directly; each connection holds its own
    /// key's entry, so its inputs need no lookup at all (entries live as long as the pool).
    ///
    /// @unchecked: its vars are read and written only inside `state.withLock`; the reference
    /// itself is passed out of the lock to reach them again under it.
    final class Entry: @unchecked Sendable {
        let key: PoolKey
        // Unchecked: only ever touched under the pool's lock, and no input reaches back into
        // the pool while the machine or the table is being changed.
        @exclusivity(unchecked) var machine: ConnectionPoolStateMachine<Int>
        @exclusivity(unchecked) var connections = ConnectionTable<HTTP1Connection>()
        /// One per loop of the pool's group, in its order: the head memory the key's
        /// connections on that loop share. Per key, because a request head sent again is only
        /// the same bytes over the same route (a proxy's connections send another target form).
        let headMemories: [LoopHeadMemory]

        init(key: PoolKey, machine: ConnectionPoolStateMachine<Int>, loops: Int) {
            self.key = key
            self.machine = machine
            self.headMemories = (0..<loops).map { _ in LoopHeadMemory() }
        }
    }

    private struct State {
        var entries: [PoolKey: Entry] = [:]
        var waiters: [Int: HTTPRequestExecution] = [:]
        var nextConnectionID = 0
        var isShutDown = false
        var shutdownPending: Set<PoolKey> = []

        /// The entry found last: a client that sends to one origin again and again (a load
        /// generator, a service calling its backend) finds it with one key comparison instead
        /// of hashing the key into the table.
        var lastEntry: Entry?

        /// `key`'s entry, made on first use (entries stay for the pool's life).
        mutating func entry(
            for key: PoolKey, loops: Int, configuration: @autoclosure () -> ConnectionPoolStateMachine<Int>.Configuration
        ) -> Entry {
            if let lastEntry, lastEntry.key == key { return lastEntry }
            let entry = entries[key] ?? {
                let made = Entry(key: key, machine: ConnectionPoolStateMachine(configuration: configuration()), loops: loops)
                entries[key] = made
                return made
            }()
            lastEntry = entry
            return entry
        }
    }

    let group: EventLoopGroup
    /// More than one loop: requests then prefer connections of their own loop.
    private let hasSeveralLoops: Bool
    let resolver: Resolver
    /// The client's resumable TLS sessions; nil when resumption is off.
    let tlsSessions: TLSSessionCache?
    private let configuration: HTTPClientConfiguration
    private let state = Mutex(State())
    /// `State.isShutDown`, readable without the lock (every request asks, twice): set inside
    /// the lock, so whatever then takes the lock sees the shutdown as well.
    private let shutDownFlag = Atomic<Bool>(false)
    private let contexts = Mutex<[TLSConfiguration: TLSContext]>([:])
    /// Where TLS contexts are built: never on a loop (see ``buildTLSContext(for:on:_:)``).
    private let contextQueue = DispatchQueue(label: "courier.tls-context")
    /// Everyone waiting for shutdown to finish (`shutdown()` may be called more than once).
    private let shutdownDone = Mutex<[@Sendable () -> Void]>([])

    init(group: EventLoopGroup, resolver: Resolver, configuration: HTTPClientConfiguration) {
        self.group = group
        self.hasSeveralLoops = group.loops.count > 1
        self.resolver = resolver
        self.configuration = configuration
        // Up to one session per connection the pool may open to an origin at once: TLS 1.3
        // tickets arrive right after each handshake and are used once, so a burst of new
        // connections needs that many (8 at least).
        let limits = TLSSessionCache.Limits(sessionsPerOrigin: max(8, configuration.maximumConnectionsPerHost))
        self.tlsSessions = configuration.tlsSessionResumption ? TLSSessionCache(limits: limits) : nil
    }

    /// The head memory `entry`'s connections on `loop` share (nil for a loop not in `group`).
    func headMemory(of entry: Entry, on loop: EventLoop) -> LoopHeadMemory? {
        group.loops.firstIndex { $0 === loop }.map { entry.headMemories[$0] }
    }

    /// The OpenSSL context already built for `configuration`, if any (one per configuration,
    /// shared by its connections).
    func cachedTLSContext(for configuration: TLSConfiguration) -> TLSContext? {
        contexts.withLock { $0[configuration] }
    }

    /// Builds the context for `configuration` off the loops, on `contextQueue`, and delivers it
    /// on `loop`. Building reads CA files and, the first time in the process, parses the system
    /// trust store (``SystemTrustStore`` in CourierTLS): milliseconds that would stall every
    /// connection on the loop. The queue is serial, so a configuration is built once; a
    /// connection that asks meanwhile finds it cached when its turn comes.
    func buildTLSContext(
        for configuration: TLSConfiguration, on loop: EventLoop,
        _ completion: @escaping @Sendable (Result<TLSContext, TLSError>) -> Void
    ) {
        contextQueue.async { [self] in
            let result: Result<TLSContext, TLSError>
            if let cached = contexts.withLock({ $0[configuration] }) {
                result = .success(cached)
            } else {
                result = Result { () throws(TLSError) in try TLSContext(configuration: configuration) }
                if case .success(let context) = result { contexts.withLock { $0[configuration] = context } }
            }
            loop.execute { completion(result) }
        }
    }

    private func machineConfiguration() -> ConnectionPoolStateMachine<Int>.Configuration {
        ConnectionPoolStateMachine<Int>.Configuration(
            maximumConnections: configuration.maximumConnectionsPerHost,
            maximumUses: configuration.maximumUsesPerConnection,
            idleTimeout: configuration.idleConnectionTimeout)
    }

    // MARK: Inputs from executions

    /// Queues `execution` for a connection of `entry`, as ``entry(for:)`` returned it (entries
    /// stay for the pool's life, so a caller that sends to one key again may keep it and skip
    /// finding it).
    /// Only a queued execution enters the waiter table: one leased at once is handed its
    /// connection here, one refused at once is handed to `run` directly (`acquiring`).
    func acquire(_ execution: HTTPRequestExecution, entry: Entry, timeouts: HTTPClientTimeouts) {
        /// What the lock decided: an idle connection leased at once (looked up under the same
        /// lock; nil if it closed meanwhile), or the machine's actions for everything else.
        enum Outcome {
            case idle(HTTP1Connection?)
            case actions(ConnectionPoolStateMachine<Int>.Actions, creates: Bool)
        }
        let outcome = state.withLock { state -> Outcome in
            if state.isShutDown { return .actions([.failWaiter(execution.id, ClientError(.poolShutdown))], creates: false) }
            // A cancel that came between the execution marking itself waiting and this lock found
            // nothing queued to remove: honour it here.
            if execution.isCancelled { return .actions([.failWaiter(execution.id, ClientError(.cancelled))], creates: false) }
            // With several loops, a connection on the execution's own loop runs it without a
            // thread hop (`run(leased:)`), and its responses arrive where the next request starts.
            if hasSeveralLoops {
                let home = execution.homeLoop
                entry.machine.preferIdleConnection(where: { entry.connections[$0]?.loop === home })
            }
            // Almost every request on a warm pool: no action list to build and run.
            if let id = entry.machine.leaseIdleConnection(to: execution.id) { return .idle(entry.connections[id]) }
            // Nothing idle (so no lease among these actions): queued, with a connection started
            // if one may be, or refused.
            let actions = entry.machine.requestConnection(waiter: execution.id)
            var creates = false
            actions.forEach { action in
                switch action {
                case .enqueue: state.waiters[execution.id] = execution
                case .createConnection: creates = true
                default: break
                }
            }
            return .actions(actions, creates: creates)
        }
        switch outcome {
        case .idle(let connection):
            hand(connection, to: execution)
        case .actions(let actions, let creates):
            // A connection made for this request is made on its loop: there it serves it (and
            // its next requests from that loop) without a thread hop.
            run(actions, entry: entry, timeouts: timeouts, acquiring: execution, createOn: creates ? execution.homeLoop : nil)
        }
    }

    /// Runs `execution` on the connection leased to it (nil: the connection closed on its loop,
    /// EOF or stray bytes while idle, between the machine's lease and now, and the machine
    /// already forgot it; the execution must not be dropped, it asks for another connection).
    private func hand(_ connection: HTTP1Connection?, to execution: HTTPRequestExecution) {
        guard let connection else {
            execution.connectionUnusable()
            return
        }
        execution.leased(connection)
        connection.run(leased: execution)
    }

    /// `key`'s entry (made on first use): what ``acquire(_:entry:timeouts:)`` takes.
    func entry(for key: PoolKey) -> Entry {
        state.withLock { $0.entry(for: key, loops: group.loops.count, configuration: machineConfiguration()) }
    }

    /// The execution gave up waiting (cancelled or timed out).
    func removeWaiter(_ execution: HTTPRequestExecution, entry: Entry, timedOut: Bool) {
        let actions = state.withLock { _ in
            timedOut ? entry.machine.waiterTimedOut(execution.id) : entry.machine.waiterCancelled(execution.id)
        }
        run(actions, entry: entry, timeouts: configuration.timeouts)
    }

    // MARK: Inputs from connections (on their loops)

    func connectionEstablished(_ connection: HTTP1Connection) {
        input(connection) { $0.connectionEstablished(connection.id) }
    }

    func connectionFailed(_ connection: HTTP1Connection, error: ClientError) {
        input(connection, forget: true) { $0.connectionFailedToConnect(connection.id, error: error) }
    }

    /// `time`: when the connection became free (the read that ended its response), the start of
    /// its idle time; nil for now.
    func connectionReleased(_ connection: HTTP1Connection, reusable: Bool, at time: Deadline? = nil) {
        // Almost every release: parked idle, with no action list to build and run.
        if reusable {
            let entry = connection.poolEntry
            let parked = state.withLock { _ in
                entry.connections.index(of: connection.id) != nil && entry.machine.parkReleasedConnection(connection.id)
            }
            if parked {
                armIdleTimer(of: connection, parkedAt: time ?? .now())
                return
            }
        }
        input(connection, releasing: true) { machine in
            // A connection the pool already forgot (closed at shutdown) is simply dropped.
            guard machine.leasedConnectionCount > 0 else { return [] }
            return machine.connectionReleased(connection.id, reusable: reusable)
        }
    }

    func connectionClosed(_ connection: HTTP1Connection) {
        input(connection, forget: true) { $0.connectionClosed(connection.id) }
    }

    func idleTimerFired(_ connection: HTTP1Connection) {
        input(connection) { $0.idleTimerFired(connection.id) }
    }

    /// Feeds one connection event to its key's machine. `forget`: the connection is gone for
    /// good (failed or closed), so the table drops it too.
    /// `releasing`: the connection is back from a request, so an idle timer the machine asks
    /// for is this connection's.
    private func input(
        _ connection: HTTP1Connection, forget: Bool = false, releasing: Bool = false,
        _ body: (inout ConnectionPoolStateMachine<Int>) -> ConnectionPoolStateMachine<Int>.Actions
    ) {
        let entry = connection.poolEntry
        let actions = state.withLock { _ -> ConnectionPoolStateMachine<Int>.Actions? in
            guard let slot = entry.connections.index(of: connection.id) else { return nil }
            if forget { entry.connections.remove(at: slot) }
            return body(&entry.machine)
        }
        if let actions { run(actions, entry: entry, timeouts: configuration.timeouts, releasing: releasing ? connection : nil) }
    }

    // MARK: Shutdown

    /// Closes idle connections, fails waiting executions, refuses new ones; `done` runs once every
    /// leased connection has been released.
    func shutdown(_ done: @escaping @Sendable () -> Void) {
        shutdownDone.withLock { $0.append(done) }
        let batches = state.withLock { state -> [(Entry, ConnectionPoolStateMachine<Int>.Actions)] in
            // A second call only waits for the first one's pending keys.
            guard !state.isShutDown else { return [] }
            state.isShutDown = true
            shutDownFlag.store(true, ordering: .releasing)
            state.shutdownPending = Set(state.entries.keys)
            return state.entries.values.map { entry in (entry, entry.machine.shutdown()) }
        }
        for (entry, actions) in batches { run(actions, entry: entry, timeouts: configuration.timeouts) }
        checkShutdownComplete()
    }

    private func checkShutdownComplete() {
        guard state.withLock({ $0.isShutDown && $0.shutdownPending.isEmpty }) else { return }
        // Every connection is gone: release the sessions (their SSL_SESSION references).
        tlsSessions?.removeAll()
        let waiting = shutdownDone.withLock { waiting -> [@Sendable () -> Void] in
            defer { waiting.removeAll() }
            return waiting
        }
        for done in waiting { done() }
    }

    // MARK: Actions

    /// Performs `actions` for `entry`'s key. The entry's fields are read and written under the
    /// lock only.
    /// `acquiring`: the execution whose `acquire` produced the actions (not in the waiter table
    /// unless queued); `releasing`: the connection whose release produced them (it saves a
    /// table lookup and a lock). `createOn`: the loop for connections the actions make (the
    /// acquiring request's own), else the group's next.
    private func run(
        _ actions: ConnectionPoolStateMachine<Int>.Actions, entry: Entry, timeouts: HTTPClientTimeouts,
        acquiring: HTTPRequestExecution? = nil, releasing: HTTP1Connection? = nil,
        createOn: EventLoop? = nil
    ) {
        /// The waiter's execution, out of the table (or the acquiring one, never put in it).
        func take(_ waiter: Int, _ state: inout State) -> HTTPRequestExecution? {
            if let acquiring, acquiring.id == waiter { return acquiring }
            return state.waiters.removeValue(forKey: waiter)
        }
        let key = entry.key
        // `forEach`, not `for in`: an iterator holds a copy of the whole list and hands out a
        // copy of each action.
        actions.forEach { action in
            switch action {
            case .createConnection(let id):
                // For a request that asked, on its own loop (where it would rather be served).
                let loop = createOn ?? group.next()
                let connection = HTTP1Connection(
                    id: id, entry: entry, loop: loop, pool: self, configuration: configuration, timeouts: timeouts)
                state.withLock { _ in entry.connections[id] = connection }
                loop.execute { connection.start() }
            case .enqueue:
                break
            case .lease(let id, let waiter):
                // A waiter's lease (a release or a new connection served it): `acquire` leases
                // an idle connection itself, under its own lock.
                let (connection, execution) = state.withLock { (entry.connections[id], take(waiter, &$0)) }
                guard let execution else { return }
                hand(connection, to: execution)
            case .scheduleIdleTimer(let id):
                let parked = releasing.flatMap { $0.id == id ? $0 : nil }
                guard let connection = parked ?? state.withLock({ _ in entry.connections[id] }) else { return }
                armIdleTimer(of: connection, parkedAt: .now())
            case .cancelIdleTimer:
                // Nothing to do here: what follows it on the connection's loop cancels the
                // timer anyway (`execute` for a lease, `closeFromPool` or the close itself),
                // and a timer that fires first finds the connection leased and is ignored.
                // Skipping it saves a loop hop per reused request.
                break
            case .closeConnection(let id):
                guard let connection = state.withLock({ _ in entry.connections.removeValue(forID: id) }) else { return }
                connection.loop.execute { connection.closeFromPool() }
            case .failWaiter(let waiter, let error):
                guard let execution = state.withLock({ take(waiter, &$0) }) else { return }
                execution.poolFailed(error)
            case .shutdownComplete:
                state.withLock { _ = $0.shutdownPending.remove(key) }
                checkShutdownComplete()
            }
        }
    }

    /// Arms the idle timer of a connection the machine just parked.
    private func armIdleTimer(of connection: HTTP1Connection, parkedAt time: Deadline) {
        let timeout = configuration.idleConnectionTimeout
        // A release comes from the connection's own loop: arming a timer there re-enters
        // nothing, so it needs no loop hop per request.
        if connection.loop.inEventLoop {
            connection.scheduleIdleTimer(timeout, parkedAt: time)
        } else {
            connection.loop.execute { connection.scheduleIdleTimer(timeout, parkedAt: time) }
        }
    }

    /// Whether `shutdown` has begun.
    var isShutDown: Bool { shutDownFlag.load(ordering: .acquiring) }

    /// For tests: open connections per key.
    func openConnectionCount() -> Int {
        state.withLock { $0.entries.values.reduce(0) { $0 + $1.machine.connectionCount } }
    }
}
