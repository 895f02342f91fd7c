import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// `SecurityPolicy` through an `HTTPSessionManager` over HTTPS on loopback: pins that match,
/// pins that do not (typed failure naming what the server has), certificate pinning from a PEM
/// file, per-host policies, and the http + pinning refusal.
@Suite(.serialized) struct HTTPSecurityTests {
    static let validTLS = ServerTLS(certificateChain: "valid-chain.pem", privateKey: "valid.key")
    static let validSubjects = ["/CN=localhost", "/CN=Courier Test Intermediate", "/CN=Courier Test Root"]

    static func certificate(_ name: String) throws -> TLSCertificate {
        try #require(SecurityPolicy.certificates(pemFile: TestCertificates.path(name)).first)
    }

    static func pin(_ name: String) throws -> String { SecurityPolicy.publicKeyPin(of: try certificate(name)) }

    /// GET `path` with the raw-bytes serializer; the body text or the error.
    static func fetch(_ manager: HTTPSessionManager, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Result<String, CourierError> {
        manager.responseSerializer = HTTPResponseSerializer().erased
        let outcome = Outcome<Result<String, CourierError>>()
        let task = manager.GET(path, success: { _, value in
            outcome.set(.success((value as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "<not data>"))
        }, failure: { _, error in outcome.set(.failure(error)) })
        #expect(task != nil, sourceLocation: sourceLocation)
        return try #require(outcome.wait(), "the request did not finish", sourceLocation: sourceLocation)
    }

    /// ``fetch(_:_:sourceLocation:)``'s body text, or a description of the failure.
    static func text(_ manager: HTTPSessionManager, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do { return try fetch(manager, path, sourceLocation: sourceLocation).successText } catch { return "failed: \(error)" }
    }

    static func serveHello(_ server: ScriptedServer) {
        server.route("/hello") { _, connection in try connection.respond(body: "hello") }
    }

    /// The request was refused as a trust decision, before anything was sent.
    static func expectRejected(
        _ result: Result<String, CourierError>, _ reason: TrustFailure, _ server: ScriptedServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(let error) = result else {
            Issue.record("the request succeeded", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .serverTrustRejected, "\(error)", sourceLocation: sourceLocation)
        #expect(error.phase == .trust, sourceLocation: sourceLocation)
        #expect(error.underlying as? TrustFailure == reason, "\(error)", sourceLocation: sourceLocation)
        #expect(error.response == nil, sourceLocation: sourceLocation)
        #expect(server.requests.isEmpty, "a request reached the server", sourceLocation: sourceLocation)
    }

    @Test func theRightPublicKeyPinSucceeds() throws {
        let policy = try SecurityPolicy(publicKeyPins: [Self.pin("valid.pem")])
        try withHTTPSession(baseURLPath: "", tls: Self.validTLS, securityPolicy: policy) { manager, server in
            Self.serveHello(server)
            #expect(manager.baseURL?.scheme == "https")
            #expect(Self.text(manager, "hello") == "hello")
            #expect(server.tlsHandshakesCompleted == 1)
        }
        // A pin of the intermediate is as good as one of the leaf.
        let intermediate = try SecurityPolicy(publicKeyPins: [Self.pin("intermediate.pem")])
        try withHTTPSession(tls: Self.validTLS, securityPolicy: intermediate) { manager, server in
            Self.serveHello(server)
            #expect(Self.text(manager, "hello") == "hello")
        }
    }

    @Test func aWrongPublicKeyPinFailsNamingTheServersKeys() throws {
        let policy = try SecurityPolicy(publicKeyPins: [Self.pin("other-ca.pem")])
        let seen = try ["valid.pem", "intermediate.pem", "ca.pem"].map { try Self.pin($0) }
        try withHTTPSession(tls: Self.validTLS, securityPolicy: policy) { manager, server in
            Self.serveHello(server)
            let result = try Self.fetch(manager, "hello")
            let bare = seen.map { String($0.dropFirst("sha256/".count)) }
            Self.expectRejected(result, .noPinnedPublicKeyInChain(host: "localhost", seenPins: bare), server)
            if case .failure(let error) = result {
                let text = "\(error)"
                for pin in seen { #expect(text.contains(pin), "the message lists \(pin): \(text)") }
                #expect(error.failingURL?.absoluteString == server.baseURL + "/hello")
            }
        }
    }

    @Test func certificatePinningWithTheLeafFromAPEMFile() throws {
        let leaf = try SecurityPolicy.certificates(pemFile: TestCertificates.path("valid.pem"))
        #expect(leaf.count == 1)
        let policy = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: Set(leaf))
        try withHTTPSession(tls: Self.validTLS, securityPolicy: policy) { manager, server in
            Self.serveHello(server)
            #expect(Self.text(manager, "hello") == "hello")
        }
        // Another certificate pinned: the same server is refused, with its chain named.
        let other = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Self.certificate("selfsigned.pem")])
        try withHTTPSession(tls: Self.validTLS, securityPolicy: other) { manager, server in
            Self.serveHello(server)
            let result = try Self.fetch(manager, "hello")
            Self.expectRejected(result, .noPinnedCertificateInChain(host: "localhost", chainSubjects: Self.validSubjects), server)
        }
    }

    @Test func aCommonNameOnlyCertificateIsAHostnameMismatch() throws {
        // CN=localhost and no subjectAltName: RFC 9525 §6.3 forbids using the CN-ID.
        let tls = ServerTLS(certificateChain: "cnonly-chain.pem", privateKey: "cnonly.key")
        try withHTTPSession(tls: tls) { manager, server in
            Self.serveHello(server)
            let result = try Self.fetch(manager, "hello")
            Self.expectRejected(result, .certificateVerificationFailed(host: "localhost", .hostnameMismatch), server)
        }
        // The policy's own name check (verification off, the leaf pinned) refuses it as well.
        let pinned = try SecurityPolicy(publicKeyPins: [Self.pin("cnonly.pem")], allowInvalidCertificates: true)
        try withHTTPSession(tls: tls, securityPolicy: pinned) { manager, server in
            Self.serveHello(server)
            let result = try Self.fetch(manager, "hello")
            Self.expectRejected(result, .hostnameMismatch(host: "localhost", certificateSubject: "/CN=localhost"), server)
        }
    }

    @Test func certificateFingerprintPins() throws {
        let leaf = SecurityPolicy.certificateFingerprint(of: try Self.certificate("valid.pem"))
        try withHTTPSession(tls: Self.validTLS, securityPolicy: try SecurityPolicy(certificateFingerprints: [leaf])) { manager, server in
            Self.serveHello(server)
            #expect(Self.text(manager, "hello") == "hello")
        }
        let wrong = try SecurityPolicy(certificateFingerprints: [SecurityPolicy.certificateFingerprint(of: try Self.certificate("other-ca.pem"))])
        let seen = try ["valid.pem", "intermediate.pem", "ca.pem"].map { SecurityPolicy.certificateFingerprint(of: try Self.certificate($0)) }
        try withHTTPSession(tls: Self.validTLS, securityPolicy: wrong) { manager, server in
            Self.serveHello(server)
            Self.expectRejected(try Self.fetch(manager, "hello"), .noPinnedFingerprintInChain(host: "localhost", seenFingerprints: seen), server)
        }
    }

    @Test func aPerHostPolicyAppliesToItsHostOnly() throws {
        // A leaf naming both localhost and 127.0.0.1, from a root the session is told to trust.
        let tls = ServerTLS(certificateChain: "untrusted-chain.pem", privateKey: "untrusted.key")
        let wrong = try SecurityPolicy(publicKeyPins: [Self.pin("valid.pem")])
        let seen = try ["untrusted.pem", "other-ca.pem"].map { String(try Self.pin($0).dropFirst("sha256/".count)) }
        try withHTTPSession(baseURLPath: nil, tls: tls, configure: { configuration in
            configuration.client.tls.trustRoots = [.file(TestCertificates.path("ca.pem")), .file(TestCertificates.path("other-ca.pem"))]
        }) { manager, server in
            Self.serveHello(server)
            try manager.session.securityPolicies.setPolicy(wrong, forHost: "127.0.0.1")
            #expect(manager.session.securityPolicies.policy(forHost: "localhost") == .default)
            let byName = "https://localhost:\(server.port)/hello"
            let byAddress = "https://127.0.0.1:\(server.port)/hello"

            #expect(Self.text(manager, byName) == "hello", "localhost uses the default policy")
            let refused = try Self.fetch(manager, byAddress)
            guard case .failure(let error) = refused else {
                Issue.record("127.0.0.1 was accepted despite its wrong pin")
                return
            }
            #expect(error.code == .serverTrustRejected && error.phase == .trust, "\(error)")
            #expect(error.underlying as? TrustFailure == .noPinnedPublicKeyInChain(host: "127.0.0.1", seenPins: seen))
            #expect(server.requests.count == 1, "only the localhost request was sent")
            #expect(server.requests.first?.tlsServerName == "localhost")

            // Removing the entry applies to the next connection.
            manager.session.securityPolicies.removePolicy(forHost: "127.0.0.1")
            #expect(Self.text(manager, byAddress) == "hello")
            #expect(server.requests.count == 2)
        }
    }

    @Test func aPinningPolicyWithAnHTTPBaseURLIsRefused() throws {
        let policy = try SecurityPolicy(publicKeyPins: [Self.pin("valid.pem")])
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                #expect {
                    _ = try HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:9/v1")!, securityPolicy: policy)
                } throws: { error in
                    guard let error = error as? CourierError else { return false }
                    return error.code == .invalidSecurityPolicy && error.detail?.contains("https") == true
                }
                // The same policy with an https base URL, and no pinning with http, are fine.
                let https = try HTTPSessionManager(baseURL: URL(string: "https://127.0.0.1:9/v1")!, securityPolicy: policy)
                invalidateAndWait(https.session)
                let plain = try HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:9/v1")!, securityPolicy: .default)
                invalidateAndWait(plain.session)
            }
        }
    }

    @Test func aPinnedHostIsNotReachedOverPlainHTTP() throws {
        // Without a base URL the manager cannot refuse at creation; the request is refused instead.
        let policy = try SecurityPolicy(publicKeyPins: [Self.pin("valid.pem")])
        try withHTTPSession(baseURLPath: nil, securityPolicy: policy) { manager, server in
            Self.serveHello(server)
            let result = try Self.fetch(manager, server.baseURL + "/hello")
            guard case .failure(let error) = result else {
                Issue.record("a pinning policy was silently ignored over http")
                return
            }
            #expect(error.code == .invalidSecurityPolicy, "\(error)")
            #expect(error.phase == .serialize)
            #expect(error.failingURL?.absoluteString == server.baseURL + "/hello")
            #expect(server.requests.isEmpty)
            #expect(server.connectionsAccepted == 0, "not even a connection was made")
            // A host with a policy of its own that does not pin is reachable over http.
            try manager.session.securityPolicies.setPolicy(.default, forHost: "127.0.0.1")
            #expect(Self.text(manager, server.baseURL + "/hello") == "hello")
        }
    }
}

extension Result where Success == String, Failure == CourierError {
    /// The body of a success; the error's description otherwise, so that a failed check shows why.
    var successText: String {
        switch self {
        case .success(let text): text
        case .failure(let error): "failed: \(error)"
        }
    }
}
