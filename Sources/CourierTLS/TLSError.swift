import CCourierOpenSSL

/// Why the peer's certificate was rejected, mapped from OpenSSL's verify result
/// (`SSL_get_verify_result`, the `X509_V_ERR_*` codes in `x509_vfy.h`).
public enum CertificateVerificationFailure: Sendable, Hashable {
    /// A certificate's notAfter is in the past (10).
    case expired
    /// A certificate's notBefore is in the future (9).
    case notYetValid
    /// No subjectAltName DNS entry matches the host name (62).
    case hostnameMismatch
    /// No subjectAltName IP entry matches the IP literal (64).
    case ipAddressMismatch
    /// The chain does not lead to a trusted root: an issuer could not be found (2, 20, 21).
    case untrustedRoot
    /// The leaf is self-signed and not trusted (18).
    case selfSigned
    /// The chain the peer sent ends in a self-signed root that is not trusted (19).
    case selfSignedInChain
    /// A certificate may not be used for this purpose (extended key usage) (26).
    case invalidPurpose
    /// The chain is longer than the verify depth allows (22).
    case chainTooLong
    /// A certificate has been revoked (23): listed in its issuer's CRL (RFC 5280 §5.3), or a
    /// stapled OCSP response says so (RFC 6960 §2.2). See ``RevocationPolicy``.
    case revoked
    /// A certificate's revocation status was needed and is not known: the stapled OCSP response
    /// says "unknown" (RFC 6960 §2.2), or no usable CRL from its issuer is configured (none, or
    /// expired, not yet valid, badly signed: RFC 5280 §6.3.3) (3, 6, 8, 11, 12).
    case revocationStatusUnknown
    /// No OCSP response was stapled (RFC 6066 §8) though one is required: by the configuration
    /// (``RevocationPolicy/requireStapledOCSP``) or by the certificate's must-staple TLS
    /// feature (RFC 7633 §4.2.3).
    case staplingRequired
    /// The stapled OCSP response cannot be relied on: not DER, not successful, not signed by the
    /// issuer or its delegated responder (RFC 6960 §4.2.2.2), not about this certificate, or not
    /// current (RFC 6960 §4.2.2.1). The error's message says which.
    case ocspResponseInvalid
    /// A signature in the chain does not verify (4, 7).
    case signatureFailure
    /// A certificate's public key is weaker than the security level allows: the leaf's (66) or
    /// a CA's (67). Courier's clients use OpenSSL security level 2 or higher, so RSA, DSA and DH
    /// keys below 2048 bits and elliptic-curve keys below 224 bits are refused.
    case weakKey
    /// A certificate is signed with a digest weaker than the security level allows (68), such
    /// as SHA-1 or MD5 (OpenSSL 3 rates a SHA-1 signature at 63 bits, below level 1's 80).
    case weakSignatureAlgorithm
    /// Any other verify error, with OpenSSL's code and text.
    case other(code: Int32, message: String)

    /// Maps an `X509_V_ERR_*` code.
    init(verifyResult code: Int32) {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: self = .expired
        case X509_V_ERR_CERT_NOT_YET_VALID: self = .notYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH: self = .hostnameMismatch
        case X509_V_ERR_IP_ADDRESS_MISMATCH: self = .ipAddressMismatch
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            self = .untrustedRoot
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT: self = .selfSigned
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN: self = .selfSignedInChain
        case X509_V_ERR_INVALID_PURPOSE: self = .invalidPurpose
        case X509_V_ERR_CERT_CHAIN_TOO_LONG: self = .chainTooLong
        case X509_V_ERR_CERT_REVOKED: self = .revoked
        case X509_V_ERR_UNABLE_TO_GET_CRL, X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE, X509_V_ERR_CRL_SIGNATURE_FAILURE,
            X509_V_ERR_CRL_NOT_YET_VALID, X509_V_ERR_CRL_HAS_EXPIRED:
            self = .revocationStatusUnknown
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE:
            self = .signatureFailure
        case X509_V_ERR_EE_KEY_TOO_SMALL, X509_V_ERR_CA_KEY_TOO_SMALL: self = .weakKey
        case X509_V_ERR_CA_MD_TOO_WEAK: self = .weakSignatureAlgorithm
        default: self = .other(code: code, message: verifyErrorString(code))
        }
    }
}

/// OpenSSL's text for an `X509_V_ERR_*` code.
func verifyErrorString(_ code: Int32) -> String {
    String(cString: X509_verify_cert_error_string(Int(code)))
}

/// A TLS failure: a typed reason, the text OpenSSL's error queue held, and, when the peer ended
/// the session with an alert, that alert's code.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The peer's certificate was rejected.
        case certificateVerificationFailed(CertificateVerificationFailure)
        /// The peer closed the connection after the handshake without sending close_notify
        /// (RFC 8446 §6.1): the data may be truncated. Whether that matters is for the framing
        /// layer to decide (a Content-Length or chunked body detects truncation itself).
        case unexpectedEOF
        /// The handshake failed for a reason other than certificate verification: no shared
        /// version or cipher, an alert from the peer, a missing client certificate, ...
        case handshakeFailed
        /// The peer sent something that violates the protocol after the handshake, or an alert.
        case protocolError
        /// The configuration cannot be used: unreadable file, bad certificate or key, key and
        /// certificate that do not match.
        case configuration
        /// The two sides share no protocol version: one side's minimum is above the other's
        /// maximum. Raised locally, or on the peer's protocol_version alert (70, RFC 8446 §6.2).
        case protocolVersionMismatch
        /// The server selected an ALPN protocol the client did not offer (RFC 7301 §3.2).
        case alpnMismatch
        /// The peer closed the connection before the handshake finished.
        case peerClosedDuringHandshake
        /// The engine was used out of order: data before the handshake completed, a write after
        /// `close()`.
        case invalidState
    }

    public var reason: Reason
    /// The OpenSSL error queue's text, or a description of the failure.
    public var message: String
    /// The TLS alert description the peer sent (RFC 8446 §6), when an alert caused the failure.
    public var peerAlert: UInt8?

    public init(_ reason: Reason, message: String, peerAlert: UInt8? = nil) {
        self.reason = reason
        self.message = message
        self.peerAlert = peerAlert
    }

    public var description: String {
        var text = "TLSError.\(reason)"
        if let peerAlert { text += " (peer alert \(peerAlert))" }
        if !message.isEmpty { text += ": \(message)" }
        return text
    }
}
