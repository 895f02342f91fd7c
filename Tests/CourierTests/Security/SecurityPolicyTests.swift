import Courier
import CourierClient
import CourierTestSupport
import CourierTLS
import FoundationEssentials
import Testing

/// The policy as a value: what may be built, how pins are read, what TLS settings it asks for,
/// how errors map. No sockets.
@Suite struct SecurityPolicyTests {
    typealias H = PinningHarness

    static func isInvalidPolicy(_ error: any Error) -> Bool {
        (error as? CourierError)?.code == .invalidSecurityPolicy
    }

    @Test func theDefaultPolicyValidatesEverythingAndPinsNothing() {
        let policy = SecurityPolicy.default
        #expect(policy.pinningMode == .none)
        #expect(!policy.allowInvalidCertificates)
        #expect(policy.validatesDomainName)
        #expect(policy.pinnedCertificates.isEmpty && policy.pinnedPublicKeyHashes.isEmpty)
        #expect(!policy.isPinning)
        #expect(!policy.pinsAreEnforced())
    }

    @Test func anInsecurePolicyCannotBeBuilt() throws {
        // AFNetworking's rule: invalid certificates + domain validation + nothing pinned.
        #expect { try SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true) } throws: { Self.isInvalidPolicy($0) }
        // Pinning without pins.
        #expect { try SecurityPolicy(pinningMode: .certificate) } throws: { Self.isInvalidPolicy($0) }
        #expect { try SecurityPolicy(pinningMode: .publicKey) } throws: { Self.isInvalidPolicy($0) }
        #expect { try SecurityPolicy(publicKeyPins: []) } throws: { Self.isInvalidPolicy($0) }
        #expect {
            try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [], allowInvalidCertificates: true)
        } throws: { Self.isInvalidPolicy($0) }
        // Allowed: invalid certificates without domain validation (a development server), or with pins.
        let anything = try SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: false)
        #expect(anything.allowInvalidCertificates && !anything.validatesDomainName)
        let pinned = try SecurityPolicy(publicKeyPins: [H.pin("selfsigned.pem")], allowInvalidCertificates: true)
        #expect(pinned.allowInvalidCertificates && pinned.validatesDomainName)
    }

    @Test func settersRefuseToMakeAPolicyUnsafeAndLeaveItUnchanged() throws {
        var policy = SecurityPolicy.default
        #expect { try policy.setAllowInvalidCertificates(true) } throws: { Self.isInvalidPolicy($0) }
        #expect(policy == .default)
        #expect { try policy.setPinningMode(.certificate) } throws: { Self.isInvalidPolicy($0) }
        #expect(policy == .default)
        try policy.setValidatesDomainName(false)
        try policy.setAllowInvalidCertificates(true)
        #expect { try policy.setValidatesDomainName(true) } throws: { Self.isInvalidPolicy($0) }
        #expect(!policy.validatesDomainName)

        var pinned = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("valid.pem")])
        #expect { try pinned.setPinnedCertificates([]) } throws: { Self.isInvalidPolicy($0) }
        #expect(pinned.pinnedCertificates.count == 1)
        try pinned.setPinnedCertificates([H.certificate("ca.pem")])
        #expect(pinned.pinnedPublicKeyHashes == [try H.certificate("ca.pem").spkiSHA256], "the keys follow the certificates")
        try pinned.setPinningMode(.publicKey)
        try pinned.setPublicKeyPins([H.pin("valid.pem")], backupPins: [H.pin("intermediate.pem")])
        #expect(pinned.pinnedPublicKeyHashes.count == 2 && pinned.backupPublicKeyHashes.count == 1)
        #expect { try pinned.setPublicKeyPins(["sha256/short"]) } throws: { Self.isInvalidPolicy($0) }
        #expect(pinned.pinnedPublicKeyHashes.count == 2)
    }

    @Test func publicKeyModeFromCertificatesPinsTheirKeys() throws {
        let leaf = try H.certificate("valid.pem")
        let policy = try SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [leaf])
        #expect(policy.pinnedPublicKeyHashes == [leaf.spkiSHA256])
    }

    @Test func pinsAreReadInEitherTextForm() throws {
        let leaf = try H.certificate("valid.pem")
        let pin = SecurityPolicy.publicKeyPin(of: leaf)
        #expect(pin.hasPrefix("sha256/"))
        #expect(Data(base64Encoded: String(pin.dropFirst(7))).map(Array.init) == leaf.spkiSHA256)
        let bare = String(pin.dropFirst(7))
        for text in [pin, bare, "  \(pin)\n", "SHA256/" + bare] {
            #expect(try SecurityPolicy(publicKeyPins: [text]).pinnedPublicKeyHashes == [leaf.spkiSHA256], "\(text)")
        }
        for bad in ["", "sha256/", "sha256/!!!!", "sha256/" + Data(repeating: 1, count: 20).base64EncodedString(), "md5/" + bare] {
            #expect { try SecurityPolicy(publicKeyPins: [bad]) } throws: { Self.isInvalidPolicy($0) }
        }
        // A bad backup pin is refused too.
        #expect { try SecurityPolicy(publicKeyPins: [pin], backupPins: ["nope"]) } throws: { Self.isInvalidPolicy($0) }
    }

    @Test func theTLSConfigurationFollowsThePolicy() throws {
        let base = H.base
        #expect(SecurityPolicy.default.tlsConfiguration(base: base) == base)
        var lenientBase = base
        lenientBase.verification = .none
        #expect(SecurityPolicy.default.tlsConfiguration(base: lenientBase).verification == .full, "the policy decides, not the base")

        let noName = try SecurityPolicy(pinningMode: .none, validatesDomainName: false)
        #expect(noName.tlsConfiguration(base: base).verification == .noHostnameVerification)

        let invalid = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")], allowInvalidCertificates: true)
        #expect(invalid.tlsConfiguration(base: base).verification == .none)
        #expect(invalid.tlsConfiguration(base: base).trustRoots == base.trustRoots)

        let a = try H.certificate("valid.pem"), b = try H.certificate("ca.pem"), c = try H.certificate("intermediate.pem")
        let one = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [a, b, c])
        let other = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [c, a, b])
        let configuration = one.tlsConfiguration(base: base)
        #expect(configuration.verification == .full)
        #expect(configuration.trustRoots.first == base.trustRoots.first, "the base roots stay")
        guard case .certificates(let anchors)? = configuration.trustRoots.last else {
            Issue.record("no in-memory anchors: \(configuration.trustRoots)")
            return
        }
        #expect(Set(anchors) == [a, b, c])
        #expect(configuration == other.tlsConfiguration(base: base), "equal policies, equal configurations")

        let keys = try SecurityPolicy(publicKeyPins: [H.pin("valid.pem")])
        var keyed = keys.tlsConfiguration(base: base)
        #expect(keyed.trustRoots == base.trustRoots && keyed.verification == base.verification, "public-key pins add no anchors")
        #expect(keyed.poolPartition != nil, "but keep their connections apart from unpinned ones")
        keyed.poolPartition = nil
        #expect(keyed == base)
    }

    @Test func expiredPinsFallBackToValidation() throws {
        let now = Date()
        let policy = try SecurityPolicy(
            pinningMode: .certificate, pinnedCertificates: [H.certificate("selfsigned.pem")], allowInvalidCertificates: true,
            pinsExpire: now)
        #expect(policy.pinsAreEnforced(at: now.addingTimeInterval(-1)))
        #expect(!policy.pinsAreEnforced(at: now))
        #expect(policy.tlsConfiguration(base: H.base, at: now.addingTimeInterval(-1)).verification == .none)
        let after = policy.tlsConfiguration(base: H.base, at: now.addingTimeInterval(1))
        #expect(after == H.base, "no anchors and full verification once the pins have expired")
        var unexpiring = policy
        unexpiring.setPinsExpire(nil)
        #expect(unexpiring.pinsAreEnforced(at: .distantFuture))
    }

    @Test func pinningIsOnlyForHTTPS() throws {
        let pinned = try SecurityPolicy(publicKeyPins: [H.pin("valid.pem")])
        try pinned.validate(forScheme: "https")
        try pinned.validate(forScheme: "HTTPS")
        for scheme in ["http", "http+unix"] {
            #expect { try pinned.validate(forScheme: scheme) } throws: { Self.isInvalidPolicy($0) }
        }
        try SecurityPolicy.default.validate(forScheme: "http")
    }

    // MARK: Error mapping

    @Test func rejectionsMapToTypedCourierErrors() throws {
        let failure = TrustFailure.noPinnedPublicKeyInChain(host: "example.com", seenPins: ["AAAA"])
        let thrown = try #require(SecurityPolicy.courierError(from: ClientError(.serverTrustRejected, cause: failure)))
        #expect(thrown.code == .serverTrustRejected && thrown.phase == .trust)
        #expect(thrown.underlying as? TrustFailure == failure)
        #expect("\(thrown)".contains("sha256/AAAA"))

        let plain = ClientError(.serverTrustRejected, detail: "rejected")
        let refused = try #require(SecurityPolicy.courierError(from: plain))
        #expect(refused.underlying as? ClientError == plain)

        let handshake = ClientError(.tls, cause: TLSError(.certificateVerificationFailed(.expired), message: "expired"))
        let verified = try #require(SecurityPolicy.courierError(from: handshake, host: "example.com"))
        #expect(verified.code == .serverTrustRejected && verified.phase == .trust)
        #expect(verified.underlying as? TrustFailure == .certificateVerificationFailed(host: "example.com", .expired))

        #expect(SecurityPolicy.courierError(from: ClientError(.tls, cause: TLSError(.handshakeFailed, message: ""))) == nil)
        #expect(SecurityPolicy.courierError(from: ClientError(.connectionFailed)) == nil)
    }

    @Test func failureDescriptionsNameWhatTheServerPresented() {
        #expect("\(TrustFailure.noPinnedCertificateInChain(host: "h", chainSubjects: ["/CN=a", "/CN=b"]))".contains("/CN=a, /CN=b"))
        #expect("\(TrustFailure.noPinnedPublicKeyInChain(host: "h", seenPins: ["X=", "Y="]))".contains("sha256/X=, sha256/Y="))
        #expect("\(TrustFailure.hostnameMismatch(host: "h", certificateSubject: "/CN=z"))".contains("/CN=z"))
        #expect(TrustFailure.chainNotVerified(host: "h").host == "h")
        #expect(TrustFailure.certificateVerificationFailed(host: nil, .expired).host == nil)
    }

    @Test func loadersReportUnreadableFiles() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect { try SecurityPolicy.certificates(inDirectory: scratch.path) } throws: { Self.isInvalidPolicy($0) }
        #expect { try SecurityPolicy.certificates(inDirectory: scratch.path + "/missing") } throws: { Self.isInvalidPolicy($0) }
        let garbage = try scratch.write("garbage.der", [0x30, 0x03, 0x01, 0x02, 0x03])
        #expect { try SecurityPolicy.certificate(derFile: garbage) } throws: { Self.isInvalidPolicy($0) }
        #expect { try SecurityPolicy.certificates(inDirectory: scratch.path) } throws: { Self.isInvalidPolicy($0) }
        #expect { try SecurityPolicy.certificates(pemFile: scratch.path + "/none.pem") } throws: { Self.isInvalidPolicy($0) }
        #expect { try SecurityPolicy.certificate(derFile: scratch.path + "/none.der") } throws: { Self.isInvalidPolicy($0) }
    }

    @Test func aDirectoryMayMixFormatsAndIgnoresOtherFiles() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let chain = try SecurityPolicy.certificates(pemFile: TestCertificates.path("valid-chain.pem"))
        try scratch.write("a.der", chain[0].der)
        try scratch.write("B.PEM", Array(TestFiles.text(at: TestCertificates.path("valid-chain.pem"))!.utf8))
        try scratch.write("c.crt", try H.certificate("ca.pem").der)  // DER under a PEM-ish name
        try scratch.write("d.key", Array("ignored".utf8))
        #expect(try SecurityPolicy.certificates(inDirectory: scratch.path) == Set(chain + [H.certificate("ca.pem")]))
    }
}
