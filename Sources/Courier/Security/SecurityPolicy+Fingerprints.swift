import CourierClient
import FoundationEssentials

extension SecurityPolicy {
    /// A certificate-pinning policy from SHA-256 certificate fingerprints in text form: 64 hex
    /// digits, bare or as colon-separated pairs (`openssl x509 -noout -fingerprint -sha256`), or
    /// `sha256/` and the base64 of the digest. Some certificate of the chain (the verified chain;
    /// only the leaf with `allowInvalidCertificates`) must have one of these fingerprints.
    ///
    /// A fingerprint is not a trust anchor (there is no certificate to trust): the chain must
    /// verify against the configured roots, unless `allowInvalidCertificates` is set. To pin a
    /// self-signed certificate or a private CA without that, pin the certificate itself
    /// (``init(pinningMode:pinnedCertificates:allowInvalidCertificates:validatesDomainName:pinsExpire:)``).
    ///
    /// - Throws: `CourierError(.invalidSecurityPolicy)` for a malformed fingerprint or an empty list.
    public init(
        certificateFingerprints: [String], allowInvalidCertificates: Bool = false, validatesDomainName: Bool = true,
        pinsExpire: Date? = nil
    ) throws(CourierError) {
        self.init(
            unchecked: .certificate, certificates: [], fingerprints: try Self.parseFingerprints(certificateFingerprints),
            hashes: [], backups: [], allowInvalid: allowInvalidCertificates, validatesDomainName: validatesDomainName,
            expires: pinsExpire)
        try check()
    }

    /// A certificate's SHA-256 fingerprint in text form, upper-case hex pairs separated by
    /// colons (as OpenSSL prints it), for writing a fingerprint pin set.
    public static func certificateFingerprint(of certificate: TLSCertificate) -> String {
        CertificateFingerprint.string(certificate.sha256Fingerprint)
    }

    /// Whether `certificate` is pinned in ``SSLPinningMode/certificate`` mode: one of
    /// ``pinnedCertificates``, or its fingerprint is one of ``pinnedCertificateFingerprints``.
    func pins(_ certificate: TLSCertificate) -> Bool {
        if pinnedCertificates.contains(certificate) { return true }
        return !pinnedCertificateFingerprints.isEmpty && pinnedCertificateFingerprints.contains(certificate.sha256Fingerprint)
    }

    static func parseFingerprints(_ texts: [String]) throws(CourierError) -> Set<[UInt8]> {
        var digests = Set<[UInt8]>()
        for text in texts { digests.insert(try CertificateFingerprint.parse(text)) }
        return digests
    }
}
