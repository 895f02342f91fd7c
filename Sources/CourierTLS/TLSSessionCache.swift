import CourierCore
import Synchronization

/// What a resumable session is kept for: the origin it was made with (host, port), the SNI name
/// sent, and the TLS configuration (trust roots, verification, versions...): a session
/// established under one configuration never resumes a connection made under another.
public struct TLSSessionKey: Hashable, Sendable {
    public var host: String
    public var port: Int
    public var serverName: String?
    public var configuration: TLSConfiguration

    public init(host: String, port: Int, serverName: String?, configuration: TLSConfiguration) {
        self.host = host
        self.port = port
        self.serverName = serverName
        self.configuration = configuration
    }
}

/// A client's resumable TLS sessions (tickets), per ``TLSSessionKey``: at most
/// ``Limits/sessionsPerOrigin`` per key (the oldest goes first) and ``Limits/origins`` keys (the
/// one stored to least recently goes first). Every `SSL_SESSION` reference is released when its
/// session is evicted, taken for single use, or on ``removeAll()`` (client shutdown).
///
/// Thread-safe: one `Mutex`; nothing is called while it is held but OpenSSL's reference release.
public final class TLSSessionCache: Sendable {
    public struct Limits: Sendable, Hashable {
        public var sessionsPerOrigin: Int
        public var origins: Int

        public init(sessionsPerOrigin: Int = 8, origins: Int = 128) {
            self.sessionsPerOrigin = sessionsPerOrigin
            self.origins = origins
        }
    }

    private struct Origin {
        var sessions: [TLSSession] = []
        var lastStored: UInt64 = 0
    }

    private struct State {
        var origins: [TLSSessionKey: Origin] = [:]
        var sequence: UInt64 = 0
    }

    public let limits: Limits
    private let state = Mutex(State())

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// A session to offer for a new connection to `key`, newest first; nil when none is left.
    /// A single-use session (TLS 1.3) is removed; sessions that can no longer be resumed are
    /// dropped on the way.
    public func take(for key: TLSSessionKey, now: Int? = nil) -> TLSSession? {
        state.withLock { state -> TLSSession? in
            guard var origin = state.origins[key] else { return nil }
            defer { state.origins[key] = origin.sessions.isEmpty ? nil : origin }
            while let newest = origin.sessions.last {
                guard now.map({ newest.isResumable(now: $0) }) ?? newest.isResumable() else {
                    origin.sessions.removeLast()
                    continue
                }
                if newest.isSingleUse { origin.sessions.removeLast() }
                return newest
            }
            return nil
        }
    }

    /// Keeps `session` for `key`.
    public func store(_ session: TLSSession, for key: TLSSessionKey) {
        state.withLock { state in
            state.sequence += 1
            var origin = state.origins.removeValue(forKey: key) ?? Origin()
            origin.sessions.append(session)
            if origin.sessions.count > limits.sessionsPerOrigin {
                origin.sessions.removeFirst(origin.sessions.count - limits.sessionsPerOrigin)
            }
            origin.lastStored = state.sequence
            if state.origins.count >= limits.origins,
               let oldest = state.origins.min(by: { $0.value.lastStored < $1.value.lastStored })?.key {
                state.origins[oldest] = nil
            }
            state.origins[key] = origin
        }
    }

    /// Forgets `sessions` (by identity) under `key`: they belong to a connection that failed
    /// with a fatal alert, and RFC 5246 §7.2.2 wants such sessions forgotten.
    public func remove(_ sessions: [TLSSession], for key: TLSSessionKey) {
        state.withLock { state in
            guard var origin = state.origins[key] else { return }
            origin.sessions.removeAll { session in sessions.contains { $0 === session } }
            state.origins[key] = origin.sessions.isEmpty ? nil : origin
        }
    }

    /// Sessions held, over all keys.
    public var count: Int { state.withLock { $0.origins.values.reduce(0) { $0 + $1.sessions.count } } }

    /// Keys with at least one session.
    public var originCount: Int { state.withLock { $0.origins.count } }

    /// Releases every session (client shutdown).
    public func removeAll() {
        let released = state.withLock { state -> [TLSSessionKey: Origin] in
            defer { state.origins = [:] }
            return state.origins
        }
        _ = released  // freed here, outside the lock
    }
}
