import Courier
import Testing

/// `SecurityPolicy.revocation`: what it adds to a request's TLS settings (the handshake itself is
/// tested against nginx in NginxStaplingTests and over the transport in CourierClientTests).
@Suite struct SecurityPolicyRevocationTests {
    @Test func theDefaultPolicyLeavesTheRequestsRevocationSettingsAlone() {
        var base = TLSConfiguration()
        base.revocation = RevocationPolicy(crlFiles: ["base.crl"])
        #expect(SecurityPolicy.default.revocation == .default)
        #expect(SecurityPolicy.default.tlsConfiguration(base: base).revocation == base.revocation)
        #expect(SecurityPolicy.default.tlsConfiguration(base: TLSConfiguration()).revocation == .default)
    }

    @Test func aPolicysRevocationIsAddedAndNeverWeakensTheRequests() throws {
        var policy = try SecurityPolicy(publicKeyPins: ["sha256/" + String(repeating: "A", count: 43) + "="])
        try policy.setRevocation(RevocationPolicy(requireStapledOCSP: true))
        var base = TLSConfiguration()
        base.revocation = RevocationPolicy(crlFiles: ["base.crl"], crlScope: .wholeChain)
        let applied = policy.tlsConfiguration(base: base).revocation
        #expect(applied.requireStapledOCSP)
        #expect(applied.crlFiles == ["base.crl"])
        #expect(applied.crlScope == .wholeChain)
        // A policy asking less does not remove what the request asks.
        var lenient = policy
        try lenient.setRevocation(.default)
        #expect(lenient.tlsConfiguration(base: base).revocation == base.revocation)
        // Revocation is part of the policy's identity (tables and pool keys tell them apart).
        #expect(lenient != policy)
    }

    @Test func revocationAndInvalidCertificatesCannotBeCombined() throws {
        // With invalid certificates allowed the chain is not verified, so a revocation check
        // could never run: the combination is refused whichever is set first.
        let pin = "sha256/" + String(repeating: "A", count: 43) + "="
        var lenient = try SecurityPolicy(publicKeyPins: [pin], allowInvalidCertificates: true)
        #expect(throws: CourierError.self) { try lenient.setRevocation(RevocationPolicy(requireStapledOCSP: true)) }
        #expect(lenient.revocation == .default, "a refused change leaves the policy as it was")
        var checking = try SecurityPolicy(publicKeyPins: [pin])
        try checking.setRevocation(RevocationPolicy(crlFiles: ["x.crl"]))
        #expect(throws: CourierError.self) { try checking.setAllowInvalidCertificates(true) }
        #expect(!checking.allowInvalidCertificates)
    }
}
