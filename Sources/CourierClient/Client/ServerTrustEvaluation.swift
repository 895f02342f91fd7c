import CourierTLS

/// What a trust evaluator sees once OpenSSL has verified a server (or skipped verification,
/// when configured so): the host asked for and everything the handshake produced.
public struct ServerTrustContext: Sendable {
    /// The host name or IP literal of the origin (not of a proxy).
    public let host: String
    public let port: Int
    /// Version, cipher, ALPN, and the peer chain as sent and as verified, each certificate with
    /// its DER and SPKI SHA-256 (what certificate and public-key pinning compare).
    public let connection: TLSConnectionInfo
}

/// A decision on a server's identity, made after the TLS handshake and before any request byte
/// is sent on the connection — the hook a pinning policy (the `Courier` layer's
/// `SecurityPolicy`) plugs into. Called on an event loop: keep it quick and non-blocking.
///
/// Returning false fails the connection's waiting requests in the `tls` phase with
/// `ClientError.Code.serverTrustRejected`; the connection is closed and never pooled. Throwing
/// does the same and says why: the thrown error becomes the `ClientError`'s `cause` (a pinning
/// policy throws its typed reason). A closure that neither throws nor is marked `throws` still
/// converts to this type.
public typealias ServerTrustEvaluator = @Sendable (ServerTrustContext) throws -> Bool
