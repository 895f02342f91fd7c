import Courier
import CourierClient
import CourierTestSupport
import CourierTLS
import FoundationEssentials
import Testing

/// The pinning accept/reject matrix: `HTTPClient` against loopback TLS servers, with the table's
/// evaluator installed and each request prepared by `apply(to:base:)`.
@Suite(.serialized) struct PinningMatrixTests {
    typealias H = PinningHarness

    static func table(_ policy: SecurityPolicy) -> SecurityPolicyTable { SecurityPolicyTable(default: policy) }

    static func expectAccepted(_ outcome: H.Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.succeeded, "\(String(describing: outcome.error))", sourceLocation: sourceLocation)
    }

    /// The request failed before any byte was sent, as a trust decision, with this reason.
    static func expectRejected(
        _ outcome: H.Outcome, _ reason: TrustFailure, _ server: ScriptedServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.status == nil, sourceLocation: sourceLocation)
        #expect(!outcome.sentHead, "a request byte was sent", sourceLocation: sourceLocation)
        #expect(server.requests.isEmpty, sourceLocation: sourceLocation)
        #expect(outcome.trustFailure == reason, "\(String(describing: outcome.error))", sourceLocation: sourceLocation)
        if let error = outcome.error {
            let mapped = SecurityPolicy.courierError(from: error, host: "localhost")
            #expect(mapped?.code == .serverTrustRejected, sourceLocation: sourceLocation)
            #expect(mapped?.phase == .trust, sourceLocation: sourceLocation)
        }
    }

    static let validSubjects = ["/CN=localhost", "/CN=Courier Test Intermediate", "/CN=Courier Test Root"]

    // MARK: Certificate pinning

    @Test(arguments: [("valid.pem", 0), ("intermediate.pem", 0), ("ca.pem", 0)])
    func certificateModeAcceptsAnyPinnedCertificateOfTheChain(_ pinned: String, _ index: Int) throws {
        let policy = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate(pinned, index)])
        let table = Self.table(policy)
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
    }

    @Test func certificateModeRejectsAChainWithoutThePin() throws {
        let table = Self.table(try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")]))
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .noPinnedCertificateInChain(host: "localhost", chainSubjects: Self.validSubjects), server)
            #expect(outcome.error?.code == .serverTrustRejected)
            #expect(outcome.error?.phase == .tls)
            let text = "\(try #require(outcome.trustFailure))"
            #expect(text.contains("localhost") && text.contains("/CN=Courier Test Intermediate"), "\(text)")
        }
    }

    @Test func aPinnedSelfSignedCertificateIsItsOwnAnchor() throws {
        // AFNetworking's anchors: no need to allow invalid certificates for a pinned self-signed server.
        let table = Self.table(try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")]))
        try H.withServer("selfsigned.pem", "selfsigned.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
        // Without the pin, the same server is refused by the handshake.
        try H.withServer("selfsigned.pem", "selfsigned.key", table: Self.table(.default)) { client, server in
            let outcome = try H.fetch(client, Self.table(.default), "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .certificateVerificationFailed(host: "localhost", .selfSigned), server)
        }
    }

    @Test func aPinnedLeafOfAnUntrustedCAIsAnAnchor() throws {
        let table = Self.table(try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("untrusted.pem")]))
        try H.withServer("untrusted-chain.pem", "untrusted.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
    }

    // MARK: Certificate pinning by SHA-256 fingerprint

    /// A matrix certificate's fingerprint in one of the accepted text forms.
    static func fingerprint(_ name: String, _ index: Int = 0, form: Int = 0) throws -> String {
        let colons = SecurityPolicy.certificateFingerprint(of: try H.certificate(name, index))
        switch form {
        case 0: return colons
        case 1: return colons.filter { $0 != ":" }.lowercased()
        default: return "sha256/" + Data(try H.certificate(name, index).sha256Fingerprint).base64EncodedString()
        }
    }

    @Test(arguments: [("valid.pem", 0), ("intermediate.pem", 1), ("ca.pem", 2)])
    func fingerprintsAcceptAnyCertificateOfTheChain(_ pinned: String, _ form: Int) throws {
        let table = Self.table(try SecurityPolicy(certificateFingerprints: [Self.fingerprint(pinned, form: form)]))
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
    }

    @Test func aWrongFingerprintIsRejectedWithTheChainsFingerprints() throws {
        let table = Self.table(try SecurityPolicy(certificateFingerprints: [Self.fingerprint("selfsigned.pem")]))
        let seen = try ["valid.pem", "intermediate.pem", "ca.pem"].map { try Self.fingerprint($0) }
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .noPinnedFingerprintInChain(host: "localhost", seenFingerprints: seen), server)
            let text = "\(try #require(outcome.trustFailure))"
            for fingerprint in seen { #expect(text.contains(fingerprint), "\(text)") }
        }
    }

    @Test func aFingerprintIsNotATrustAnchor() throws {
        // Unlike a pinned certificate, a fingerprint does not make a self-signed chain valid.
        let table = Self.table(try SecurityPolicy(certificateFingerprints: [Self.fingerprint("selfsigned.pem")]))
        try H.withServer("selfsigned.pem", "selfsigned.key", table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .certificateVerificationFailed(host: "localhost", .selfSigned), server)
        }
    }

    @Test func allowInvalidWithAFingerprintJudgesTheLeafOnly() throws {
        let selfSigned = Self.table(try SecurityPolicy(
            certificateFingerprints: [Self.fingerprint("selfsigned.pem", form: 2)], allowInvalidCertificates: true))
        try H.withServer("selfsigned.pem", "selfsigned.key", table: selfSigned) { client, server in
            Self.expectAccepted(try H.fetch(client, selfSigned, "\(server.baseURL)/hello"))
        }
        // A forged chain: an untrusted leaf followed by the pinned (public) intermediate.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let chain = try scratch.write("forged-chain.pem", Array(
            (TestFiles.text(at: TestCertificates.path("untrusted.pem"))! + TestFiles.text(at: TestCertificates.path("intermediate.pem"))!).utf8))
        let forged = Self.table(try SecurityPolicy(
            certificateFingerprints: [Self.fingerprint("intermediate.pem")], allowInvalidCertificates: true))
        try H.withServer(chain, TestCertificates.path("untrusted.key"), table: forged) { client, server in
            let outcome = try H.fetch(client, forged, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .noPinnedFingerprintInChain(
                host: "localhost", seenFingerprints: [try Self.fingerprint("untrusted.pem")]), server)
        }
    }

    @Test func certificatesAndFingerprintsPinTogether() throws {
        var policy = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")])
        try policy.setPinnedCertificateFingerprints([Self.fingerprint("intermediate.pem")])
        let table = Self.table(policy)
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
        // Neither matches: the failure names the chain's subjects, as for certificate pins.
        var neither = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")])
        try neither.setPinnedCertificateFingerprints([Self.fingerprint("other-ca.pem")])
        let refusing = Self.table(neither)
        try H.withServer("valid-chain.pem", "valid.key", table: refusing) { client, server in
            let outcome = try H.fetch(client, refusing, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .noPinnedCertificateInChain(host: "localhost", chainSubjects: Self.validSubjects), server)
        }
    }

    // MARK: Public-key pinning

    @Test(arguments: [("valid.pem", 0), ("intermediate.pem", 0), ("ca.pem", 0)])
    func publicKeyModeAcceptsAnyPinnedKeyOfTheChain(_ pinned: String, _ index: Int) throws {
        let table = Self.table(try SecurityPolicy(publicKeyPins: [H.pin(pinned, index)]))
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
    }

    @Test func aBackupPinAloneIsEnough() throws {
        let policy = try SecurityPolicy(publicKeyPins: [H.pin("other-ca.pem")], backupPins: [H.pin("valid.pem")])
        #expect(policy.backupPublicKeyHashes == [try H.certificate("valid.pem").spkiSHA256])
        let table = Self.table(policy)
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
    }

    @Test func wrongPinsAreRejectedWithTheKeysTheServerHas() throws {
        let table = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("other-ca.pem")], backupPins: [H.pin("selfsigned.pem")]))
        let seen = try ["valid.pem", "intermediate.pem", "ca.pem"].map { try H.pin($0) }
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            let bare = seen.map { String($0.dropFirst("sha256/".count)) }
            Self.expectRejected(outcome, .noPinnedPublicKeyInChain(host: "localhost", seenPins: bare), server)
            // The message lists the server's keys in the form a pin set is written in.
            let text = "\(try #require(outcome.trustFailure))"
            for pin in seen { #expect(text.contains(pin), "\(text)") }
        }
    }

    @Test func publicKeyPinningDoesNotMakeASelfSignedChainValid() throws {
        let table = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("selfsigned.pem")]))
        try H.withServer("selfsigned.pem", "selfsigned.key", table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .certificateVerificationFailed(host: "localhost", .selfSigned), server)
        }
    }

    // MARK: Allowing invalid certificates

    @Test func allowInvalidWithPinsAcceptsAPinnedSelfSignedServer() throws {
        let byCertificate = try SecurityPolicy(
            pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")], allowInvalidCertificates: true)
        let byKey = try SecurityPolicy(publicKeyPins: [H.pin("selfsigned.pem")], allowInvalidCertificates: true)
        for policy in [byCertificate, byKey] {
            let table = Self.table(policy)
            try H.withServer("selfsigned.pem", "selfsigned.key", table: table) { client, server in
                Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
            }
        }
    }

    @Test func allowInvalidStillRequiresThePin() throws {
        let table = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("valid.pem")], allowInvalidCertificates: true))
        try H.withServer("selfsigned.pem", "selfsigned.key", table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .noPinnedPublicKeyInChain(host: "localhost", seenPins: [
                String(try H.pin("selfsigned.pem").dropFirst("sha256/".count)),
            ]), server)
        }
    }

    @Test func allowInvalidCountsOnlyTheLeaf() throws {
        // A forged chain: a leaf from an untrusted CA followed by the (public) pinned intermediate.
        // Nothing verifies that the intermediate signed the leaf, so its pin must not count.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let chain = try scratch.write("forged-chain.pem", Array(
            (TestFiles.text(at: TestCertificates.path("untrusted.pem"))! + TestFiles.text(at: TestCertificates.path("intermediate.pem"))!).utf8))
        let table = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("intermediate.pem")], allowInvalidCertificates: true))
        try H.withServer(chain, TestCertificates.path("untrusted.key"), table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .noPinnedPublicKeyInChain(host: "localhost", seenPins: [
                String(try H.pin("untrusted.pem").dropFirst("sha256/".count)),
            ]), server)
        }
    }

    @Test func allowInvalidWithDomainValidationChecksTheNameItself() throws {
        // Verification is off, so OpenSSL checks no name: the policy must.
        let table = Self.table(try SecurityPolicy(
            pinningMode: .certificate, pinnedCertificates: [H.certificate("wronghost.pem")], allowInvalidCertificates: true))
        try H.withServer("wronghost-chain.pem", "wronghost.key", table: table) { client, server in
            let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .hostnameMismatch(host: "localhost", certificateSubject: "/CN=wrong.example"), server)
        }
    }

    @Test func allowInvalidWithDomainValidationRefusesACommonNameOnlyCertificate() throws {
        // The policy's own name check must not fall back to the subject CN (RFC 9525 §6.3).
        let policies = [
            try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("cnonly.pem")], allowInvalidCertificates: true),
            try SecurityPolicy(publicKeyPins: [H.pin("cnonly.pem")], allowInvalidCertificates: true),
        ]
        for policy in policies {
            let table = Self.table(policy)
            try H.withServer("cnonly-chain.pem", "cnonly.key", table: table) { client, server in
                let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
                Self.expectRejected(outcome, .hostnameMismatch(host: "localhost", certificateSubject: "/CN=localhost"), server)
            }
        }
    }

    @Test func allowInvalidAcceptsAnExpiredPinnedCertificate() throws {
        let table = Self.table(try SecurityPolicy(
            pinningMode: .certificate, pinnedCertificates: [H.certificate("expired.pem")], allowInvalidCertificates: true))
        try H.withServer("expired-chain.pem", "expired.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
        }
    }

    // MARK: Chain and name validation still apply under pinning

    @Test func anExpiredCertificateIsRejectedEvenWhenPinned() throws {
        let policies = [
            try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("expired.pem")]),
            try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("intermediate.pem")]),
            try SecurityPolicy(publicKeyPins: [H.pin("expired.pem")]),
        ]
        for policy in policies {
            let table = Self.table(policy)
            try H.withServer("expired-chain.pem", "expired.key", table: table) { client, server in
                let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
                Self.expectRejected(outcome, .certificateVerificationFailed(host: "localhost", .expired), server)
            }
        }
    }

    @Test func theHostNameIsStillVerifiedWhenPinning() throws {
        let policies = [
            try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("wronghost.pem")]),
            try SecurityPolicy(publicKeyPins: [H.pin("wronghost.pem")]),
        ]
        for policy in policies {
            let table = Self.table(policy)
            try H.withServer("wronghost-chain.pem", "wronghost.key", table: table) { client, server in
                let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
                Self.expectRejected(outcome, .certificateVerificationFailed(host: "localhost", .hostnameMismatch), server)
            }
        }
    }

    @Test func aCommonNameOnlyCertificateIsRejectedWithOrWithoutPins() throws {
        let policies = [
            SecurityPolicy.default,
            try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("cnonly.pem")]),
            try SecurityPolicy(publicKeyPins: [H.pin("cnonly.pem")]),
        ]
        for policy in policies {
            let table = Self.table(policy)
            try H.withServer("cnonly-chain.pem", "cnonly.key", table: table) { client, server in
                let outcome = try H.fetch(client, table, "\(server.baseURL)/hello")
                Self.expectRejected(outcome, .certificateVerificationFailed(host: "localhost", .hostnameMismatch), server)
            }
        }
    }

    @Test func withoutDomainValidationAWrongHostCertificateIsAccepted() throws {
        let noName = Self.table(try SecurityPolicy(pinningMode: .none, validatesDomainName: false))
        try H.withServer("wronghost-chain.pem", "wronghost.key", table: noName) { client, server in
            Self.expectAccepted(try H.fetch(client, noName, "\(server.baseURL)/hello"))
        }
        // Pinned and without domain validation: the pin still decides.
        let pinned = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("wronghost.pem")], validatesDomainName: false))
        try H.withServer("wronghost-chain.pem", "wronghost.key", table: pinned) { client, server in
            Self.expectAccepted(try H.fetch(client, pinned, "\(server.baseURL)/hello"))
        }
        let wrongPin = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("selfsigned.pem")], validatesDomainName: false))
        try H.withServer("wronghost-chain.pem", "wronghost.key", table: wrongPin) { client, server in
            let outcome = try H.fetch(client, wrongPin, "\(server.baseURL)/hello")
            #expect(outcome.error?.code == .serverTrustRejected, "\(String(describing: outcome.error))")
        }
    }

    @Test func anUnverifiedConnectionIsRejectedByAPolicyThatDoesNotAllowIt() throws {
        // The client verifies nothing and the request is not prepared by the table: the
        // evaluator must not take an empty verified chain for a good one.
        let table = Self.table(.default)
        try H.withClient(table, configure: { $0.tls.verification = .none }) { client in
            let server = try H.server("selfsigned.pem", "selfsigned.key")
            defer { server.shutdown() }
            let outcome = H.Outcome()
            client.execute(try HTTPClientRequest(method: .GET, url: "\(server.baseURL)/hello"), delegate: outcome)
            #expect(outcome.wait())
            Self.expectRejected(outcome, .chainNotVerified(host: "localhost"), server)
        }
    }

    // MARK: Pins from files

    @Test func pinsLoadedFromDERPEMAndADirectoryWork() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let leaf = try H.certificate("valid.pem")
        let derFile = try scratch.write("leaf.cer", leaf.der)
        try scratch.write("intermediate.crt", Array(TestFiles.text(at: TestCertificates.path("intermediate.pem"))!.utf8))
        try scratch.write("README.txt", Array("not a certificate".utf8))

        let fromDER = try SecurityPolicy.certificate(derFile: derFile)
        #expect(fromDER == leaf)
        let fromPEM = try SecurityPolicy.certificates(pemFile: TestCertificates.path("valid-chain.pem"))
        #expect(fromPEM.map(\.subject) == ["/CN=localhost", "/CN=Courier Test Intermediate"])
        let fromDirectory = try SecurityPolicy.certificates(inDirectory: scratch.path)
        #expect(fromDirectory == [leaf, try H.certificate("intermediate.pem")])

        for pins in [Set([fromDER]), Set(fromPEM), fromDirectory] {
            let table = Self.table(try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: pins))
            try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
                Self.expectAccepted(try H.fetch(client, table, "\(server.baseURL)/hello"))
            }
        }
    }

    // MARK: Pin expiry

    @Test func anExpiredPinSetIsNotEnforced() throws {
        let past = Date(timeIntervalSinceNow: -3600)
        let expired = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("other-ca.pem")], pinsExpire: past))
        try H.withServer("valid-chain.pem", "valid.key", table: expired) { client, server in
            Self.expectAccepted(try H.fetch(client, expired, "\(server.baseURL)/hello"))
        }
        // Not yet expired: enforced.
        let current = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("other-ca.pem")], pinsExpire: Date(timeIntervalSinceNow: 3600)))
        try H.withServer("valid-chain.pem", "valid.key", table: current) { client, server in
            let outcome = try H.fetch(client, current, "\(server.baseURL)/hello")
            #expect(outcome.error?.code == .serverTrustRejected, "\(String(describing: outcome.error))")
        }
        // Expired pins take allowInvalidCertificates with them: the chain is validated again.
        let lenient = Self.table(try SecurityPolicy(
            publicKeyPins: [H.pin("selfsigned.pem")], allowInvalidCertificates: true, pinsExpire: past))
        try H.withServer("selfsigned.pem", "selfsigned.key", table: lenient) { client, server in
            let outcome = try H.fetch(client, lenient, "\(server.baseURL)/hello")
            Self.expectRejected(outcome, .certificateVerificationFailed(host: "localhost", .selfSigned), server)
        }
    }

    // MARK: Per-host policies

    @Test func eachHostIsJudgedByItsOwnPolicy() throws {
        // selfsigned.pem names localhost and 127.0.0.1: two hosts on one server.
        let table = SecurityPolicyTable()
        try table.setPolicy(
            SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")]), forHost: "127.0.0.1")
        try table.setPolicy(SecurityPolicy(publicKeyPins: [H.pin("other-ca.pem")]), forHost: "*.example.com")
        try H.withServer("selfsigned.pem", "selfsigned.key", table: table) { client, server in
            Self.expectAccepted(try H.fetch(client, table, "https://127.0.0.1:\(server.port)/hello"))
            // localhost has the default policy: the self-signed certificate is not trusted.
            let outcome = try H.fetch(client, table, "https://localhost:\(server.port)/hello")
            #expect(outcome.trustFailure == .certificateVerificationFailed(host: "localhost", .selfSigned), "\(String(describing: outcome.error))")
            #expect(server.requests.count == 1)
        }
    }

    @Test func aPinnedHostAndADefaultHost() throws {
        let table = SecurityPolicyTable()
        try table.setPolicy(SecurityPolicy(publicKeyPins: [H.pin("other-ca.pem")]), forHost: "LOCALHOST")
        try H.withClient(table) { client in
            let named = try H.server("valid-chain.pem", "valid.key")
            defer { named.shutdown() }
            let ip = try H.server("ip-chain.pem", "ip.key")
            defer { ip.shutdown() }
            let outcome = try H.fetch(client, table, "\(named.baseURL)/hello")
            #expect(outcome.error?.code == .serverTrustRejected)
            #expect(named.requests.isEmpty)
            Self.expectAccepted(try H.fetch(client, table, "https://127.0.0.1:\(ip.port)/hello"))
            // Changing the table applies to the next connection.
            table.removePolicy(forHost: "localhost")
            Self.expectAccepted(try H.fetch(client, table, "\(named.baseURL)/hello"))
        }
    }

    // MARK: Schemes

    @Test func pinningOverPlainHTTPIsRefused() throws {
        let table = Self.table(try SecurityPolicy(publicKeyPins: [H.pin("valid.pem")]))
        var request = try HTTPClientRequest(method: .GET, url: "http://localhost:1/hello")
        #expect {
            try table.apply(to: &request, base: H.base)
        } throws: { error in
            (error as? CourierError)?.code == .invalidSecurityPolicy
        }
        #expect(request.tls == nil)
        // A policy that does not pin leaves a plain request alone.
        try Self.table(.default).apply(to: &request, base: H.base)
        #expect(request.tls == nil)
        var secure = try HTTPClientRequest(method: .GET, url: "https://localhost:1/hello")
        try table.apply(to: &secure, base: H.base)
        #expect((secure.tls ?? H.base).verification == .full, "nil: the client's own settings, which verify fully")
    }
}
