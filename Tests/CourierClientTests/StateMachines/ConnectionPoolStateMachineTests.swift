import CourierCore
import CourierTestSupport
import Testing
@testable import CourierClient

@Suite("ConnectionPoolStateMachine")
struct ConnectionPoolStateMachineTests {
    @Test func thousandRequestsNeverExceedTheLimit() {
        var d = PoolDriver(Pool.Configuration(maximumConnections: 6))
        for _ in 0..<1000 { d.request() }
        #expect(d.connecting.count == 6)
        #expect(d.waiting.count == 1000)
        for c in d.connecting.sorted() { d.establish(c) }
        var rng = SplitMix64(seed: 7)
        while !d.leased.isEmpty {
            let c = d.leased.keys.sorted().randomElement(using: &rng)!
            d.release(c)
        }
        #expect(d.served == Array(0..<1000))
        #expect(d.created.count == 6)
        #expect(d.maxOpen == 6)
        #expect(d.idle.count == 6)
        #expect(d.failed.isEmpty)
    }

    @Test func idleConnectionsAreReusedMostRecentFirst() {
        var d = PoolDriver(Pool.Configuration())
        for _ in 0..<3 { d.request() }
        for c in [0, 1, 2] { d.establish(c) }
        #expect(d.leased == [0: 0, 1: 1, 2: 2])
        d.release(1)
        d.release(0)
        d.release(2)
        #expect(d.pool.idleConnections == [2, 0, 1])
        #expect(d.request().actions == [.cancelIdleTimer(2), .lease(2, to: 3)])
        #expect(d.request().actions == [.cancelIdleTimer(0), .lease(0, to: 4)])
        #expect(d.created.count == 3, "no connection is created while one is idle")
    }

    /// The driver prefers the connections of the request's own event loop: the most recent
    /// preferred one among the few most recent idle ones, else plain LIFO.
    @Test func aPreferredIdleConnectionIsLeasedBeforeAMoreRecentOne() {
        var d = PoolDriver(Pool.Configuration())
        for _ in 0..<4 { d.request() }
        for c in [0, 1, 2, 3] { d.establish(c) }
        for c in [0, 1, 2, 3] { d.release(c) }
        #expect(d.pool.idleConnections == [3, 2, 1, 0])
        let even: (Int) -> Bool = { $0 % 2 == 0 }
        #expect(d.request(preferring: even).actions == [.cancelIdleTimer(2), .lease(2, to: 4)])
        #expect(d.pool.idleConnections == [3, 1, 0], "the others keep their order")
        #expect(d.request(preferring: even).actions == [.cancelIdleTimer(0), .lease(0, to: 5)])
        // None preferred is left: the most recent of all, as without a preference.
        #expect(d.request(preferring: even).actions == [.cancelIdleTimer(3), .lease(3, to: 6)])
        #expect(d.request(preferring: { _ in true }).actions == [.cancelIdleTimer(1), .lease(1, to: 7)])
        // Nothing idle: the preference changes nothing about queueing.
        #expect(d.request(preferring: even).actions == [.enqueue(8), .createConnection(4)])
        #expect(d.created.count == 5)
    }

    @Test func thePreferenceLooksOnlyAtTheMostRecentIdleConnections() {
        let count = Pool.preferenceWindow + 2
        var d = PoolDriver(Pool.Configuration(maximumConnections: count))
        for _ in 0..<count { d.request() }
        for c in 0..<count { d.establish(c) }
        for c in 0..<count { d.release(c) }
        // The oldest idle connections (0 and 1) are past the window: not looked at.
        let old: (Int) -> Bool = { $0 < 2 }
        let top = count - 1
        #expect(d.request(preferring: old).actions == [.cancelIdleTimer(top), .lease(top, to: count)])
        // Now 1 is within the window.
        #expect(d.request(preferring: old).actions == [.cancelIdleTimer(1), .lease(1, to: count + 1)])
        var looked: [Int] = []
        d.request(preferring: { looked.append($0); return false })
        #expect(looked.count == Pool.preferenceWindow, "at most the window is looked through")
        #expect(looked == looked.sorted(by: >), "most recent first")
    }

    @Test func maximumUsesClosesAndReplaces() {
        var d = PoolDriver(Pool.Configuration(maximumConnections: 1, maximumUses: 2))
        #expect(d.request().actions == [.enqueue(0), .createConnection(0)])
        #expect(d.establish(0) == [.lease(0, to: 0)])
        #expect(d.request().actions == [.enqueue(1)])
        #expect(d.release(0) == [.lease(0, to: 1)])
        #expect(d.request().actions == [.enqueue(2)])
        #expect(d.release(0) == [.closeConnection(0), .createConnection(1)])
        #expect(d.establish(1) == [.lease(1, to: 2)])
        #expect(d.release(1) == [.scheduleIdleTimer(1)])
    }

    @Test func notReusableIsClosed() {
        var d = PoolDriver(Pool.Configuration())
        d.request()
        d.establish(0)
        #expect(d.release(0, reusable: false) == [.closeConnection(0)])
        #expect(d.pool.connectionCount == 0)
    }

    @Test func idleTimeout() {
        var d = PoolDriver(Pool.Configuration(idleTimeout: .seconds(5)))
        #expect(d.pool.configuration.idleTimeout == .seconds(5))
        d.request()
        d.establish(0)
        #expect(d.release(0) == [.scheduleIdleTimer(0)])
        #expect(d.apply(d.pool.idleTimerFired(0)) == [.closeConnection(0)])
        #expect(d.pool.connectionCount == 0)
        // A timer that fires after the connection was leased again does nothing.
        d.request()
        d.establish(1)
        d.release(1)
        d.request()
        #expect(d.leased[1] == 2)
        #expect(d.apply(d.pool.idleTimerFired(1)) == [])
        #expect(d.leased[1] == 2)
    }

    @Test func waiterCancelAndTimeout() {
        var d = PoolDriver(Pool.Configuration(maximumConnections: 1))
        for _ in 0..<4 { d.request() }
        d.establish(0)
        #expect(d.waiting == [1, 2, 3])
        #expect(d.apply(d.pool.waiterCancelled(2)) == [.failWaiter(2, ClientError(.cancelled))])
        #expect(d.apply(d.pool.waiterTimedOut(1)) == [.failWaiter(1, ClientError(.poolTimeout))])
        #expect(d.apply(d.pool.waiterCancelled(1)) == [])
        #expect(d.apply(d.pool.waiterCancelled(0)) == [], "a leased waiter is not in the queue")
        #expect(d.pool.connectionCount == 1, "connections are unaffected")
        #expect(d.release(0) == [.lease(0, to: 3)])
    }

    @Test func cancelledWaiterLeavesConnectionToNext() {
        var d = PoolDriver(Pool.Configuration())
        d.request()
        d.apply(d.pool.waiterCancelled(0))
        #expect(d.establish(0) == [.scheduleIdleTimer(0)])
        #expect(d.request().actions == [.cancelIdleTimer(0), .lease(0, to: 1)])
    }

    @Test func lastConnectAttemptFailingFailsAllWaiters() {
        var d = PoolDriver(Pool.Configuration(maximumConnections: 1))
        d.request()
        d.request()
        let actions = d.failConnect(0)
        #expect(actions.count == 2)
        #expect(Set(d.failed.keys) == [0, 1])
        #expect(d.failed[0]?.code == .connectionFailed)
        #expect(d.created == [0], "no new attempt after a failure")
        // A later request tries again.
        #expect(d.request().actions == [.enqueue(2), .createConnection(1)])
    }

    @Test func connectFailureWithOtherConnectionsKeepsWaiters() {
        var d = PoolDriver(Pool.Configuration(maximumConnections: 2))
        d.request()
        d.request()
        d.request()
        #expect(d.created == [0, 1])
        #expect(d.failConnect(0) == [])
        #expect(d.waiting == [0, 1, 2])
        d.establish(1)
        #expect(d.leased[1] == 0)
        #expect(d.failConnect(99) == [], "unknown ids are ignored")
        #expect(d.release(1) == [.lease(1, to: 1)])
        // A dying leased connection gets a replacement for the remaining waiter.
        #expect(d.closedByPeer(1) == [.createConnection(2)])
        d.establish(2)
        #expect(d.leased[2] == 2)
        #expect(d.failed.isEmpty)
    }

    @Test func staleIdleConnectionClosedByServer() {
        var d = PoolDriver(Pool.Configuration())
        d.request()
        d.establish(0)
        d.release(0)
        #expect(d.closedByPeer(0) == [.cancelIdleTimer(0)])
        #expect(d.pool.connectionCount == 0)
        #expect(d.closedByPeer(0) == [])
        #expect(d.request().actions == [.enqueue(1), .createConnection(1)])
    }

    @Test func shutdownWaitsForLeasedConnections() {
        var d = PoolDriver(Pool.Configuration(maximumConnections: 2))
        d.request()
        d.establish(0)
        d.request()
        #expect(d.connecting == [1])
        let actions = d.apply(d.pool.shutdown())
        #expect(actions == [.failWaiter(1, ClientError(.poolShutdown)), .closeConnection(1)])
        #expect(!d.shutdownCompleted)
        #expect(d.establish(1) == [.closeConnection(1)], "an aborted attempt that completes anyway is closed")
        #expect(d.request().actions == [.failWaiter(2, ClientError(.poolShutdown))])
        #expect(d.release(0) == [.closeConnection(0), .shutdownComplete])
        #expect(d.apply(d.pool.shutdown()) == [])
    }

    @Test func shutdownWithOnlyIdleConnections() {
        var d = PoolDriver(Pool.Configuration())
        d.request()
        d.request()
        d.establish(0)
        d.establish(1)
        d.release(0)
        d.release(1)
        #expect(d.apply(d.pool.shutdown()) == [
            .cancelIdleTimer(1), .closeConnection(1), .cancelIdleTimer(0), .closeConnection(0), .shutdownComplete,
        ])
        #expect(d.pool.connectionCount == 0)
    }

    /// Thousands of random events against the driver model; every step checks the invariants:
    /// the limit, FIFO service, no waiter waiting beside an idle connection, no double lease.
    /// `fast`: driven as `ConnectionPool` drives it, with the one-step lease and park first.
    @Test(arguments: [1, 2, 3, 42, 2024] as [UInt64], [false, true])
    func randomizedModel(seed: UInt64, fast: Bool) {
        var rng = SplitMix64(seed: seed)
        let limit = Int.random(in: 1...6, using: &rng)
        let uses: Int? = Bool.random(using: &rng) ? Int.random(in: 1...4, using: &rng) : nil
        var d = PoolDriver(Pool.Configuration(maximumConnections: limit, maximumUses: uses), fast: fast)
        var requested = 0
        for step in 0..<5000 {
            if step == 4900 { d.apply(d.pool.shutdown()) }
            switch Int.random(in: 0..<9, using: &rng) {
            case 0:
                d.request()
                requested += 1
            case 1:
                // A preference (the driver's: the request's own loop) changes which idle
                // connection is leased, never the promises.
                let loops = Int.random(in: 1...3, using: &rng), mine = Int.random(in: 0..<loops, using: &rng)
                d.request(preferring: { $0 % loops == mine })
                requested += 1
            case 2:
                if let c = d.connecting.sorted().randomElement(using: &rng) { d.establish(c) }
            case 3:
                if let c = d.connecting.sorted().randomElement(using: &rng), Int.random(in: 0..<4, using: &rng) == 0 {
                    d.failConnect(c)
                }
            case 4, 5:
                if let c = d.leased.keys.sorted().randomElement(using: &rng) {
                    d.release(c, reusable: Int.random(in: 0..<5, using: &rng) > 0)
                }
            case 6:
                if let c = (d.idle + d.leased.keys.sorted()).randomElement(using: &rng), Int.random(in: 0..<3, using: &rng) == 0 {
                    d.closedByPeer(c)
                }
            case 7:
                if let c = d.timers.sorted().randomElement(using: &rng) { d.apply(d.pool.idleTimerFired(c)) }
            default:
                if let w = d.waiting.randomElement(using: &rng) {
                    d.apply(Bool.random(using: &rng) ? d.pool.waiterCancelled(w) : d.pool.waiterTimedOut(w))
                }
            }
        }
        // Drain: finish every connection; everything must end, and shutdown must complete.
        while let c = d.connecting.first { d.establish(c) }
        while let c = d.leased.keys.first { d.release(c) }
        #expect(d.shutdownCompleted)
        #expect(d.open == 0)
        #expect(d.waiting.isEmpty)
        #expect(d.served.count + d.failed.count == requested, "every waiter was served or failed exactly once")
        #expect(d.maxOpen <= limit)
        #expect(d.served.count > 100, "the run exercised leasing")
    }

    // MARK: The one-step inputs (what `ConnectionPool` asks first on every request)

    @Test func aWarmPoolLeasesAndParksInOneStep() {
        var d = PoolDriver(Pool.Configuration(maximumConnections: 2))
        d.request()
        d.establish(0)
        let parked = d.pool.parkReleasedConnection(0)
        #expect(parked)
        #expect(d.pool.idleConnections == [0])
        #expect(d.pool.leasedConnectionCount == 0)
        let leased = d.pool.leaseIdleConnection(to: 7)
        #expect(leased == 0)
        #expect(d.pool.idleConnections.isEmpty)
        #expect(d.pool.leasedConnectionCount == 1)
        #expect(d.pool.waiterCount == 0)
        #expect(d.pool.invariantViolation() == nil)
    }

    @Test func theOneStepLeaseDeclinesWithoutChangingAnything() {
        var pool = Pool(configuration: Pool.Configuration(maximumConnections: 2))
        // Nothing idle: no connection is started and no waiter queued (the full input does both).
        let declined = pool.leaseIdleConnection(to: 0)
        #expect(declined == nil)
        #expect(pool.connectionCount == 0)
        #expect(pool.waiterCount == 0)
        let queuedAndStarted = pool.requestConnection(waiter: 0)
        #expect(queuedAndStarted == [.enqueue(0), .createConnection(0)])
        let established = pool.connectionEstablished(0)
        #expect(established == [.lease(0, to: 0)])
        let released = pool.connectionReleased(0, reusable: true)
        #expect(released == [.scheduleIdleTimer(0)])
        // Shutting down: declined, and the full input fails the request.
        _ = pool.shutdown()
        let declinedAtShutdown = pool.leaseIdleConnection(to: 1)
        #expect(declinedAtShutdown == nil)
        let refused = pool.requestConnection(waiter: 1)
        #expect(refused == [.failWaiter(1, ClientError(.poolShutdown))])
    }

    @Test func theOneStepParkDeclinesWhatTheFullReleaseDecides() {
        // A waiter is queued: the connection goes to it, not to the idle stack.
        var d = PoolDriver(Pool.Configuration(maximumConnections: 1))
        d.request()
        d.establish(0)
        d.request()
        let parkedBesideAWaiter = d.pool.parkReleasedConnection(0)
        #expect(!parkedBesideAWaiter)
        #expect(d.pool.leasedConnectionCount == 1)
        let toTheWaiter = d.pool.connectionReleased(0, reusable: true)
        #expect(toTheWaiter == [.lease(0, to: 1)])
        let thenParked = d.pool.connectionReleased(0, reusable: true)
        #expect(thenParked == [.scheduleIdleTimer(0)])
        // Idle, not leased: declined (the full input treats that as the driver's bug).
        let parkedWhileIdle = d.pool.parkReleasedConnection(0)
        #expect(!parkedWhileIdle)
        #expect(d.pool.idleConnections == [0])

        // Out of uses: closed (and replaced for nobody).
        var pool = Pool(configuration: Pool.Configuration(maximumConnections: 1, maximumUses: 1))
        _ = pool.requestConnection(waiter: 0)
        _ = pool.connectionEstablished(0)
        let parkedOutOfUses = pool.parkReleasedConnection(0)
        #expect(!parkedOutOfUses)
        let closed = pool.connectionReleased(0, reusable: true)
        #expect(closed == [.closeConnection(0)])

        // Closed, or never known: declined.
        let parkedClosed = pool.parkReleasedConnection(0)
        #expect(!parkedClosed)
        let parkedUnknown = pool.parkReleasedConnection(99)
        #expect(!parkedUnknown)

        // Shutting down: the full release closes it and reports the end.
        var last = Pool(configuration: Pool.Configuration(maximumConnections: 1))
        _ = last.requestConnection(waiter: 0)
        _ = last.connectionEstablished(0)
        _ = last.shutdown()
        let parkedAtShutdown = last.parkReleasedConnection(0)
        #expect(!parkedAtShutdown)
        let closedAtShutdown = last.connectionReleased(0, reusable: true)
        #expect(closedAtShutdown == [.closeConnection(0), .shutdownComplete])
    }

    /// The same random inputs to two machines, one driven through the one-step inputs first and
    /// one through the full inputs only: they must agree after every step on everything a driver
    /// can observe. (The full inputs are built on the one-step ones, so this checks the driver's
    /// way of asking, one-step first and full only when declined; what the inputs decide is
    /// checked by the model's promises in `randomizedModel` and by the tests above.)
    @Test(arguments: [7, 99, 4242] as [UInt64])
    func theOneStepInputsChangeNothingObservable(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let uses: Int? = Bool.random(using: &rng) ? Int.random(in: 1...3, using: &rng) : nil
        let configuration = Pool.Configuration(maximumConnections: Int.random(in: 1...4, using: &rng), maximumUses: uses)
        var full = PoolDriver(configuration)
        var fast = PoolDriver(configuration, fast: true)
        for _ in 0..<3000 {
            let pick = Int.random(in: 0..<6, using: &rng)
            let choice = Int.random(in: 0..<64, using: &rng)
            switch pick {
            case 0:
                full.request()
                fast.request()
            case 1:
                // A preference (the driver's: the request's own loop) reorders the idle stack the
                // same way on both sides.
                let loops = 1 + choice % 3, mine = choice % loops
                full.request(preferring: { $0 % loops == mine })
                fast.request(preferring: { $0 % loops == mine })
            case 2:
                let connecting = full.connecting.sorted()
                if !connecting.isEmpty {
                    full.establish(connecting[choice % connecting.count])
                    fast.establish(connecting[choice % connecting.count])
                }
            default:
                let leased = full.leased.keys.sorted()
                if !leased.isEmpty {
                    let reusable = choice % 7 != 0
                    full.release(leased[choice % leased.count], reusable: reusable)
                    fast.release(leased[choice % leased.count], reusable: reusable)
                }
            }
            #expect(fast.pool.idleConnections == full.pool.idleConnections)
            #expect(fast.pool.queuedWaiters == full.pool.queuedWaiters)
            #expect(fast.leased == full.leased)
            #expect(fast.connecting == full.connecting)
            #expect(fast.closed == full.closed)
            #expect(fast.served == full.served)
        }
        #expect(full.served.count > 300, "the run exercised leasing")
    }
}
