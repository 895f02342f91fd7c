import CourierClient
import CourierCore
import CourierTestSupport
import CourierTLS
import Testing

/// `HTTPClientRequest.tls`: a request's own TLS settings, which are part of the pool key.
@Suite(.serialized) struct PerRequestTLSTests {
    /// Trusts the test root, with full verification (what the client uses when `tls` is nil
    /// in the tests that set up the client with `TLSMatrixTests.trustTestRoot()`).
    static var trustingTestRoot: TLSConfiguration {
        var tls = TLSConfiguration()
        tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
        return tls
    }

    static var verifyingNothing: TLSConfiguration {
        var tls = TLSConfiguration()
        tls.verification = .none
        return tls
    }

    static func get(_ url: String, tls: TLSConfiguration?) throws -> HTTPClientRequest {
        var request = try HTTPClientRequest(method: .GET, url: url)
        request.tls = tls
        return request
    }

    @Test func theOverrideReplacesTheClientsSettingsAndIsNotShared() throws {
        // The client trusts only the system store, where the test root is not.
        try withClientAndServer(
            configure: { $0.tls.trustRoots = [.system]; $0.timeouts.tlsHandshake = .seconds(5) },
            serving: TLSMatrixTests.server("valid-chain.pem", "valid.key")
        ) { client, server in
            let trusted = run(client, try Self.get("\(server.baseURL)/hello", tls: Self.trustingTestRoot))
            #expect(trusted.error == nil, "\(String(describing: trusted.error))")
            #expect(trusted.bodyString == "hello")
            // The idle connection made with the override must not serve a request without it.
            let plain = run(client, try Self.get("\(server.baseURL)/hello", tls: nil))
            #expect(plain.error?.code == .tls, "\(String(describing: plain.error))")
            #expect((plain.error?.cause as? TLSError)?.reason == .certificateVerificationFailed(.untrustedRoot))
            // The same override again reuses its own connection.
            let again = run(client, try Self.get("\(server.baseURL)/hello", tls: Self.trustingTestRoot))
            #expect(again.bodyString == "hello")
            #expect(again.metrics?.reusedConnection == true)
            #expect(server.requests.count == 2)
        }
    }

    @Test func aLenientConnectionNeverServesAStrictRequest() throws {
        try withClientAndServer(
            configure: TLSMatrixTests.trustTestRoot(),
            serving: TLSMatrixTests.server("selfsigned.pem", "selfsigned.key")
        ) { client, server in
            let lenient = run(client, try Self.get("\(server.baseURL)/hello", tls: Self.verifyingNothing))
            #expect(lenient.bodyString == "hello", "\(String(describing: lenient.error))")
            let strict = run(client, try Self.get("\(server.baseURL)/hello", tls: nil))
            #expect((strict.error?.cause as? TLSError)?.reason == .certificateVerificationFailed(.selfSigned),
                    "\(String(describing: strict.error))")
            #expect(server.requests.count == 1)
        }
    }

    @Test func theOverrideHoldsForTheWholeRedirectChain() throws {
        // selfsigned.pem names both localhost and 127.0.0.1: two origins on one server.
        try withClientAndServer(
            configure: TLSMatrixTests.trustTestRoot(),
            serving: TLSMatrixTests.server("selfsigned.pem", "selfsigned.key")
        ) { client, server in
            // The route captures the port, not the server: a server that holds a route that holds
            // the server is a cycle (LeakSanitizer reports it in `make test-asan`).
            server.route("/start") { [port = server.port] _, connection in
                try connection.respond(status: 302, headers: [("Location", "https://127.0.0.1:\(port)/hello")])
            }
            let result = run(client, try Self.get("\(server.baseURL)/start", tls: Self.verifyingNothing))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "hello")
            #expect(result.metrics?.redirectCount == 1)
            #expect(server.requests.count == 2)
        }
    }

    @Test func theOverrideIsIgnoredForPlainHTTP() throws {
        try withClientAndServer(serving: try ScriptedServer()) { client, server in
            server.route("/plain") { _, connection in try connection.respond(body: "plain") }
            let result = run(client, try Self.get("\(server.baseURL)/plain", tls: Self.verifyingNothing))
            #expect(result.bodyString == "plain", "\(String(describing: result.error))")
        }
    }
}
