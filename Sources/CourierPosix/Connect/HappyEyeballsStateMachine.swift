import CourierCore

/// RFC 8305 (Happy Eyeballs v2) as a value: inputs in, actions out; no clocks, no sockets.
///
/// - AAAA and A are looked up in parallel (§3). If A answers first, wait the Resolution Delay
///   (50 ms) for AAAA before connecting; if AAAA answers first, start at once.
/// - Addresses are interleaved by family, IPv6 first (§4, First Address Family Count 1).
/// - A new attempt starts every Connection Attempt Delay (250 ms, §5) or as soon as the
///   previous one fails; the first connection to complete wins and the others are closed.
/// - Answers that arrive after attempts began are merged into the remaining list (§3).
public struct HappyEyeballsStateMachine: Sendable {
    public typealias AttemptID = Int

    public enum Input: Sendable {
        case resolved(SocketAddress.Family, Result<[SocketAddress], ResolverError>)
        case resolutionDelayElapsed
        case attemptDelayElapsed
        case attemptFailed(AttemptID, PosixError)
        case attemptSucceeded(AttemptID)
        case timedOut
        case cancelled
    }

    public enum Action: Equatable, Sendable {
        case scheduleResolutionDelay(TimeAmount)
        /// Start connecting to `address`; arm the attempt-delay timer for `nextAttemptAfter`.
        case startAttempt(AttemptID, SocketAddress, nextAttemptAfter: TimeAmount)
        case cancelAttemptDelay
        /// Done: keep `winner`, close the attempts in `close`.
        case succeed(winner: AttemptID, close: [AttemptID])
        case fail(ConnectError, close: [AttemptID])
    }

    public let resolutionDelay: TimeAmount
    public let attemptDelay: TimeAmount

    private var ipv6: Result<[SocketAddress], ResolverError>?
    private var ipv4: Result<[SocketAddress], ResolverError>?
    private var started = false
    private var remaining: [SocketAddress] = []
    private var inFlight: [AttemptID] = []
    private var attemptTimerArmed = false
    private var nextAttemptID = 0
    private var lastError: PosixError?
    private var finished = false
    private let host: String

    public init(host: String, resolutionDelay: TimeAmount = .milliseconds(50), attemptDelay: TimeAmount = .milliseconds(250)) {
        self.host = host
        self.resolutionDelay = resolutionDelay
        self.attemptDelay = attemptDelay
    }

    public var isFinished: Bool { finished }

    public mutating func handle(_ input: Input) -> [Action] {
        guard !finished else { return [] }
        switch input {
        case .resolved(.ipv6, let result):
            ipv6 = result
            if started { return merge(result) + tryNextIfIdle() }
            return start()
        case .resolved(_, let result):
            ipv4 = result
            if started { return merge(result) + tryNextIfIdle() }
            if ipv6 == nil, case .success = result { return [.scheduleResolutionDelay(resolutionDelay)] }
            return ipv6 == nil ? [] : start()
        case .resolutionDelayElapsed:
            return started ? [] : start()
        case .attemptDelayElapsed:
            attemptTimerArmed = false
            return tryNext()
        case .attemptFailed(let id, let error):
            guard let index = inFlight.firstIndex(of: id) else { return [] }
            inFlight.remove(at: index)
            lastError = error
            var actions: [Action] = []
            if attemptTimerArmed {
                attemptTimerArmed = false
                actions.append(.cancelAttemptDelay)
            }
            return actions + tryNext()
        case .attemptSucceeded(let id):
            guard inFlight.contains(id) else { return [] }
            finished = true
            var actions: [Action] = attemptTimerArmed ? [.cancelAttemptDelay] : []
            actions.append(.succeed(winner: id, close: inFlight.filter { $0 != id }))
            return actions
        case .timedOut:
            return fail(.timeout)
        case .cancelled:
            return fail(.cancelled)
        }
    }

    private mutating func start() -> [Action] {
        started = true
        remaining = Self.interleave(v6: addresses(ipv6), v4: addresses(ipv4))
        return tryNext()
    }

    private mutating func merge(_ result: Result<[SocketAddress], ResolverError>) -> [Action] {
        guard case .success(let late) = result else { return [] }
        let fresh = late.filter { !remaining.contains($0) }
        let v6 = (remaining + fresh).filter { $0.family == .ipv6 }
        let v4 = (remaining + fresh).filter { $0.family != .ipv6 }
        remaining = Self.interleave(v6: v6, v4: v4)
        return []
    }

    private mutating func tryNextIfIdle() -> [Action] {
        inFlight.isEmpty && !attemptTimerArmed ? tryNext() : []
    }

    private mutating func tryNext() -> [Action] {
        guard !remaining.isEmpty else {
            if inFlight.isEmpty && ipv6 != nil && ipv4 != nil { return failExhausted() }
            return []
        }
        let address = remaining.removeFirst()
        nextAttemptID += 1
        inFlight.append(nextAttemptID)
        attemptTimerArmed = true
        return [.startAttempt(nextAttemptID, address, nextAttemptAfter: attemptDelay)]
    }

    private mutating func failExhausted() -> [Action] {
        if let lastError { return fail(.connectionFailed(lastError)) }
        if case .failure(let error) = ipv6, case .failure(let other) = ipv4 {
            // Prefer the more informative of the two lookup failures.
            if case .noAddresses = error { return fail(.resolution(other)) }
            return fail(.resolution(error))
        }
        return fail(.resolution(.noAddresses(host: host)))
    }

    private mutating func fail(_ error: ConnectError) -> [Action] {
        finished = true
        var actions: [Action] = attemptTimerArmed ? [.cancelAttemptDelay] : []
        attemptTimerArmed = false
        actions.append(.fail(error, close: inFlight))
        inFlight.removeAll()
        return actions
    }

    private func addresses(_ result: Result<[SocketAddress], ResolverError>?) -> [SocketAddress] {
        if case .success(let list)? = result { return list }
        return []
    }

    /// IPv6 first, then alternate families (RFC 8305 §4).
    static func interleave(v6: [SocketAddress], v4: [SocketAddress]) -> [SocketAddress] {
        var result: [SocketAddress] = []
        result.reserveCapacity(v6.count + v4.count)
        var i = 0, j = 0
        while i < v6.count || j < v4.count {
            if i < v6.count { result.append(v6[i]); i += 1 }
            if j < v4.count { result.append(v4[j]); j += 1 }
        }
        return result
    }
}

/// Why a connection could not be established.
public enum ConnectError: Error, Hashable, Sendable, CustomStringConvertible {
    case resolution(ResolverError)
    /// Every address was tried; the last attempt's error.
    case connectionFailed(PosixError)
    /// The connect timeout passed before any attempt succeeded.
    case timeout
    case cancelled

    public var description: String {
        switch self {
        case .resolution(let error): error.description
        case .connectionFailed(let error): "connection failed: \(error)"
        case .timeout: "connect timed out"
        case .cancelled: "connect cancelled"
        }
    }
}
