import CourierCore

/// How long a client keeps name lookups, and how many.
///
/// `getaddrinfo` reports no TTL, so the cache applies its own, as curl does
/// (`CURLOPT_DNS_CACHE_TIMEOUT`, 60 s by default).
public struct DNSCacheConfiguration: Sendable, Hashable {
    /// How long a successful answer is used (curl's default: 60 s).
    public var ttl: TimeAmount
    /// How long a negative answer (the name or the family has no address, RFC 2308 §1) is
    /// used: briefly, 5 s, so a burst of requests to a mistyped or not-yet-published name makes
    /// one lookup, while a name that appears is seen soon. Transient failures (`EAI_AGAIN`,
    /// `EAI_SYSTEM`, `EAI_MEMORY`) are never cached.
    public var negativeTTL: TimeAmount
    /// The most (host, port, family) entries kept; beyond it the expired entries go first, then
    /// the oldest answers. Lookups in flight are never evicted.
    public var capacity: Int

    public init(ttl: TimeAmount = .seconds(60), negativeTTL: TimeAmount = .seconds(5), capacity: Int = 256) {
        self.ttl = ttl
        self.negativeTTL = negativeTTL
        self.capacity = capacity
    }

    public static let `default` = DNSCacheConfiguration()
}

/// What one lookup is keyed by: the name, the port the addresses carry, the family asked for.
public struct DNSCacheKey: Hashable, Sendable {
    public var host: String
    public var port: Int
    public var family: SocketAddress.Family?

    public init(host: String, port: Int, family: SocketAddress.Family?) {
        self.host = host
        self.port = port
        self.family = family
    }
}

/// Where a connection's addresses came from.
public enum ResolutionSource: Sendable, Hashable {
    /// An IP literal or a Unix path: nothing was looked up.
    case literal
    /// The client's DNS cache answered; no `getaddrinfo` ran for this connection.
    case cache
    /// Another connection's lookup for the same name was in flight; this one waited for it.
    case coalesced
    /// This connection's own `getaddrinfo`.
    case lookup

    /// The source of a connection whose lookups (AAAA and A) came from `self` and `other`:
    /// the costliest of the two.
    public func combined(with other: ResolutionSource) -> ResolutionSource {
        func rank(_ s: ResolutionSource) -> Int {
            switch s {
            case .literal: 0
            case .cache: 1
            case .coalesced: 2
            case .lookup: 3
            }
        }
        return rank(other) > rank(self) ? other : self
    }
}

/// The DNS cache's decisions as a value: no clock, no resolver, no lock. Time comes in as `now`,
/// lookups go out as decisions, their answers come back in ``completed(_:_:now:)``.
///
/// An entry is one of: *resolving* (a lookup is in flight; the waiters attached to it), *positive
/// until T*, *negative until T*. A waiter that finds an entry resolving attaches to it
/// (coalescing): one `getaddrinfo` serves every connection that asks meanwhile.
public struct DNSCacheState<Waiter: Hashable & Sendable>: Sendable {
    enum Entry: Sendable {
        case resolving(waiters: [Waiter])
        case positive([SocketAddress], until: Deadline, stored: UInt64)
        case negative(ResolverError, until: Deadline, stored: UInt64)
    }

    /// What the caller does after ``lookup(_:waiter:now:)``.
    public enum Decision: Sendable, Equatable {
        /// A fresh answer: deliver it now.
        case hit(Result<[SocketAddress], ResolverError>)
        /// The waiter is the first: run the lookup and report it with ``completed(_:_:now:)``.
        case startLookup
        /// A lookup is in flight: the waiter is delivered with it.
        case joined
    }

    public let configuration: DNSCacheConfiguration
    private(set) var entries: [DNSCacheKey: Entry] = [:]
    /// Orders stored answers for eviction (the oldest goes first).
    private var sequence: UInt64 = 0

    public init(configuration: DNSCacheConfiguration) {
        self.configuration = configuration
    }

    /// Entries held (resolving, positive and negative, expired or not).
    public var count: Int { entries.count }

    /// `waiter` wants `key` at `now`.
    public mutating func lookup(_ key: DNSCacheKey, waiter: Waiter, now: Deadline) -> Decision {
        switch entries[key] {
        case .resolving(var waiters):
            waiters.append(waiter)
            entries[key] = .resolving(waiters: waiters)
            return .joined
        case .positive(let addresses, let until, _) where now < until:
            return .hit(.success(addresses))
        case .negative(let error, let until, _) where now < until:
            return .hit(.failure(error))
        case .positive, .negative:
            entries[key] = .resolving(waiters: [waiter])
            return .startLookup
        case nil:
            makeRoom(now: now)
            entries[key] = .resolving(waiters: [waiter])
            return .startLookup
        }
    }

    /// The lookup for `key` answered `result` at `now`. Returns the waiters to deliver it to
    /// (those that did not cancel), in the order they came.
    public mutating func completed(_ key: DNSCacheKey, _ result: Result<[SocketAddress], ResolverError>, now: Deadline) -> [Waiter] {
        guard case .resolving(let waiters) = entries[key] else { return [] }
        sequence += 1
        switch result {
        case .success(let addresses) where configuration.ttl > .zero:
            entries[key] = .positive(addresses, until: now + configuration.ttl, stored: sequence)
        case .failure(let error) where error.isNegativeAnswer && configuration.negativeTTL > .zero:
            entries[key] = .negative(error, until: now + configuration.negativeTTL, stored: sequence)
        default:
            entries[key] = nil
        }
        if entries.count > configuration.capacity { makeRoom(now: now, keeping: configuration.capacity) }
        return waiters
    }

    /// `waiter` no longer wants `key` (its connect was cancelled). The lookup goes on, and its
    /// answer is still cached.
    public mutating func cancel(_ key: DNSCacheKey, waiter: Waiter) {
        guard case .resolving(var waiters) = entries[key], let index = waiters.firstIndex(of: waiter) else { return }
        waiters.remove(at: index)
        entries[key] = .resolving(waiters: waiters)
    }

    /// Forgets every answer (lookups in flight stay: their waiters still need them).
    public mutating func removeAnswers() {
        entries = entries.filter { if case .resolving = $0.value { true } else { false } }
    }

    /// Evicts so that at most `keeping` entries remain (or one below the capacity, to make room
    /// for a new one): expired answers first, then the oldest. Lookups in flight stay.
    private mutating func makeRoom(now: Deadline, keeping: Int? = nil) {
        let limit = keeping ?? max(configuration.capacity - 1, 0)
        guard entries.count > limit else { return }
        var answers: [(key: DNSCacheKey, expired: Bool, stored: UInt64)] = []
        for (key, entry) in entries {
            switch entry {
            case .resolving: continue
            case .positive(_, let until, let stored), .negative(_, let until, let stored):
                answers.append((key, until <= now, stored))
            }
        }
        // Expired first, then by age.
        answers.sort { ($0.expired ? 0 : 1, $0.stored) < ($1.expired ? 0 : 1, $1.stored) }
        for answer in answers {
            guard entries.count > limit else { break }
            entries[answer.key] = nil
        }
    }
}

extension ResolverError {
    /// Whether this is an answer about the name (it has no address, or none of the family asked
    /// for), which may be cached briefly, rather than a failure to get one.
    public var isNegativeAnswer: Bool {
        switch self {
        case .noAddresses: true
        case .lookupFailed(_, let code, _): Self.negativeCodes.contains(code)
        case .cancelled: false
        }
    }

    /// `EAI_NONAME`, `EAI_NODATA`, `EAI_ADDRFAMILY` (glibc's values; the last two are GNU).
    private static let negativeCodes: Set<Int32> = [-2, -5, -9]
}
