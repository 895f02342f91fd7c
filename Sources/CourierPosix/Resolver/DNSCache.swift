import CourierCore
import Dispatch
import Synchronization

/// A client's name lookups, shared by all its connections: answers kept for a TTL
/// (``DNSCacheConfiguration``), negative answers briefly, and one lookup in flight per
/// (host, port, family) however many connections wait for it.
///
/// The decisions are ``DNSCacheState``'s; this class adds the lock, the clock, the deliveries
/// and where lookups run. Thread-safe: every input takes the one `Mutex`, and nothing is called
/// while it is held (lookups and deliveries run after it is released).
public final class DNSCache: Sendable {
    /// The blocking lookup (``Resolver``'s `getaddrinfo` outside tests).
    public typealias Lookup = @Sendable (DNSCacheKey) -> Result<[SocketAddress], ResolverError>
    /// Receives the answer and where it came from; called once per ticket unless cancelled.
    public typealias Delivery = @Sendable (Result<[SocketAddress], ResolverError>, ResolutionSource) -> Void

    /// One waiter's claim on one key.
    public struct Ticket: Sendable, Hashable {
        public let key: DNSCacheKey
        let id: UInt64
    }

    private struct State {
        var machine = DNSCacheState<UInt64>(configuration: .default)
        var deliveries: [UInt64: Delivery] = [:]
    }

    /// The settings the cache was made with.
    public let configuration: DNSCacheConfiguration
    private let state = Mutex(State())
    private let nextID = Atomic<UInt64>(0)
    private let lookup: Lookup
    private let clock: @Sendable () -> Deadline
    private let start: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// - Parameters:
    ///   - clock: the time entries expire by (the monotonic clock outside tests).
    ///   - start: runs a blocking lookup somewhere that may block (a concurrent queue).
    ///   - lookup: the lookup itself.
    public init(
        configuration: DNSCacheConfiguration,
        clock: @escaping @Sendable () -> Deadline = { .now() },
        start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        lookup: @escaping Lookup
    ) {
        self.configuration = configuration
        self.clock = clock
        self.start = start
        self.lookup = lookup
        state.withLock { $0.machine = DNSCacheState(configuration: configuration) }
    }

    /// Entries held, resolving or answered.
    public var count: Int { state.withLock { $0.machine.count } }

    /// A ticket for `key`, to pass to ``resolve(_:_:)`` and, to give up, ``cancel(_:)``.
    public func ticket(for key: DNSCacheKey) -> Ticket {
        Ticket(key: key, id: nextID.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    /// Answers `ticket`: from the cache at once (on this thread), or when the lookup it starts or
    /// joins ends (on the lookup's thread).
    public func resolve(_ ticket: Ticket, _ deliver: @escaping Delivery) {
        let decision = state.withLock { state -> DNSCacheState<UInt64>.Decision in
            let decision = state.machine.lookup(ticket.key, waiter: ticket.id, now: clock())
            if case .hit = decision { return decision }
            state.deliveries[ticket.id] = deliver
            return decision
        }
        switch decision {
        case .hit(let result):
            deliver(result, .cache)
        case .joined:
            break
        case .startLookup:
            let key = ticket.key
            let first = ticket.id
            start { [self] in
                let result = lookup(key)
                let waiting = state.withLock { state -> [(UInt64, Delivery)] in
                    state.machine.completed(key, result, now: clock()).compactMap { id in
                        state.deliveries.removeValue(forKey: id).map { (id, $0) }
                    }
                }
                for (id, delivery) in waiting { delivery(result, id == first ? .lookup : .coalesced) }
            }
        }
    }

    /// Gives up `ticket`: it will not be delivered (a lookup it started goes on, and is cached).
    public func cancel(_ ticket: Ticket) {
        state.withLock { state in
            state.machine.cancel(ticket.key, waiter: ticket.id)
            state.deliveries[ticket.id] = nil
        }
    }

    /// Forgets every answer; lookups in flight still deliver.
    public func removeAll() {
        state.withLock { $0.machine.removeAnswers() }
    }
}
