/// What a completed handshake negotiated, and the peer's certificates.
public struct TLSConnectionInfo: Sendable, Hashable {
    /// The protocol version as OpenSSL names it: "TLSv1.2" or "TLSv1.3".
    public var version: String
    /// The negotiated version, typed.
    public var negotiatedVersion: TLSVersion?
    /// The cipher suite's OpenSSL name, e.g. "TLS_AES_256_GCM_SHA384".
    public var cipher: String
    /// The ALPN protocol the server selected, or nil when it selected none.
    public var alpn: String?
    /// The certificates the peer sent, leaf first, in the order sent (on both sides the leaf is
    /// included). Empty when the peer sent none.
    public var peerChain: [TLSCertificate]
    /// The chain OpenSSL built and verified, leaf first, ending at the trust anchor. Empty when
    /// verification was off (`.none`) or did not run.
    public var verifiedChain: [TLSCertificate]
    /// On the server side, the SNI host name the client sent; on the client side, the one sent.
    public var serverName: String?
    /// Whether the handshake resumed an earlier session (a TLS 1.2 ticket or a TLS 1.3 PSK)
    /// instead of a full handshake. The chains are then those of the session's full handshake.
    public var sessionReused: Bool = false
}
