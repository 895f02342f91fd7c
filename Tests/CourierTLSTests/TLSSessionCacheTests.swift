import CCourierOpenSSL
import CourierCore
import Glibc
import Testing
@testable import CourierTLS

/// The session cache's bookkeeping with hand-made `SSL_SESSION`s (no handshake): the bounds,
/// single use for TLS 1.3, expiry, and release.
@Suite struct TLSSessionCacheTests {
    static let now = 1_000_000

    /// A resumable session (it has an id) of `version`, made at `now`, valid `lifetime` seconds.
    static func session(_ version: Int32, id: UInt8, lifetime: Int = 300) -> TLSSession {
        let pointer = SSL_SESSION_new()!
        var bytes = [UInt8](repeating: id, count: 32)
        _ = SSL_SESSION_set1_id(pointer, &bytes, 32)
        _ = SSL_SESSION_set_protocol_version(pointer, version)
        _ = SSL_SESSION_set_time(pointer, now)
        _ = SSL_SESSION_set_timeout(pointer, lifetime)
        return TLSSession(owning: pointer, peerChain: [], verifiedChain: [])
    }

    static func key(_ host: String, _ configuration: TLSConfiguration = .clientDefault) -> TLSSessionKey {
        TLSSessionKey(host: host, port: 443, serverName: host, configuration: configuration)
    }

    @Test func aTLS13SessionIsTakenOnceNewestFirst() {
        let cache = TLSSessionCache()
        let older = Self.session(TLS1_3_VERSION, id: 1)
        let newer = Self.session(TLS1_3_VERSION, id: 2)
        cache.store(older, for: Self.key("a"))
        cache.store(newer, for: Self.key("a"))
        #expect(cache.take(for: Self.key("a"), now: Self.now) === newer)
        #expect(cache.take(for: Self.key("a"), now: Self.now) === older)
        #expect(cache.take(for: Self.key("a"), now: Self.now) == nil)
        #expect(cache.originCount == 0)
    }

    @Test func aTLS12SessionResumesSeveralConnections() {
        let cache = TLSSessionCache()
        let session = Self.session(TLS1_2_VERSION, id: 1)
        #expect(!session.isSingleUse)
        cache.store(session, for: Self.key("a"))
        #expect(cache.take(for: Self.key("a"), now: Self.now) === session)
        #expect(cache.take(for: Self.key("a"), now: Self.now) === session)
        #expect(cache.count == 1)
    }

    @Test func keysDoNotShare() {
        let cache = TLSSessionCache()
        var strict = TLSConfiguration.clientDefault
        strict.minimumVersion = .tls1_3
        cache.store(Self.session(TLS1_3_VERSION, id: 1), for: Self.key("a"))
        #expect(cache.take(for: Self.key("a", strict), now: Self.now) == nil)
        #expect(cache.take(for: Self.key("b"), now: Self.now) == nil)
        #expect(cache.take(for: TLSSessionKey(host: "a", port: 8443, serverName: "a", configuration: .clientDefault), now: Self.now) == nil)
        #expect(cache.take(for: Self.key("a"), now: Self.now) != nil)
    }

    @Test func anExpiredSessionIsDropped() {
        let cache = TLSSessionCache()
        cache.store(Self.session(TLS1_2_VERSION, id: 1, lifetime: 10), for: Self.key("a"))
        #expect(cache.take(for: Self.key("a"), now: Self.now + 10) == nil)
        #expect(cache.count == 0)
    }

    @Test func anUnresumableSessionIsDropped() {
        let cache = TLSSessionCache()
        // No id and no ticket: OpenSSL cannot resume it.
        let pointer = SSL_SESSION_new()!
        _ = SSL_SESSION_set_time(pointer, Self.now)
        cache.store(TLSSession(owning: pointer, peerChain: [], verifiedChain: []), for: Self.key("a"))
        #expect(cache.take(for: Self.key("a"), now: Self.now) == nil)
        #expect(cache.count == 0)
    }

    @Test func sessionsPerOriginAreBoundedOldestFirst() {
        let cache = TLSSessionCache(limits: .init(sessionsPerOrigin: 2, origins: 4))
        let sessions = (1...3).map { Self.session(TLS1_3_VERSION, id: UInt8($0)) }
        for session in sessions { cache.store(session, for: Self.key("a")) }
        #expect(cache.count == 2)
        #expect(cache.take(for: Self.key("a"), now: Self.now) === sessions[2])
        #expect(cache.take(for: Self.key("a"), now: Self.now) === sessions[1])
        #expect(cache.take(for: Self.key("a"), now: Self.now) == nil)
    }

    @Test func originsAreBoundedLeastRecentlyStoredFirst() {
        let cache = TLSSessionCache(limits: .init(sessionsPerOrigin: 2, origins: 2))
        cache.store(Self.session(TLS1_2_VERSION, id: 1), for: Self.key("a"))
        cache.store(Self.session(TLS1_2_VERSION, id: 2), for: Self.key("b"))
        cache.store(Self.session(TLS1_2_VERSION, id: 3), for: Self.key("a"))
        // "b" was stored to least recently: "c" takes its place.
        cache.store(Self.session(TLS1_2_VERSION, id: 4), for: Self.key("c"))
        #expect(cache.originCount == 2)
        #expect(cache.take(for: Self.key("b"), now: Self.now) == nil)
        #expect(cache.take(for: Self.key("a"), now: Self.now) != nil)
        #expect(cache.take(for: Self.key("c"), now: Self.now) != nil)
    }

    @Test func removeForgetsTheGivenSessionsOnly() {
        let cache = TLSSessionCache()
        let kept = Self.session(TLS1_2_VERSION, id: 1)
        let failed = Self.session(TLS1_2_VERSION, id: 2)
        cache.store(kept, for: Self.key("a"))
        cache.store(failed, for: Self.key("a"))
        cache.remove([failed], for: Self.key("a"))
        #expect(cache.count == 1)
        #expect(cache.take(for: Self.key("a"), now: Self.now) === kept)
        cache.remove([kept], for: Self.key("a"))
        #expect(cache.originCount == 0)
    }

    @Test func removeAllReleasesEverySession() {
        let cache = TLSSessionCache()
        weak var released: TLSSession?
        do {
            let session = Self.session(TLS1_2_VERSION, id: 1)
            released = session
            cache.store(session, for: Self.key("a"))
        }
        #expect(released != nil)
        cache.removeAll()
        #expect(released == nil)
        #expect(cache.count == 0)
    }
}
