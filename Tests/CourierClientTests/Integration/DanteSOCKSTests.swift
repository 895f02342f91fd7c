#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierTestSupport
import Testing

/// The SOCKS5 client against a real proxy Courier did not write: Dante's `danted`, started on
/// loopback with a generated configuration. `socks5` and `socks5h`, plain HTTP and HTTPS,
/// without authentication and with RFC 1929 username/password (Dante checks those against the
/// system's users: `make deps` creates ``DanteServer/testUser`` when it runs as root).
@Suite(.serialized) struct DanteSOCKSTests {
    static let danteMissing = "danted is not installed, or this is not root (it switches users): `make deps` installs dante-server"
    static var canRunDante: Bool { DanteServer.executable != nil && geteuid() == 0 }

    /// Starts danted and a plain and a TLS origin inside the descriptor accounting, then runs
    /// `body` with a client for each SOCKS kind.
    static func withDante(
        authentication: DanteServer.Authentication,
        credentials: ProxyCredentials?,
        _ body: (ProxyServer.Scheme, HTTPClient, _ plain: ScriptedServer, _ tls: ScriptedServer) throws -> Void
    ) throws {
        let executable = try #require(DanteServer.executable)
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let dante = try DanteServer(executable: executable, authentication: authentication)
                defer { dante.stop() }
                let plain = try SOCKSIntegrationTests.helloServer(tls: false)
                defer { plain.shutdown() }
                let tls = try SOCKSIntegrationTests.helloServer(tls: true)
                defer { tls.shutdown() }
                for scheme in [ProxyServer.Scheme.socks5, .socks5h] {
                    var configuration = HTTPClientConfiguration()
                    configuration.eventLoopThreads = 1
                    configuration.proxy = .socks5(try ProxyServer(host: "127.0.0.1", port: dante.port, credentials: credentials, scheme: scheme))
                    configuration.timeouts.connect = .seconds(10)
                    configuration.tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
                    let client = try HTTPClient(configuration: configuration)
                    defer { client.shutdown() }
                    try body(scheme, client, plain, tls)
                }
            }
        }
    }

    @Test(.enabled(if: canRunDante, Comment(rawValue: danteMissing)))
    func withoutAuthentication() throws {
        try Self.withDante(authentication: .none, credentials: nil) { scheme, client, plain, tls in
            // A name (resolved here for socks5, by Dante for socks5h) and an address.
            let byName = run(client, try get("http://localhost:\(plain.port)/hello"))
            #expect(byName.head?.status == 200, "\(scheme): \(String(describing: byName.error))")
            #expect(byName.bodyString == "hello /hello")
            let byAddress = run(client, try get("http://127.0.0.1:\(plain.port)/hello?a=1"))
            #expect(byAddress.bodyString == "hello /hello?a=1", "\(scheme): \(String(describing: byAddress.error))")
            let secure = run(client, try get("\(tls.baseURL)/hello"))
            #expect(secure.head?.status == 200, "\(scheme): \(String(describing: secure.error))")
            #expect(secure.metrics?.tlsVersion != nil)
            let again = run(client, try get("\(tls.baseURL)/hello"))
            #expect(again.metrics?.reusedConnection == true)
            // Dante refuses what it cannot reach with a reply code, typed.
            let refused = run(client, try get("http://127.0.0.1:1/"))
            #expect(refused.error?.code == .proxyHandshakeFailed, "\(String(describing: refused.error))")
            #expect(refused.error?.cause as? SOCKSError == .requestFailed(.connectionRefused))
        }
    }

    @Test(.enabled(if: canRunDante, Comment(rawValue: danteMissing)))
    func noCredentialsForAProxyThatWantsThem() throws {
        try Self.withDante(authentication: .username, credentials: nil) { scheme, client, plain, _ in
            let result = run(client, try get("http://127.0.0.1:\(plain.port)/hello"))
            #expect(result.error?.cause as? SOCKSError == .noAcceptableMethods, "\(scheme): \(String(describing: result.error))")
            #expect(plain.connectionsAccepted == 0)
        }
    }

    @Test(.enabled(if: canRunDante && DanteServer.testUserExists, "needs danted and the system user make deps creates as root"))
    func usernameAndPassword() throws {
        let right = ProxyCredentials(username: DanteServer.testUser, password: DanteServer.testPassword)
        try Self.withDante(authentication: .username, credentials: right) { scheme, client, plain, tls in
            let byName = run(client, try get("http://localhost:\(plain.port)/hello"))
            #expect(byName.head?.status == 200, "\(scheme): \(String(describing: byName.error))")
            let secure = run(client, try get("\(tls.baseURL)/hello"))
            #expect(secure.head?.status == 200, "\(scheme): \(String(describing: secure.error))")
            #expect(plain.requests.last?.header("Proxy-Authorization") == nil)
        }
        let wrong = ProxyCredentials(username: DanteServer.testUser, password: "not-the-password")
        try Self.withDante(authentication: .username, credentials: wrong) { scheme, client, plain, _ in
            let result = run(client, try get("http://127.0.0.1:\(plain.port)/hello"))
            #expect(result.error?.code == .proxyHandshakeFailed, "\(scheme): \(String(describing: result.error))")
            guard case .authenticationFailed? = result.error?.cause as? SOCKSError else {
                Issue.record("\(scheme): not an authentication failure: \(String(describing: result.error))")
                return
            }
            #expect(plain.connectionsAccepted == 0)
        }
    }
}
