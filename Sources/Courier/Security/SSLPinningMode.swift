/// What a ``SecurityPolicy`` pins a server to, on top of chain and name validation
/// (AFNetworking's `AFSSLPinningMode`).
public enum SSLPinningMode: String, Sendable, Hashable, CaseIterable {
    /// No pinning: the chain and the name decide (per the policy's other settings).
    case none
    /// Some certificate of the server's chain must be byte-for-byte (DER) one of the pinned
    /// certificates, or have one of the pinned SHA-256 fingerprints. The pinned certificates
    /// (not fingerprints) are also trust anchors, so a pinned self-signed certificate or private
    /// CA works without ``SecurityPolicy/allowInvalidCertificates``.
    case certificate
    /// Some certificate of the server's chain must carry a pinned public key: the SHA-256 of its
    /// SubjectPublicKeyInfo is in the pin set (RFC 7469 §2.4). Survives certificate renewal with
    /// the same key.
    case publicKey
}
