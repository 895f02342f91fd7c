import CCourierOpenSSL
import Glibc

/// A TLS session a server gave this client to resume later: a TLS 1.2 session ticket
/// (RFC 5077) or a TLS 1.3 pre-shared key from a NewSessionTicket (RFC 8446 §4.6.1), with the
/// certificate chains of the handshake that established it.
///
/// The chains are kept because a resumed handshake carries no certificate: OpenSSL reports no
/// verified chain for it (`SSL_get0_verified_chain` is empty), and a pinning evaluator must still
/// see the chain the session was verified with (``TLSConnectionInfo/verifiedChain``).
///
/// `@unchecked Sendable`: immutable after `init`. The `SSL_SESSION` is a copy no `SSL` uses: it is
/// only read (`SSL_SESSION_dup` before `SSL_set_session`, getters), so OpenSSL's marking of a
/// failed connection's session never reaches it; references are counted atomically.
public final class TLSSession: @unchecked Sendable {
    /// The `SSL_SESSION*`; this object owns one reference, released in `deinit`.
    let pointer: OpaquePointer
    /// The chain the server sent in the full handshake, leaf first.
    public let peerChain: [TLSCertificate]
    /// The chain OpenSSL verified in the full handshake, leaf first (empty without verification).
    public let verifiedChain: [TLSCertificate]
    /// The version the session belongs to.
    public let protocolVersion: TLSVersion?

    /// Takes over one reference to `pointer`.
    init(owning pointer: OpaquePointer, peerChain: [TLSCertificate], verifiedChain: [TLSCertificate]) {
        self.pointer = pointer
        self.peerChain = peerChain
        self.verifiedChain = verifiedChain
        self.protocolVersion = TLSVersion(openSSLValue: SSL_SESSION_get_protocol_version(pointer))
    }

    deinit { SSL_SESSION_free(pointer) }

    /// TLS 1.3 tickets are used once (RFC 8446 §C.4: reuse would let the connections be linked);
    /// a TLS 1.2 session may resume several connections, as curl and browsers do.
    public var isSingleUse: Bool { protocolVersion != .tls1_2 }

    /// Whether OpenSSL can resume it and its lifetime (the ticket's, or OpenSSL's session
    /// timeout) has not passed at `now` (seconds since the epoch).
    public func isResumable(now: Int = Int(time(nil))) -> Bool {
        guard SSL_SESSION_is_resumable(pointer) == 1 else { return false }
        let established = Int(SSL_SESSION_get_time(pointer))
        let lifetime = Int(SSL_SESSION_get_timeout(pointer))
        return now < established + lifetime
    }
}
