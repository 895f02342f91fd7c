#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import Synchronization

/// Watches the kernel's routing state and reports whether a target is reachable, Linux's
/// counterpart of SystemConfiguration's reachability (what AFNetworking's
/// `AFNetworkReachabilityManager` builds on).
///
/// Two `NETLINK_ROUTE` sockets: one subscribed to link, address and route changes (RTMGRP_LINK,
/// RTMGRP_IPV4/IPV6_IFADDR, RTMGRP_IPV4/IPV6_ROUTE), one for RTM_GETROUTE/RTM_GETLINK lookups.
/// A burst of change messages is coalesced into one evaluation (after `coalescing`); an
/// evaluation asks the kernel which route a packet to each destination would take — nothing is
/// ever sent to the destinations — and the handler hears the result when it differs from the
/// last one.
///
/// The sockets are created in ``init(target:loop:loopbackSatisfies:coalescing:)`` on the calling
/// thread and stay in that thread's network namespace, whichever loop reads them.
///
/// Call ``cancel()`` before shutting the loop down; it closes both sockets on the loop.
public final class PathMonitor: Sendable {
    private let loop: EventLoop
    private let core: Core
    private let shared: Shared

    /// Opens the netlink sockets (in the calling thread's network namespace). Nothing is
    /// evaluated until ``start(onNetworkChange:_:)`` or ``evaluate(_:)``.
    ///
    /// - Parameters:
    ///   - loop: the loop that reads the sockets and calls the handlers.
    ///   - loopbackSatisfies: whether a route out of a loopback interface makes the path
    ///     satisfied; nil takes the target's default (no for ``PathTarget/internet``, yes for
    ///     ``PathTarget/addresses(_:)``).
    ///   - coalescing: how long to wait after a change message for the rest of its burst.
    public convenience init(
        target: PathTarget,
        loop: EventLoop,
        loopbackSatisfies: Bool? = nil,
        coalescing: TimeAmount = .milliseconds(20)
    ) throws(PosixError) {
        try self.init(
            target: target, loop: loop, loopbackSatisfies: loopbackSatisfies, coalescing: coalescing,
            roundLimit: .seconds(5), queries: NetlinkSocket(groups: 0))
    }

    /// The designated initializer; tests pass a short `roundLimit` and a `queries` socket that
    /// loses replies.
    init(
        target: PathTarget, loop: EventLoop, loopbackSatisfies: Bool?, coalescing: TimeAmount,
        roundLimit: TimeAmount, queries: NetlinkSocket
    ) throws(PosixError) {
        let events = try NetlinkSocket(groups: NetlinkSocket.changeGroups)
        self.loop = loop
        self.shared = Shared()
        self.core = Core(
            loop: loop, shared: shared, events: events, queries: queries, target: target,
            loopbackSatisfies: loopbackSatisfies, coalescing: coalescing, roundLimit: roundLimit)
    }

    deinit {
        cancel()
    }

    /// The last status reported to the handler (``PathStatus/unknown`` before the first).
    public var status: PathStatus { shared.status.withLock { $0 } }

    /// Starts watching: evaluates at once, then after every burst of changes. `handler` runs on
    /// the loop with each status that differs from the previous one (the first evaluation
    /// always reports, ``PathStatus/unknown`` being the previous one). A round that fails (a
    /// reply lost or overrun, a send refused) is tried again after a pause that starts at
    /// 100 ms and doubles up to the round limit, so a lost first reply delays the first report
    /// instead of withholding it until the next network change. `onNetworkChange` runs on
    /// the loop once per coalesced burst of kernel change messages, before its evaluation.
    /// A second call does nothing.
    public func start(
        onNetworkChange: (@Sendable () -> Void)? = nil,
        _ handler: @escaping @Sendable (PathStatus) -> Void
    ) {
        let core = self.core
        loop.execute { core.start(handler: handler, onNetworkChange: onNetworkChange) }
    }

    /// Replaces the destinations and re-evaluates (when started).
    public func setTarget(_ target: PathTarget) {
        let core = self.core
        loop.execute { core.setTarget(target) }
    }

    /// Runs a fresh evaluation and calls `completion` on the loop with its result, whether or
    /// not it changed and whether or not the monitor was started. After ``cancel()`` the
    /// completion gets the last reported status.
    public func evaluate(_ completion: @escaping @Sendable (PathStatus) -> Void) {
        let core = self.core
        loop.execute { core.evaluate(completion) }
    }

    /// Stops watching and closes the sockets (on the loop). Idempotent; no handler runs after
    /// the loop has run this.
    public func cancel() {
        guard !shared.cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let core = self.core
        loop.execute { core.cancel() }
    }
}

extension PathMonitor {
    /// What the public object and the loop share.
    private final class Shared: Sendable {
        let status = Mutex<PathStatus>(.unknown)
        let cancelled = Atomic<Bool>(false)
    }

    /// Forwards one registration's readiness to the core.
    private final class Readiness: Selectable {
        let body: (SelectorEvents) -> Void
        init(_ body: @escaping (SelectorEvents) -> Void) { self.body = body }
        func selectorReady(_ events: SelectorEvents) { body(events) }
    }

    /// The monitor's state. `@unchecked Sendable`: every member is touched only on `loop`'s
    /// thread (each entry point is reached through `loop.execute` or a loop registration/timer);
    /// the sockets' descriptors are closed in `cancel()` on the loop, or in `deinit` when
    /// the core was never registered.
    private final class Core: @unchecked Sendable {
        let loop: EventLoop
        let shared: Shared
        var events: NetlinkSocket?
        var queries: NetlinkSocket?
        var eventsRegistration: RegistrationID?
        var queriesRegistration: RegistrationID?
        var target: PathTarget
        let loopbackSatisfies: Bool?
        let coalescing: TimeAmount

        var handler: (@Sendable (PathStatus) -> Void)?
        var onNetworkChange: (@Sendable () -> Void)?
        var started = false
        var cancelled = false
        var reported: PathStatus = .unknown

        var round: PathEvaluation?
        var roundTimeout: TimerID?
        var rerun = false
        var coalesceTimer: TimerID?
        /// The try after a failed round (while started), and the pause before it: doubled after
        /// each failure up to `roundLimit`, back to `firstRetry` when a round completes.
        var retryTimer: TimerID?
        var retryDelay = Core.firstRetry
        /// `evaluate(_:)` callers served by the round after the one in flight, and by it.
        var waitingForNextRound: [@Sendable (PathStatus) -> Void] = []
        var waitingForThisRound: [@Sendable (PathStatus) -> Void] = []
        var sequence: UInt32 = 1
        var buffer = [UInt8](repeating: 0, count: 65_536)

        /// How long the kernel may take to answer a round before it is abandoned (it answers
        /// route lookups synchronously; this only guards against a lost reply).
        let roundLimit: TimeAmount
        static let firstRetry = TimeAmount.milliseconds(100)

        init(loop: EventLoop, shared: Shared, events: NetlinkSocket, queries: NetlinkSocket, target: PathTarget,
             loopbackSatisfies: Bool?, coalescing: TimeAmount, roundLimit: TimeAmount) {
            self.loop = loop
            self.shared = shared
            self.events = events
            self.queries = queries
            self.target = target
            self.loopbackSatisfies = loopbackSatisfies
            self.coalescing = coalescing
            self.roundLimit = roundLimit
        }

        func start(handler: @escaping @Sendable (PathStatus) -> Void, onNetworkChange: (@Sendable () -> Void)?) {
            guard !cancelled, !started, let events else { return }
            started = true
            self.handler = handler
            self.onNetworkChange = onNetworkChange
            do throws(PosixError) {
                eventsRegistration = try loop.register(events.descriptor, interest: .read, handler: Readiness { [unowned self] _ in
                    self.eventsReady()
                })
            } catch {
                // Without change notifications the status could go stale silently: report
                // what one evaluation says and stop there.
            }
            requestRound()
        }

        func setTarget(_ newTarget: PathTarget) {
            guard !cancelled else { return }
            target = newTarget
            if started { requestRound() }
        }

        func evaluate(_ completion: @escaping @Sendable (PathStatus) -> Void) {
            guard !cancelled else { return completion(reported) }
            waitingForNextRound.append(completion)
            requestRound()
        }

        func cancel() {
            guard !cancelled else { return }
            cancelled = true
            if let timer = coalesceTimer { loop.cancelTimer(timer) }
            if let timer = roundTimeout { loop.cancelTimer(timer) }
            if let timer = retryTimer { loop.cancelTimer(timer) }
            coalesceTimer = nil
            roundTimeout = nil
            retryTimer = nil
            round = nil
            if let id = eventsRegistration { loop.deregister(id) }
            if let id = queriesRegistration { loop.deregister(id) }
            eventsRegistration = nil
            queriesRegistration = nil
            events = nil
            queries = nil
            handler = nil
            onNetworkChange = nil
            let waiting = waitingForThisRound + waitingForNextRound
            waitingForThisRound = []
            waitingForNextRound = []
            for completion in waiting { completion(reported) }
        }

        // MARK: Change notifications

        func eventsReady() {
            guard let events else { return }
            var changed = false
            // Drain: only the fact of a change matters, not its content.
            while true {
                let received: NetlinkSocket.Received
                do throws(PosixError) {
                    received = try events.receive(into: &buffer)
                } catch {
                    changed = true
                    break
                }
                if case .wouldBlock = received { break }
                if case .foreign = received { continue }
                changed = true
            }
            if changed { scheduleCoalescedRound() }
        }

        func scheduleCoalescedRound() {
            guard coalesceTimer == nil else { return }
            coalesceTimer = loop.scheduleTimer(at: .after(coalescing)) { [unowned self] in
                coalesceTimer = nil
                guard !cancelled else { return }
                onNetworkChange?()
                requestRound()
            }
        }

        // MARK: Rounds

        /// Starts a round now, or right after the one in flight.
        func requestRound() {
            if round != nil {
                rerun = true
            } else {
                beginRound()
            }
        }

        func beginRound() {
            guard !cancelled, let queries else { return }
            // A change or a new target came before the pending retry: this round is that try.
            if let timer = retryTimer {
                loop.cancelTimer(timer)
                retryTimer = nil
            }
            if queriesRegistration == nil {
                do throws(PosixError) {
                    queriesRegistration = try loop.register(queries.descriptor, interest: .read, handler: Readiness { [unowned self] _ in
                        self.queriesReady()
                    })
                } catch {
                    return finishRound(nil)
                }
            }
            waitingForThisRound += waitingForNextRound
            waitingForNextRound = []
            var newRound = PathEvaluation(
                destinations: target.destinations,
                loopbackSatisfies: loopbackSatisfies ?? target.loopbackSatisfiesByDefault)
            let requests = newRound.routeRequests(firstSequence: sequence)
            sequence &+= UInt32(truncatingIfNeeded: requests.count)
            round = newRound
            guard send(requests) else { return finishRound(nil) }
            if newRound.isComplete { return finishRound(newRound.status) }
            roundTimeout = loop.scheduleTimer(at: .after(roundLimit)) { [unowned self] in
                roundTimeout = nil
                finishRound(nil)
            }
        }

        func send(_ requests: [[UInt8]]) -> Bool {
            guard let queries else { return false }
            for request in requests {
                guard (try? queries.send(request)) == true else { return false }
            }
            return true
        }

        func queriesReady() {
            guard let queries else { return }
            // Drain: replies to an abandoned round are read and dropped (unknown sequence).
            while !cancelled {
                let received: NetlinkSocket.Received
                do throws(PosixError) {
                    received = try queries.receive(into: &buffer)
                } catch {
                    return finishRound(nil)
                }
                switch received {
                case .wouldBlock:
                    return
                case .foreign:
                    continue
                case .overrun:
                    // A reply may have been dropped: this round cannot complete.
                    if round != nil { finishRound(nil) }
                case .datagram(let bytes, _):
                    // A truncated datagram parses as far as it is whole; a reply cut off
                    // leaves its request pending until the round limit.
                    for message in RouteNetlink.parse(bytes).messages {
                        handle(message)
                    }
                }
            }
        }

        func handle(_ message: RouteNetlink.Message) {
            guard var current = round else { return }
            let sequenceOfMessage: UInt32
            switch message {
            case .route(let s, _), .link(let s, _), .error(let s, _), .other(let s, _): sequenceOfMessage = s
            }
            guard current.expects(sequenceOfMessage) else { return }
            let more = current.receive(message, nextSequence: sequence)
            sequence &+= UInt32(truncatingIfNeeded: more.count)
            round = current
            guard send(more) else { return finishRound(nil) }
            if current.isComplete { finishRound(current.status) }
        }

        /// Ends the round in flight: `status` nil when it failed (the last status stands).
        func finishRound(_ status: PathStatus?) {
            if let timer = roundTimeout { loop.cancelTimer(timer) }
            roundTimeout = nil
            round = nil
            let result = status ?? reported
            if let status, started, !cancelled, status != reported {
                reported = status
                shared.status.withLock { $0 = status }
                handler?(status)
            }
            let waiting = waitingForThisRound
            waitingForThisRound = []
            for completion in waiting { completion(result) }
            if rerun && !cancelled {
                rerun = false
                beginRound()
            } else if status == nil {
                scheduleRetry()
            } else {
                retryDelay = Self.firstRetry
            }
        }

        /// After a failed round: while started, try again after `retryDelay`. Without this a
        /// lost first reply would leave the status unknown until the next network change.
        func scheduleRetry() {
            guard started, !cancelled, retryTimer == nil else { return }
            let delay = retryDelay
            retryDelay = .nanoseconds(min(delay.nanoseconds &* 2, roundLimit.nanoseconds))
            retryTimer = loop.scheduleTimer(at: .after(delay)) { [unowned self] in
                retryTimer = nil
                requestRound()
            }
        }
    }
}
