import Courier
import CourierClient
import CourierTestSupport
import CourierTLS
import Dispatch
import FoundationEssentials
import Testing

/// Revocation against a real server: nginx stapling OCSP responses that a real `openssl ocsp`
/// responder produced, for a valid leaf and a revoked one. Requested through `HTTPClient` with
/// the request's TLS settings and through an `HTTPSessionManager` whose ``SecurityPolicy``
/// requires a good staple. Skipped, with the reason recorded, where nginx is not installed
/// (`make deps` installs it); the test itself installs nothing.
@Suite(.serialized) struct NginxStaplingTests {
    static let requireStaple = RevocationPolicy(requireStapledOCSP: true)

    @Test(.enabled(if: NginxServer.executable != nil, "nginx is not installed: `make deps` installs the Debian package"))
    func stapledResponsesFromNginx() throws {
        let executable = try #require(NginxServer.executable)
        // The responses first, from a responder that is stopped before anything else runs.
        let responder = try OCSPResponder()
        let good: [UInt8]
        let revoked: [UInt8]
        do {
            defer { responder.stop() }
            good = try responder.response(for: "valid.pem")
            revoked = try responder.response(for: "revoked.pem")
        }
        let validServer = try NginxServer(executable: executable, certificateChain: "valid-chain.pem", privateKey: "valid.key", staple: good)
        defer { validServer.stop() }
        let revokedServer = try NginxServer(executable: executable, certificateChain: "revoked-chain.pem", privateKey: "revoked.key", staple: revoked)
        defer { revokedServer.stop() }

        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                try Self.throughHTTPClient(valid: validServer, revoked: revokedServer)
                try Self.throughSessionManager(valid: validServer, revoked: revokedServer)
            }
        }
    }

    static func throughHTTPClient(valid: NginxServer, revoked: NginxServer) throws {
        var configuration = HTTPClientConfiguration()
        configuration.eventLoopThreads = 1
        configuration.tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
        configuration.timeouts.tlsHandshake = .seconds(5)
        let client = try HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        var tls = configuration.tls
        tls.revocation = requireStaple

        func fetch(_ server: NginxServer) throws -> TransportRecorder {
            var request = try HTTPClientRequest(method: .GET, url: server.baseURL + "/hello")
            request.tls = tls
            let recorder = TransportRecorder()
            client.execute(request, delegate: recorder)
            #expect(recorder.wait(), "the request did not end")
            return recorder
        }
        let good = try fetch(valid)
        #expect(good.status == 200 && good.bodyString == "hello", "\(String(describing: good.error))")
        let bad = try fetch(revoked)
        #expect(bad.status == nil)
        #expect((bad.error?.cause as? TLSError)?.reason == .certificateVerificationFailed(.revoked), "\(String(describing: bad.error))")
        // Without revocation checking the same server is accepted: the check is opt-in.
        var plain = try HTTPClientRequest(method: .GET, url: revoked.baseURL + "/hello")
        plain.tls = configuration.tls
        let unchecked = TransportRecorder()
        client.execute(plain, delegate: unchecked)
        #expect(unchecked.wait())
        #expect(unchecked.bodyString == "hello", "\(String(describing: unchecked.error))")
    }

    static func throughSessionManager(valid: NginxServer, revoked: NginxServer) throws {
        var policy = SecurityPolicy.default
        try policy.setRevocation(requireStaple)
        for (server, expected) in [(valid, nil), (revoked, TrustFailure.certificateVerificationFailed(host: "localhost", .revoked))] {
            let manager = try HTTPSessionManager(
                baseURL: URL(string: server.baseURL + "/"),
                configuration: HTTPSessionFixtures.configuration(tls: true, { _ in }), securityPolicy: policy)
            defer { invalidateAndWait(manager.session) }
            let result = try HTTPSecurityTests.fetch(manager, "hello")
            switch (result, expected) {
            case (.success(let text), nil):
                #expect(text == "hello")
            case (.failure(let error), let expected?):
                #expect(error.code == .serverTrustRejected, "\(error)")
                #expect(error.underlying as? TrustFailure == expected, "\(error)")
            default:
                Issue.record("\(server.baseURL): \(result), expected \(String(describing: expected))")
            }
        }
    }
}
