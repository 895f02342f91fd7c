import CCourierOpenSSL

/// Why a stapled OCSP response (or its absence) failed a handshake. Recorded on the `SSL` by the
/// status callback (``OCSPStapling``) and turned into a typed ``TLSError`` by the engine.
///
/// Stored in the `SSL`'s ex_data as a small integer, not a pointer, so nothing needs freeing.
enum StapleVerdict: Int, Sendable {
    case missing = 1
    case missingForMustStaple
    case malformed
    case unsuccessful
    case signatureInvalid
    case issuerUnknown
    case leafNotCovered
    case outdated
    case revoked
    case unknown

    /// The typed reason the handshake fails with.
    var failure: CertificateVerificationFailure {
        switch self {
        case .missing, .missingForMustStaple: .staplingRequired
        case .malformed, .unsuccessful, .signatureInvalid, .issuerUnknown, .leafNotCovered, .outdated:
            .ocspResponseInvalid
        case .revoked: .revoked
        case .unknown: .revocationStatusUnknown
        }
    }

    var message: String {
        switch self {
        case .missing: "the server stapled no OCSP response, and one is required (RFC 6066 §8)"
        case .missingForMustStaple:
            "the certificate requires a stapled OCSP response (TLS feature status_request, RFC 7633 §4.2.3) and the server stapled none"
        case .malformed: "the stapled OCSP response is not a DER OCSPResponse (RFC 6960 §4.2.1)"
        case .unsuccessful: "the stapled OCSP response's status is not successful (RFC 6960 §4.2.1)"
        case .signatureInvalid:
            "the stapled OCSP response is not signed by the issuer or a responder it authorised (RFC 6960 §4.2.2.2)"
        case .issuerUnknown: "the issuer of the certificate is not in the verified chain, so its OCSP status cannot be checked"
        case .leafNotCovered: "the stapled OCSP response does not cover the server's certificate"
        case .outdated: "the stapled OCSP response is not current (thisUpdate/nextUpdate, RFC 6960 §4.2.2.1)"
        case .revoked: "the stapled OCSP response says the certificate is revoked (RFC 6960 §2.2)"
        case .unknown: "the stapled OCSP response says the certificate's status is unknown (RFC 6960 §2.2)"
        }
    }

    /// The ex_data slot of every `SSL` that holds a verdict (allocated once per process).
    private static let index: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil, nil)

    /// Records `verdict` on `ssl` (the status callback, on the engine's thread).
    static func record(_ verdict: StapleVerdict, on ssl: OpaquePointer) {
        _ = SSL_set_ex_data(ssl, index, UnsafeMutableRawPointer(bitPattern: verdict.rawValue))
    }

    /// The verdict recorded on `ssl`, if a staple check failed it.
    static func recorded(on ssl: OpaquePointer) -> StapleVerdict? {
        guard let stored = SSL_get_ex_data(ssl, index) else { return nil }
        return StapleVerdict(rawValue: Int(bitPattern: stored))
    }
}
