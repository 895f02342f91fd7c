import CCourierOpenSSL

/// The check of a stapled OCSP response (RFC 6066 §8, RFC 6960), run by the client's status
/// callback once the server's certificate chain has been verified and before the handshake
/// completes.
enum OCSPStapling {
    /// A response without nextUpdate is accepted this long after its thisUpdate.
    static let maximumAgeWithoutNextUpdate = 86_400

    /// Judges the staple of `ssl` (a client session whose chain OpenSSL has verified). Returns nil
    /// to accept the handshake, or why it must fail.
    ///
    /// - `required`: a good staple is needed even if the leaf does not demand one.
    static func verdict(for ssl: OpaquePointer, required: Bool, clockSkewSeconds: Int) -> StapleVerdict? {
        guard let leaf = SSL_get0_peer_certificate(ssl) else { return nil }
        let mustStaple = MustStaple.isRequired(by: leaf)
        guard required || mustStaple else { return nil }
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        // SSL_get_tlsext_status_ocsp_resp: the staple's length, or -1 when none was sent.
        let length = withUnsafeMutablePointer(to: &bytes) {
            SSL_ctrl(ssl, SSL_CTRL_GET_TLSEXT_STATUS_REQ_OCSP_RESP, 0, UnsafeMutableRawPointer($0))
        }
        guard let bytes, length > 0 else { return mustStaple ? .missingForMustStaple : .missing }
        return judge(UnsafePointer(bytes), length: length, ssl: ssl, leaf: leaf, clockSkewSeconds: clockSkewSeconds)
    }

    /// Decodes and checks a DER OCSPResponse. `bytes` is the session's copy, valid during the call.
    private static func judge(
        _ bytes: UnsafePointer<UInt8>, length: Int, ssl: OpaquePointer, leaf: OpaquePointer, clockSkewSeconds: Int
    ) -> StapleVerdict? {
        var cursor: UnsafePointer<UInt8>? = bytes
        guard let response = d2i_OCSP_RESPONSE(nil, &cursor, length) else { return .malformed }
        defer { OCSP_RESPONSE_free(response) }
        // Trailing bytes after the DER structure are not a valid response either.
        guard cursor == bytes + length else { return .malformed }
        guard OCSP_response_status(response) == OCSP_RESPONSE_STATUS_SUCCESSFUL else { return .unsuccessful }
        guard let basic = OCSP_response_get1_basic(response) else { return .malformed }
        defer { OCSP_BASICRESP_free(basic) }

        // The issuer is the second certificate of the chain OpenSSL verified.
        guard let chain = SSL_get0_verified_chain(ssl), OPENSSL_sk_num(chain) >= 2,
            let issuerPointer = OPENSSL_sk_value(chain, 1)
        else { return .issuerUnknown }
        let issuer = OpaquePointer(issuerPointer)

        // RFC 6960 §4.2.2.2: signed by the issuer itself or by a certificate the issuer gave the
        // id-kp-OCSPSigning purpose; OCSP_basic_verify checks both, and the signer's chain against
        // the context's trust store (the verified chain supplies the intermediates).
        guard let store = SSL_CTX_get_cert_store(SSL_get_SSL_CTX(ssl)),
            OCSP_basic_verify(basic, chain, store, 0) == 1
        else { return .signatureInvalid }

        // The response must speak about this leaf (issuer name and key hash plus serial,
        // RFC 6960 §4.1.1; SHA-1, as RFC 5019 §2.1.1 has responders expect).
        guard let id = OCSP_cert_to_id(nil, leaf, issuer) else { return .leafNotCovered }
        defer { OCSP_CERTID_free(id) }
        var status: Int32 = -1
        var reason: Int32 = -1
        var revokedAt: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        guard OCSP_resp_find_status(basic, id, &status, &reason, &revokedAt, &thisUpdate, &nextUpdate) == 1 else {
            return .leafNotCovered
        }
        let maximumAge = nextUpdate == nil ? maximumAgeWithoutNextUpdate : -1
        guard OCSP_check_validity(thisUpdate, nextUpdate, clockSkewSeconds, maximumAge) == 1 else { return .outdated }
        switch status {
        case V_OCSP_CERTSTATUS_GOOD: return nil
        case V_OCSP_CERTSTATUS_REVOKED: return .revoked
        default: return .unknown
        }
    }
}
