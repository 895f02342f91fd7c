import CourierTLS
import Testing

/// Revocation in the engine, in memory (no sockets): CRL files handed to chain verification,
/// must-staple honoured by default, a required staple, and the configuration errors. Stapled
/// responses from a real OCSP responder are tested over the transport (CourierClientTests'
/// OCSPStaplingTests), where the test server can staple.
@Suite("Revocation")
struct RevocationTests {
    /// A client trusting the test root with `revocation`.
    static func client(_ revocation: RevocationPolicy, verification: CertificateVerification = .full) throws -> TLSContext {
        try Contexts.client {
            $0.revocation = revocation
            $0.verification = verification
        }
    }

    /// Handshakes `client` with a server on `name`-chain.pem / `name`.key.
    static func handshake(_ client: TLSContext, _ name: String) throws -> Link {
        let link = try Link(client: client, hostname: "localhost", server: Contexts.server(chain: "\(name)-chain.pem", key: "\(name).key"))
        link.handshake()
        return link
    }

    @Test("a leaf listed in its issuer's CRL is revoked; an unlisted one passes", arguments: [
        RevocationPolicy.CRLScope.leaf, .wholeChain,
    ])
    func crl(_ scope: RevocationPolicy.CRLScope) throws {
        let client = try Self.client(RevocationPolicy(crlFiles: [Certificates.path("crl-bundle.pem")], crlScope: scope))
        let revoked = try Self.handshake(client, "revoked")
        #expect(revoked.clientError?.reason == .certificateVerificationFailed(.revoked), "\(String(describing: revoked.clientError))")
        // certificate_revoked (44) reached the server.
        #expect(revoked.serverError?.peerAlert == 44, "\(String(describing: revoked.serverError))")
        let valid = try Self.handshake(client, "valid")
        #expect(valid.bothComplete, "\(String(describing: valid.clientError))")
    }

    @Test("revocation checks without certificate verification are a configuration error, not silently skipped")
    func revocationNeedsVerification() {
        for policy in [RevocationPolicy(requireStapledOCSP: true), RevocationPolicy(crlFiles: [Certificates.path("crl-bundle.pem")])] {
            var configuration = TLSConfiguration()
            configuration.verification = .none
            configuration.revocation = policy
            #expect(throws: TLSError.self) { _ = try TLSContext(configuration: configuration) }
        }
        // Without revocation checks, turning verification off is still allowed (it is explicit).
        var plain = TLSConfiguration()
        plain.verification = .none
        #expect(throws: Never.self) { _ = try TLSContext(configuration: plain) }
    }

    @Test("without CRL files a revoked leaf is accepted: revocation checking is opt-in")
    func crlOptIn() throws {
        let link = try Self.handshake(try Self.client(.default), "revoked")
        #expect(link.bothComplete, "\(String(describing: link.clientError))")
    }

    @Test("the whole chain needs every issuer's CRL: without the root's, the status is unknown")
    func wholeChainNeedsEveryCRL() throws {
        let onlyIntermediate = RevocationPolicy(crlFiles: [Certificates.path("intermediate.crl")], crlScope: .wholeChain)
        let link = try Self.handshake(try Self.client(onlyIntermediate), "valid")
        #expect(link.clientError?.reason == .certificateVerificationFailed(.revocationStatusUnknown), "\(String(describing: link.clientError))")
        // For the leaf alone the intermediate's CRL is enough.
        let leafOnly = RevocationPolicy(crlFiles: [Certificates.path("intermediate.crl")])
        #expect(try Self.handshake(try Self.client(leafOnly), "valid").bothComplete)
        // A CRL from another issuer says nothing about the leaf.
        let wrongIssuer = RevocationPolicy(crlFiles: [Certificates.path("ca.crl")])
        let unknown = try Self.handshake(try Self.client(wrongIssuer), "valid")
        #expect(unknown.clientError?.reason == .certificateVerificationFailed(.revocationStatusUnknown), "\(String(describing: unknown.clientError))")
    }

    @Test("a must-staple leaf without a staple fails by default (RFC 7633 §4.2.3)")
    func mustStapleByDefault() throws {
        let link = try Self.handshake(try Self.client(.default), "muststaple")
        let error = try #require(link.clientError)
        #expect(error.reason == .certificateVerificationFailed(.staplingRequired), "\(error)")
        #expect(error.message.contains("RFC 7633"), "\(error)")
        // bad_certificate_status_response (113) reached the server.
        #expect(link.serverError?.peerAlert == 113, "\(String(describing: link.serverError))")
        // The same leaf is fine when nothing is verified at all.
        let unverified = try Self.handshake(try Self.client(.default, verification: .none), "muststaple")
        #expect(unverified.bothComplete, "\(String(describing: unverified.clientError))")
    }

    @Test("a required staple that the server does not send fails; an ordinary leaf is fine by default")
    func requiredStapleMissing() throws {
        let link = try Self.handshake(try Self.client(RevocationPolicy(requireStapledOCSP: true)), "valid")
        #expect(link.clientError?.reason == .certificateVerificationFailed(.staplingRequired), "\(String(describing: link.clientError))")
        #expect(try Self.handshake(try Self.client(.default), "valid").bothComplete)
    }

    @Test("an unreadable CRL file, or one without a CRL, is a configuration error")
    func badCRLFiles() throws {
        for file in [Certificates.path("no-such.crl"), Certificates.path("ca.pem")] {
            #expect {
                _ = try Self.client(RevocationPolicy(crlFiles: [file]))
            } throws: { error in
                (error as? TLSError)?.reason == .configuration
            }
        }
    }

    @Test("a negative OCSP clock skew is a configuration error")
    func negativeSkew() {
        #expect {
            _ = try Self.client(RevocationPolicy(ocspClockSkewSeconds: -1))
        } throws: { error in
            (error as? TLSError)?.reason == .configuration
        }
    }

    @Test("union keeps the stricter of two policies")
    func union() {
        let a = RevocationPolicy(crlFiles: ["a"], crlScope: .wholeChain, ocspClockSkewSeconds: 60)
        let b = RevocationPolicy(crlFiles: ["b", "a"], requireStapledOCSP: true)
        let both = a.union(b)
        #expect(both.crlFiles == ["a", "b"])
        #expect(both.crlScope == .wholeChain)
        #expect(both.requireStapledOCSP)
        #expect(both.ocspClockSkewSeconds == 60)
        #expect(RevocationPolicy.default.union(.default) == .default)
        #expect(!RevocationPolicy.default.isEnabled)
        #expect(TLSConfiguration.clientDefault.revocation == .default)
    }
}
