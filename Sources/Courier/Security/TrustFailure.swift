
/// Why a ``SecurityPolicy`` rejected a server: the typed reason behind
/// `CourierError.Code.serverTrustRejected`. Its description names the host and what the server
/// presented (subjects, or pins in `sha256/…` form), so a wrong pin set can be fixed from the
/// message alone.
public enum TrustFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Certificate pinning: no certificate considered (the verified chain, leaf first; only the
    /// leaf when invalid certificates are allowed) is one of the pinned certificates.
    case noPinnedCertificateInChain(host: String, chainSubjects: [String])
    /// Certificate pinning by fingerprint only: no certificate considered has a pinned SHA-256
    /// fingerprint. `seenFingerprints` are theirs, leaf first, as colon-separated hex pairs.
    case noPinnedFingerprintInChain(host: String, seenFingerprints: [String])
    /// Public-key pinning: no certificate considered carries a pinned key. `seenPins` are the
    /// base64 SPKI SHA-256 digests of the certificates considered, leaf first.
    case noPinnedPublicKeyInChain(host: String, seenPins: [String])
    /// The leaf certificate does not name the host (RFC 6125 §6), checked by the policy itself.
    case hostnameMismatch(host: String, certificateSubject: String)
    /// The connection's chain was not verified (its TLS configuration had verification `.none`)
    /// but the policy does not allow invalid certificates: the request was not made with the
    /// policy's ``SecurityPolicy/tlsConfiguration(base:)``.
    case chainNotVerified(host: String)
    /// The server presented no certificate.
    case noCertificate(host: String)
    /// OpenSSL rejected the chain during the handshake (expired, untrusted root, wrong name, …).
    /// The host is known only when the caller passed it to
    /// ``SecurityPolicy/courierError(from:host:)``.
    case certificateVerificationFailed(host: String?, CertificateVerificationFailure)

    /// The host the failure is about, when known.
    public var host: String? {
        switch self {
        case .noPinnedCertificateInChain(let host, _), .noPinnedFingerprintInChain(let host, _), .noPinnedPublicKeyInChain(let host, _),
            .hostnameMismatch(let host, _), .chainNotVerified(let host), .noCertificate(let host):
            host
        case .certificateVerificationFailed(let host, _):
            host
        }
    }

    public var description: String {
        switch self {
        case .noPinnedCertificateInChain(let host, let subjects):
            let chain = subjects.isEmpty ? "no certificates" : subjects.joined(separator: ", ")
            return "no pinned certificate in the chain of \(host); the chain (leaf first): \(chain)"
        case .noPinnedFingerprintInChain(let host, let fingerprints):
            let seen = fingerprints.isEmpty ? "none" : fingerprints.joined(separator: ", ")
            return "no pinned certificate fingerprint in the chain of \(host); its SHA-256 fingerprints (leaf first): \(seen)"
        case .noPinnedPublicKeyInChain(let host, let pins):
            let seen = pins.isEmpty ? "none" : pins.map { PublicKeyPin.prefix + $0 }.joined(separator: ", ")
            return "no pinned public key in the chain of \(host); its keys (leaf first): \(seen)"
        case .hostnameMismatch(let host, let subject):
            return "the certificate \(subject) does not name \(host)"
        case .chainNotVerified(let host):
            return "the chain of \(host) was not verified, and the security policy does not allow invalid certificates (was the request made with the policy's TLS configuration?)"
        case .noCertificate(let host):
            return "\(host) presented no certificate"
        case .certificateVerificationFailed(let host, let failure):
            return "the certificate of \(host ?? "the server") failed verification: \(failure)"
        }
    }
}
