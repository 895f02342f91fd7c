import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import CourierTLS
import Testing

/// The client against the committed certificate matrix (see make-certs.sh in
/// CourierTestSupport/Certificates): which chains verify, which fail and why, and what the
/// metrics report about the session.
@Suite(.serialized) struct TLSMatrixTests {
    /// A client that trusts the test root only.
    static func trustTestRoot(_ verification: CertificateVerification = .full) -> (inout HTTPClientConfiguration) -> Void {
        { configuration in
            configuration.tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
            configuration.tls.verification = verification
            configuration.timeouts.tlsHandshake = .seconds(5)
        }
    }

    /// A server on `chain`/`key` answering `/hello` with "hello".
    static func server(_ chain: String, _ key: String, clientCA: String? = nil) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: ServerTLS(certificateChain: chain, privateKey: key, clientCA: clientCA))
        server.route("/hello") { _, connection in try connection.respond(body: "hello") }
        return server
    }

    /// Runs a test with a client that trusts the test root (checking as `verification` says) and
    /// ``server(_:_:clientCA:)`` on `chain`/`key`.
    static func withServer(
        _ chain: String, _ key: String, clientCA: String? = nil, verification: CertificateVerification = .full,
        _ body: (HTTPClient, ScriptedServer) throws -> Void
    ) throws {
        try withClientAndServer(
            configure: trustTestRoot(verification), serving: server(chain, key, clientCA: clientCA), body)
    }

    /// Runs GET `url` and returns the verification failure the request ended with (phase .tls,
    /// code .tls, cause a TLSError), or nil when it did not fail that way.
    static func verificationFailure(
        _ client: HTTPClient, _ url: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CertificateVerificationFailure? {
        let result = run(client, try get(url), sourceLocation: sourceLocation)
        #expect(result.head == nil, sourceLocation: sourceLocation)
        guard let error = result.error else {
            Issue.record("the request succeeded", sourceLocation: sourceLocation)
            return nil
        }
        #expect(error.code == .tls, "\(error)", sourceLocation: sourceLocation)
        #expect(error.phase == .tls, "\(error)", sourceLocation: sourceLocation)
        guard let cause = error.cause as? TLSError else {
            Issue.record("the cause is not a TLSError: \(error)", sourceLocation: sourceLocation)
            return nil
        }
        guard case .certificateVerificationFailed(let failure) = cause.reason else {
            Issue.record("not a verification failure: \(cause)", sourceLocation: sourceLocation)
            return nil
        }
        return failure
    }

    @Test func validChainSucceedsWithSessionMetrics() throws {
        try Self.withServer("valid-chain.pem", "valid.key") { client, server in
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.head?.status == 200)
            #expect(result.bodyString == "hello")
            let metrics = try #require(result.metrics)
            #expect(metrics.tlsVersion == "TLSv1.3" || metrics.tlsVersion == "TLSv1.2")
            #expect(metrics.tlsCipher?.isEmpty == false)
            #expect(metrics.tlsStart != nil && metrics.tlsEnd != nil)
            // Leaf first, then the intermediate and the trust anchor.
            let leaf = try #require(TLSCertificate.load(pemFile: TestCertificates.path("valid.pem")).first)
            #expect(metrics.peerCertificates.first == leaf)
            #expect(metrics.peerCertificates.first?.spkiSHA256 == leaf.spkiSHA256)
            #expect(metrics.peerCertificates.first?.spkiSHA256.count == 32)
            #expect(metrics.peerCertificates.count == 3)
            #expect(server.requests.first?.tlsServerName == "localhost")
        }
    }

    @Test func expiredCertificateFails() throws {
        try Self.withServer("expired-chain.pem", "expired.key") { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .expired)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func notYetValidCertificateFails() throws {
        try Self.withServer("notyet-chain.pem", "notyet.key") { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .notYetValid)
        }
    }

    @Test func wrongHostFails() throws {
        try Self.withServer("wronghost-chain.pem", "wronghost.key") { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .hostnameMismatch)
        }
    }

    @Test func commonNameOnlyCertificateFails() throws {
        // CN=localhost and no subjectAltName: RFC 9525 §6.3 and RFC 9110 §4.3.4 forbid the CN-ID.
        try Self.withServer("cnonly-chain.pem", "cnonly.key") { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .hostnameMismatch)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func weakKeyFails() throws {
        // An RSA-1024 leaf (80-bit security): refused at the client's security level 2.
        let tls = ServerTLS(certificateChain: "weakkey-chain.pem", privateKey: "weakkey.key", securityLevel: 0)
        try withClientAndServer(configure: Self.trustTestRoot(), serving: ScriptedServer(tls: tls)) { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .weakKey)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func weakSignatureAlgorithmFails() throws {
        // A leaf the intermediate signed with ECDSA-SHA-1.
        let tls = ServerTLS(certificateChain: "sha1sig-chain.pem", privateKey: "sha1sig.key", securityLevel: 0)
        try withClientAndServer(configure: Self.trustTestRoot(), serving: ScriptedServer(tls: tls)) { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .weakSignatureAlgorithm)
            #expect(server.requests.isEmpty)
        }
    }

    /// GET `url` and return the TLS error it failed with (phase .tls), or nil.
    static func tlsFailure(_ client: HTTPClient, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> TLSError? {
        let result = run(client, try get(url), sourceLocation: sourceLocation)
        #expect(result.head == nil, sourceLocation: sourceLocation)
        let error = try #require(result.error, "the request succeeded", sourceLocation: sourceLocation)
        #expect(error.code == .tls && error.phase == .tls, "\(error)", sourceLocation: sourceLocation)
        return error.cause as? TLSError
    }

    @Test func clientMinimumAboveServerMaximumIsAVersionMismatch() throws {
        try withClientAndServer(configure: { configuration in
            Self.trustTestRoot()(&configuration)
            configuration.tls.minimumVersion = .tls1_3
        }, serving: ScriptedServer(tls: ServerTLS(maximumVersion: .tls1_2))) { client, server throws in
            let cause = try #require(try Self.tlsFailure(client, "\(server.baseURL)/hello"))
            #expect(cause.reason == .protocolVersionMismatch, "\(cause)")
            #expect(cause.peerAlert == 70, "protocol_version: \(cause)")
            #expect(server.waitForHandshakeFailures(1))
            #expect(server.tlsHandshakeFailures == 1)
        }
    }

    @Test func clientMaximumBelowServerMinimumIsAVersionMismatch() throws {
        try withClientAndServer(configure: { configuration in
            Self.trustTestRoot()(&configuration)
            configuration.tls.maximumVersion = .tls1_2
        }, serving: ScriptedServer(tls: ServerTLS(minimumVersion: .tls1_3))) { client, server throws in
            let cause = try #require(try Self.tlsFailure(client, "\(server.baseURL)/hello"))
            #expect(cause.reason == .protocolVersionMismatch, "\(cause)")
            #expect(cause.peerAlert == 70, "protocol_version: \(cause)")
            #expect(server.waitForHandshakeFailures(1))
            #expect(server.tlsHandshakeFailures == 1)
        }
    }

    @Test func selfSignedFails() throws {
        try Self.withServer("selfsigned.pem", "selfsigned.key") { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .selfSigned)
        }
    }

    @Test func untrustedRootFails() throws {
        try Self.withServer("untrusted-chain.pem", "untrusted.key") { client, server throws in
            #expect(try Self.verificationFailure(client, "\(server.baseURL)/hello") == .untrustedRoot)
        }
    }

    @Test func ipAddressSANMatches() throws {
        try Self.withServer("ip-chain.pem", "ip.key") { client, server in
            let result = run(client, try get("https://127.0.0.1:\(server.port)/hello"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "hello")
            // RFC 6066 §3: no SNI for an IP literal.
            #expect(server.requests.first?.tlsServerName == nil)
        }
    }

    @Test func ipAddressMismatchFails() throws {
        // valid.pem names localhost and ::1, not 127.0.0.1.
        try Self.withServer("valid-chain.pem", "valid.key") { client, server throws in
            #expect(try Self.verificationFailure(client, "https://127.0.0.1:\(server.port)/hello") == .ipAddressMismatch)
        }
    }

    @Test func noHostnameVerificationAcceptsWrongHost() throws {
        try Self.withServer(
            "wronghost-chain.pem", "wronghost.key", verification: .noHostnameVerification
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "hello")
            // The chain is still checked: an expired certificate still fails.
            let expired = try Self.server("expired-chain.pem", "expired.key")
            defer { expired.shutdown() }
            #expect(try Self.verificationFailure(client, "\(expired.baseURL)/hello") == .expired)
        }
    }

    @Test func verificationNoneAcceptsSelfSigned() throws {
        try Self.withServer("selfsigned.pem", "selfsigned.key", verification: .none) { client, server in
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "hello")
        }
    }

    @Test func mutualTLSWithoutClientCertificateFails() throws {
        try Self.withServer("valid-chain.pem", "valid.key", clientCA: "ca.pem") { client, server in
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.head == nil)
            let error = try #require(result.error)
            #expect(error.code == .tls, "\(error)")
            #expect(error.phase == .tls, "\(error)")
            // TLS 1.3: the client's handshake is over before the server judges its certificate,
            // so the verdict (alert certificate_required, 116) arrives on the first read.
            let cause = try #require(error.cause as? TLSError, "\(error)")
            #expect(cause.reason == .handshakeFailed, "\(cause)")
            #expect(cause.peerAlert == 116, "\(cause)")
            #expect(server.requests.isEmpty)
            #expect(server.waitForHandshakeFailures(1))
            #expect(server.tlsHandshakeFailures == 1)
        }
    }

    @Test func mutualTLSWithClientCertificateSucceeds() throws {
        try withClientAndServer(configure: { configuration in
            Self.trustTestRoot()(&configuration)
            configuration.tls.certificateChainFile = TestCertificates.path("client.pem")
            configuration.tls.privateKeyFile = TestCertificates.path("client.key")
        }, tls: ServerTLS(clientCA: "ca.pem")) { client, server in
            server.route("/who") { _, connection in
                try connection.respond(body: connection.peerCertificateSubject ?? "nobody")
            }
            let result = run(client, try get("\(server.baseURL)/who"))
            #expect(result.head?.status == 200, "\(String(describing: result.error))")
            #expect(result.bodyString != "nobody")
            #expect(!result.bodyString.isEmpty)
        }
    }

    // MARK: Truncation (RFC 8446 §6.1, RFC 9112 §6.3 ¶8)

    /// A body delimited by the close, then the server closes with or without close_notify.
    static func closeDelimitedServer(closeNotify: Bool) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: ServerTLS())
        server.route("/until-close") { _, connection in
            try connection.sendHead(status: 200, headers: [("Connection", "close")])
            try connection.send("the body ends when the connection does")
            connection.close(sendCloseNotify: closeNotify)
        }
        server.route("/length") { _, connection in
            try connection.sendHead(status: 200, headers: [("Content-Length", "5")])
            try connection.send("12345")
            connection.close(sendCloseNotify: false)
        }
        return server
    }

    @Test func closeDelimitedBodyWithoutCloseNotifyIsTruncation() throws {
        try withClientAndServer(
            configure: Self.trustTestRoot(), serving: Self.closeDelimitedServer(closeNotify: false)
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/until-close"))
            #expect(result.head?.status == 200)
            #expect(result.error?.code == .remoteClosedDuringBody, "\(String(describing: result.error))")
        }
    }

    @Test func closeDelimitedBodyWithCloseNotifySucceeds() throws {
        try withClientAndServer(
            configure: Self.trustTestRoot(), serving: Self.closeDelimitedServer(closeNotify: true)
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/until-close"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "the body ends when the connection does")
        }
    }

    @Test func contentLengthBodyThenCloseWithoutCloseNotifySucceeds() throws {
        try withClientAndServer(
            configure: Self.trustTestRoot(), serving: Self.closeDelimitedServer(closeNotify: false)
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/length"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "12345")
        }
    }
}
