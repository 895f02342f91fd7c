import CourierClient
import CourierCore
import CourierTestSupport
import CourierTLS
import Testing

/// Stapled OCSP responses over the transport: the scripted server staples responses that a real
/// `openssl ocsp` responder produced for the certificate matrix (good, revoked, from the wrong
/// signer, unsuccessful), and the client judges them as its ``RevocationPolicy`` says. Also the
/// CRL path end to end, and must-staple honoured with the default settings.
@Suite(.serialized) struct OCSPStaplingTests {
    /// Responses fetched from a responder started for the call and stopped before it returns
    /// (outside the descriptor-counting part of a test).
    static func responses(
        _ certificates: [String], signer: String = "ocsp.pem", signerKey: String = "ocsp.key"
    ) throws -> [String: [UInt8]] {
        let responder = try OCSPResponder(signer: signer, signerKey: signerKey)
        defer { responder.stop() }
        var result: [String: [UInt8]] = [:]
        for certificate in certificates { result[certificate] = try responder.response(for: certificate) }
        return result
    }

    /// A server on `name`-chain.pem / `name`.key answering `/hello`, stapling `staple`.
    static func server(_ name: String, staple: [UInt8]?, maximumVersion: ServerTLS.Version? = nil) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: ServerTLS(
            certificateChain: "\(name)-chain.pem", privateKey: "\(name).key", maximumVersion: maximumVersion,
            ocspResponse: staple))
        server.route("/hello") { _, connection in try connection.respond(body: "hello") }
        return server
    }

    /// The client's TLS settings: the test root as anchor, with `revocation`.
    static func tls(_ revocation: RevocationPolicy) -> TLSConfiguration {
        var tls = TLSConfiguration()
        tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
        tls.revocation = revocation
        return tls
    }

    static let requireStaple = RevocationPolicy(requireStapledOCSP: true)

    /// GET /hello on `server` with the request's own TLS settings `tls`.
    static func fetch(_ client: HTTPClient, _ server: ScriptedServer, _ tls: TLSConfiguration) throws -> RecordingDelegate {
        var request = try get("\(server.baseURL)/hello")
        request.tls = tls
        return run(client, request)
    }

    /// The verification failure the request ended with, checking it is a TLS-phase failure and
    /// that nothing reached the server.
    static func failure(
        _ result: RecordingDelegate, _ server: ScriptedServer, sourceLocation: SourceLocation = #_sourceLocation
    ) -> CertificateVerificationFailure? {
        #expect(result.head == nil, sourceLocation: sourceLocation)
        #expect(server.requests.isEmpty, "a request reached the server", sourceLocation: sourceLocation)
        guard let error = result.error else {
            Issue.record("the request succeeded", sourceLocation: sourceLocation)
            return nil
        }
        #expect(error.code == .tls && error.phase == .tls, "\(error)", sourceLocation: sourceLocation)
        guard let cause = error.cause as? TLSError, case .certificateVerificationFailed(let failure) = cause.reason else {
            Issue.record("not a verification failure: \(error)", sourceLocation: sourceLocation)
            return nil
        }
        return failure
    }

    /// The TLS error's message of a failed request.
    static func message(_ result: RecordingDelegate) -> String {
        (result.error?.cause as? TLSError)?.message ?? "no TLS error: \(String(describing: result.error))"
    }

    static func configure(_ configuration: inout HTTPClientConfiguration) {
        configuration.timeouts.tlsHandshake = .seconds(5)
    }

    @Test(arguments: [ServerTLS.Version.tls1_2, .tls1_3])
    func aGoodStapleIsAcceptedWhenRequired(_ version: ServerTLS.Version) throws {
        let staples = try Self.responses(["valid.pem"])
        try withClientAndServer(configure: Self.configure, serving: Self.server("valid", staple: staples["valid.pem"], maximumVersion: version)) { client, server throws in
            let result = try Self.fetch(client, server, Self.tls(Self.requireStaple))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "hello")
        }
    }

    @Test(arguments: [ServerTLS.Version.tls1_2, .tls1_3])
    func aRevokedStapleFailsAsRevoked(_ version: ServerTLS.Version) throws {
        let staples = try Self.responses(["revoked.pem"])
        try withClientAndServer(configure: Self.configure, serving: Self.server("revoked", staple: staples["revoked.pem"], maximumVersion: version)) { client, server throws in
            let result = try Self.fetch(client, server, Self.tls(Self.requireStaple))
            #expect(Self.failure(result, server) == .revoked)
            let error = result.error?.cause as? TLSError
            #expect(error?.message.contains("RFC 6960") == true, "\(String(describing: error))")
        }
    }

    @Test func stapledResponsesAreJudgedOnlyWhenAsked() throws {
        // Revocation checking is opt-in: without it (and without must-staple) the staple is not
        // looked at, as with curl without --cert-status.
        let staples = try Self.responses(["revoked.pem"])
        try withClientAndServer(configure: Self.configure, serving: Self.server("revoked", staple: staples["revoked.pem"])) { client, server throws in
            let result = try Self.fetch(client, server, Self.tls(.default))
            #expect(result.bodyString == "hello", "\(String(describing: result.error))")
        }
    }

    @Test func aMissingStapleFailsWhenRequired() throws {
        try withClientAndServer(configure: Self.configure, serving: Self.server("valid", staple: nil)) { client, server throws in
            #expect(Self.failure(try Self.fetch(client, server, Self.tls(Self.requireStaple)), server) == .staplingRequired)
        }
    }

    @Test func aMustStapleLeafNeedsItsStapleEvenByDefault() throws {
        try withClientAndServer(configure: Self.configure, serving: Self.server("muststaple", staple: nil)) { client, server throws in
            #expect(Self.failure(try Self.fetch(client, server, Self.tls(.default)), server) == .staplingRequired)
        }
        // With its good staple, the default settings accept it.
        let staples = try Self.responses(["muststaple.pem", "revoked.pem"])
        try withClientAndServer(configure: Self.configure, serving: Self.server("muststaple", staple: staples["muststaple.pem"])) { client, server throws in
            let result = try Self.fetch(client, server, Self.tls(.default))
            #expect(result.bodyString == "hello", "\(String(describing: result.error))")
        }
        // A staple about another certificate does not satisfy it.
        try withClientAndServer(configure: Self.configure, serving: Self.server("muststaple", staple: staples["revoked.pem"])) { client, server in
            let result = try Self.fetch(client, server, Self.tls(.default))
            #expect(Self.failure(result, server) == .ocspResponseInvalid)
            #expect(Self.message(result).contains("does not cover"), "\(Self.message(result))")
        }
    }

    @Test func stapledResponsesThatCannotBeReliedOnAreInvalid() throws {
        // The responder signing with a certificate that has no OCSPSigning purpose, or answering
        // about a certificate of another CA, which its delegation does not cover (both RFC 6960
        // §4.2.2.2).
        let wrongSigner = try Self.responses(["valid.pem"], signer: "valid.pem", signerKey: "valid.key")["valid.pem"]
        let responder = try OCSPResponder()
        let otherCA: [UInt8]
        do {
            defer { responder.stop() }
            otherCA = try responder.response(for: "untrusted.pem", issuer: "other-ca.pem")
        }
        // An OCSPResponse with responseStatus unauthorized (6) and no responseBytes (RFC 6960
        // §4.2.1: SEQUENCE { ENUMERATED 6 }), as a responder refusing to answer sends it.
        let unauthorized: [UInt8] = [0x30, 0x03, 0x0A, 0x01, 0x06]
        // Each with the part of the message that says which check failed.
        let cases: [(staple: [UInt8]?, reason: String)] = [
            (wrongSigner, "not signed by the issuer or a responder it authorised"),
            (otherCA, "not signed by the issuer or a responder it authorised"),
            (unauthorized, "status is not successful"),
            (Array("not an OCSP response".utf8), "not a DER OCSPResponse"),
        ]
        for (staple, reason) in cases {
            try withClientAndServer(configure: Self.configure, serving: Self.server("valid", staple: staple)) { client, server in
                let result = try Self.fetch(client, server, Self.tls(Self.requireStaple))
                #expect(Self.failure(result, server) == .ocspResponseInvalid, "\(reason)")
                #expect(Self.message(result).contains(reason), "\(Self.message(result))")
            }
        }
    }

    @Test func aStapleSayingUnknownFailsAsUnknown() throws {
        // valid.pem's serial (1000) left out of the responder's database.
        let responder = try OCSPResponder(omittingSerials: ["1000"])
        let unknown: [UInt8]
        do {
            defer { responder.stop() }
            unknown = try responder.response(for: "valid.pem")
        }
        try withClientAndServer(configure: Self.configure, serving: Self.server("valid", staple: unknown)) { client, server throws in
            #expect(Self.failure(try Self.fetch(client, server, Self.tls(Self.requireStaple)), server) == .revocationStatusUnknown)
        }
    }

    @Test func aCRLRevokesOverTheTransportAndPassesAValidLeaf() throws {
        let crl = Self.tls(RevocationPolicy(crlFiles: [TestCertificates.path("intermediate.crl")]))
        try withClientAndServer(configure: Self.configure, serving: Self.server("revoked", staple: nil)) { client, server throws in
            #expect(Self.failure(try Self.fetch(client, server, crl), server) == .revoked)
        }
        try withClientAndServer(configure: Self.configure, serving: Self.server("valid", staple: nil)) { client, server throws in
            let result = try Self.fetch(client, server, crl)
            #expect(result.bodyString == "hello", "\(String(describing: result.error))")
        }
    }
}
