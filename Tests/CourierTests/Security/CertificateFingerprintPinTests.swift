import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// Certificate pins given as SHA-256 fingerprints: which text forms are read, which are refused,
/// how a policy built from them configures TLS. No sockets (the HTTPS matrix is in
/// `PinningMatrixTests`).
@Suite struct CertificateFingerprintPinTests {
    typealias H = PinningHarness

    /// valid.pem's fingerprint as `openssl x509 -noout -fingerprint -sha256` prints it, and the
    /// base64 of the same digest (`openssl x509 -outform der | openssl dgst -sha256 -binary | base64`).
    static let validHex = "88:00:81:C7:67:6C:06:24:13:E3:C9:DA:5F:29:31:AC:45:40:8C:BF:06:03:B2:39:55:24:9A:02:07:E8:CE:DE"
    static let validBase64 = "iACBx2dsBiQT48naXykxrEVAjL8GA7I5VSSaAgfozt4="

    /// 64 bare digits.
    static let validBare: String = validHex.filter { $0 != ":" }

    /// `text` with `old` replaced by `new` (FoundationEssentials has no replacingOccurrences).
    static func edit(_ text: String, _ old: String, _ new: String) -> String {
        text.replacing(old, with: new)
    }

    static func digest(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8.filter { $0 != UInt8(ascii: ":") })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static let acceptedForms: [String] = [
        validHex,
        validHex.lowercased(),
        validBare,
        validBare.lowercased(),
        "sha256/" + validBase64,
        "SHA256/" + validBase64,
        "  \(validHex)\n",
    ]

    static let refusedForms: [String] = [
        "",
        String(validBare.dropLast()),  // 63 digits
        validBare + "00",  // 33 bytes
        String(validHex.dropLast(3)),  // 31 pairs
        validHex + ":",  // trailing colon
        ":" + validHex,  // leading colon
        edit(validHex, "88:00:", "88::00:"),  // doubled colon
        edit(validHex, "88:00:81", "8:800:81"),  // pairs split unevenly
        edit(validHex, "88:00:81", "8800:81"),  // separators in some places only
        edit(validHex, "88", "G8"),  // not hex
        edit(validHex, ":", " "),  // other separators
        "sha1/" + validBase64,
        validBase64,  // base64 only with its sha256/ prefix
        "sha256/" + Data(repeating: 1, count: 20).base64EncodedString(),  // a 20-byte digest
        "sha256/not base64",
        "sha256 Fingerprint=" + validHex,
    ]

    static func isInvalidPolicy(_ error: any Error) -> Bool {
        (error as? CourierError)?.code == .invalidSecurityPolicy
    }

    @Test func theFingerprintOfACertificateIsWhatOpenSSLPrints() throws {
        let leaf = try H.certificate("valid.pem")
        #expect(SecurityPolicy.certificateFingerprint(of: leaf) == Self.validHex)
        #expect(leaf.sha256Fingerprint == Self.digest(Self.validHex))
        // The public helper is re-exported by Courier and hashes any bytes.
        #expect(TLSCertificate.sha256(leaf.der) == leaf.sha256Fingerprint)
        #expect(try TLSCertificate.spkiSHA256(certificateDER: leaf.der) == leaf.spkiSHA256)
    }

    @Test(arguments: acceptedForms)
    func aFingerprintIsReadInEveryAcceptedForm(_ text: String) throws {
        let policy = try SecurityPolicy(certificateFingerprints: [text])
        #expect(policy.pinningMode == .certificate)
        #expect(policy.pinnedCertificateFingerprints == [Self.digest(Self.validHex)])
        #expect(policy.pinnedCertificates.isEmpty)
    }

    @Test(arguments: refusedForms)
    func aMalformedFingerprintIsRefused(_ text: String) {
        #expect { try SecurityPolicy(certificateFingerprints: [text]) } throws: { Self.isInvalidPolicy($0) }
    }

    @Test func anEmptyFingerprintListIsRefused() throws {
        #expect { try SecurityPolicy(certificateFingerprints: []) } throws: { Self.isInvalidPolicy($0) }
        var policy = try SecurityPolicy(certificateFingerprints: [Self.validHex])
        #expect { try policy.setPinnedCertificateFingerprints([]) } throws: { Self.isInvalidPolicy($0) }
        #expect(policy.pinnedCertificateFingerprints.count == 1, "a refused change leaves the policy as it was")
        // With a pinned certificate as well, the fingerprints may go.
        var both = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("ca.pem")])
        try both.setPinnedCertificateFingerprints([Self.validHex])
        #expect(both.pinnedCertificateFingerprints.count == 1 && both.pinnedCertificates.count == 1)
        try both.setPinnedCertificateFingerprints([])
        #expect(both.pinnedCertificateFingerprints.isEmpty)
    }

    @Test func fingerprintsAreNotTrustAnchorsButPartitionThePool() throws {
        let policy = try SecurityPolicy(certificateFingerprints: [Self.validHex])
        let tls = policy.tlsConfiguration(base: H.base)
        #expect(tls.trustRoots == H.base.trustRoots, "no certificate to add as an anchor")
        #expect(tls.verification == .full)
        #expect(tls.poolPartition != nil)
        let other = try SecurityPolicy(certificateFingerprints: ["sha256/" + Data(repeating: 7, count: 32).base64EncodedString()])
        #expect(other.tlsConfiguration(base: H.base).poolPartition != tls.poolPartition)
        // allowInvalidCertificates: verification off, the policy judges the leaf.
        let lenient = try SecurityPolicy(certificateFingerprints: [Self.validHex], allowInvalidCertificates: true)
        #expect(lenient.tlsConfiguration(base: H.base).verification == .none)
    }

    @Test func theFailureNamesTheChainsFingerprints() {
        let failure = TrustFailure.noPinnedFingerprintInChain(host: "example.com", seenFingerprints: [Self.validHex])
        #expect(failure.host == "example.com")
        #expect("\(failure)".contains(Self.validHex), "\(failure)")
    }
}
