import CCourierOpenSSL

/// The TLS feature extension of a certificate (RFC 7633 §4.1), read for must-staple.
enum MustStaple {
    /// `status_request` (RFC 6066 §8) and `status_request_v2` (RFC 6961) as TLS feature values.
    static let statusRequest: Int = 5
    static let statusRequestV2: Int = 17

    /// Whether `certificate` (an `X509*`, borrowed) demands a stapled OCSP response: its TLS
    /// feature extension lists `status_request` or `status_request_v2` (RFC 7633 §4.2.3; the
    /// client asks for `status_request`, which a server supporting v2 also answers). An
    /// extension that is present but cannot be decoded counts as a demand: failing closed is
    /// the safe reading of an extension whose whole purpose is to forbid leniency.
    static func isRequired(by certificate: OpaquePointer) -> Bool {
        guard X509_get_ext_by_NID(certificate, NID_tlsfeature, -1) >= 0 else { return false }
        var critical: Int32 = 0
        guard let decoded = X509_get_ext_d2i(certificate, NID_tlsfeature, &critical, nil) else { return true }
        // A TLS_FEATURE is a STACK_OF(ASN1_INTEGER).
        let features = OpaquePointer(decoded)
        defer { TLS_FEATURE_free(features) }
        for index in 0..<OPENSSL_sk_num(features) {
            guard let value = OPENSSL_sk_value(features, index) else { continue }
            let feature = ASN1_INTEGER_get(value.assumingMemoryBound(to: ASN1_INTEGER.self))
            if feature == statusRequest || feature == statusRequestV2 { return true }
        }
        return false
    }
}
