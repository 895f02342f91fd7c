import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// Requests through a forward proxy: absolute form for `http`, a CONNECT tunnel for `https`
/// (RFC 9112 §3.2.2, RFC 9110 §9.3.6), with and without Basic proxy credentials.
@Suite(.serialized) struct ProxyIntegrationTests {
    /// Like `withClient`, with a `ConnectProxy` started inside the descriptor accounting and
    /// the client configured to use it.
    static func withProxiedClient(
        proxyCredentials: (user: String, password: String)? = nil,
        clientCredentials: ProxyCredentials? = nil,
        _ body: (ConnectProxy, HTTPClient) throws -> Void
    ) throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let proxy = try ConnectProxy(credentials: proxyCredentials)
                defer { proxy.shutdown() }
                var configuration = HTTPClientConfiguration()
                configuration.eventLoopThreads = 2
                configuration.proxy = .http(try ProxyServer(host: "127.0.0.1", port: proxy.port, credentials: clientCredentials))
                configuration.timeouts.tlsHandshake = .seconds(5)
                configuration.tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
                let client = try HTTPClient(configuration: configuration)
                defer { client.shutdown() }
                try body(proxy, client)
            }
        }
    }

    static func helloServer(tls: Bool) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: tls ? ServerTLS() : nil)
        server.route("/hello") { request, connection in
            try connection.respond(body: "hello \(request.target)")
        }
        return server
    }

    @Test func plainHTTPGoesInAbsoluteForm() throws {
        try Self.withProxiedClient { proxy, client in
            let server = try Self.helloServer(tls: false)
            defer { server.shutdown() }
            let result = run(client, try get("\(server.baseURL)/hello?x=1"))
            #expect(result.head?.status == 200, "\(String(describing: result.error))")
            // The proxy forwards in origin form.
            #expect(result.bodyString == "hello /hello?x=1")
            #expect(proxy.forwardedTargets == ["\(server.baseURL)/hello?x=1"])
            #expect(proxy.connectTargets.isEmpty)
            #expect(server.requests.first?.header("Host") == server.authority)
        }
    }

    @Test func httpsGoesThroughConnectTunnel() throws {
        try Self.withProxiedClient { proxy, client in
            let server = try Self.helloServer(tls: true)
            defer { server.shutdown() }
            let first = run(client, try get("\(server.baseURL)/hello"))
            #expect(first.head?.status == 200, "\(String(describing: first.error))")
            #expect(first.bodyString == "hello /hello")
            #expect(first.metrics?.tlsVersion != nil)
            #expect(proxy.connectTargets == [server.authority])
            #expect(proxy.forwardedTargets.isEmpty)
            #expect(server.requests.first?.tlsServerName == "localhost")
            // The tunnel is a keep-alive connection like any other.
            let second = run(client, try get("\(server.baseURL)/hello"))
            #expect(second.metrics?.reusedConnection == true)
            #expect(proxy.connectTargets.count == 1)
        }
    }

    /// RFC 9112 §3.2.3: the authority-form target is `uri-host ":" port`, and an IPv6 uri-host is
    /// an IP-literal in brackets (RFC 3986 §3.2.2). Found while writing the FuzzURL fuzzer's model of
    /// what the client sends: HTTP1Connection.startProxyTunnel passes the origin's host without
    /// brackets (`.authority(host: "::1", port: 1)`). The encoder, which checks the authority by
    /// RFC 3986's grammar, refuses it, so an `https` request to an IPv6 host can never go through
    /// a proxy: it fails with `invalidRequest` before the proxy sees a CONNECT. (Before the encoder
    /// checked, `CONNECT ::1:1` went out.) Not fixed on this branch; the known issue turns into a
    /// failure once it is.
    @Test func connectTargetBracketsAnIPv6Host() throws {
        try Self.withProxiedClient { proxy, client in
            let result = run(client, try get("https://[::1]:1/hello"))
            // Nothing listens on port 1: the request fails either way. What matters is what the
            // proxy was asked for.
            #expect(result.error != nil)
            #expect(proxy.connectTargets == ["[::1]:1"], "\(String(describing: result.error))")
        }
    }

    @Test func connectWithoutCredentialsFailsInProxyPhase() throws {
        try Self.withProxiedClient(proxyCredentials: (user: "user", password: "pa:ss")) { proxy, client in
            let server = try Self.helloServer(tls: true)
            defer { server.shutdown() }
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.head == nil)
            let error = try #require(result.error)
            #expect(error.phase == .proxy, "\(error)")
            #expect(error.detail?.contains("407") == true, "\(error)")
            #expect(proxy.rejectedForAuthentication == 1)
            #expect(server.connectionsAccepted == 0)
        }
    }

    @Test func plainRequestWithoutCredentialsGets407() throws {
        try Self.withProxiedClient(proxyCredentials: (user: "user", password: "pa:ss")) { proxy, client in
            let server = try Self.helloServer(tls: false)
            defer { server.shutdown() }
            // For an absolute-form request the proxy's answer is the response.
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.head?.status == 407)
            #expect(result.head?.headers[first: "Proxy-Authenticate"]?.hasPrefix("Basic") == true)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func credentialsAreSentForConnectAndAbsoluteForm() throws {
        let credentials = ProxyCredentials(username: "user", password: "pa:ss")
        let expected = "Basic " + "dXNlcjpwYTpzcw=="  // base64("user:pa:ss")
        try Self.withProxiedClient(proxyCredentials: (user: "user", password: "pa:ss"), clientCredentials: credentials) { proxy, client in
            let tlsServer = try Self.helloServer(tls: true)
            defer { tlsServer.shutdown() }
            let plainServer = try Self.helloServer(tls: false)
            defer { plainServer.shutdown() }
            let tunnelled = run(client, try get("\(tlsServer.baseURL)/hello"))
            #expect(tunnelled.head?.status == 200, "\(String(describing: tunnelled.error))")
            let forwarded = run(client, try get("\(plainServer.baseURL)/hello"))
            #expect(forwarded.head?.status == 200, "\(String(describing: forwarded.error))")
            #expect(proxy.authorizations == [expected, expected])
            // The tunnelled request itself never carries the proxy's credentials to the origin,
            // and the proxy strips them from forwarded requests.
            #expect(tlsServer.requests.first?.header("Proxy-Authorization") == nil)
            #expect(plainServer.requests.first?.header("Proxy-Authorization") == nil)
        }
    }

    /// `ProxyConfiguration.environment` reads the process environment when a request starts
    /// (`ProxyEnvironment.current()`), and the test process is shared by suites running in
    /// parallel, so setting variables here would race. What the client does with an
    /// environment is decided by `proxy(for:environment:)`, tested with an injected one.
    @Test func environmentSelectionWithInjectedEnvironment() throws {
        let environment = [
            "http_proxy": "http://user:secret@127.0.0.1:3128", "https_proxy": "127.0.0.1:3129",
            "no_proxy": "internal.example",
        ]
        let plain = try ProxyConfiguration.environment.proxy(for: HTTPURL("http://example.com/"), environment: environment)
        #expect(plain?.authority == "127.0.0.1:3128")
        #expect(plain?.credentials == ProxyCredentials(username: "user", password: "secret"))
        let secure = try ProxyConfiguration.environment.proxy(for: HTTPURL("https://example.com/"), environment: environment)
        #expect(secure?.authority == "127.0.0.1:3129")
        #expect(try ProxyConfiguration.environment.proxy(for: HTTPURL("http://internal.example/"), environment: environment) == nil)
        #expect(try ProxyConfiguration.environment.proxy(for: HTTPURL("http+unix://%2Fsock/x"), environment: environment) == nil)
        // HTTP_PROXY (uppercase) is ignored on purpose (httpoxy).
        #expect(try ProxyConfiguration.environment.proxy(for: HTTPURL("http://example.com/"), environment: ["HTTP_PROXY": "127.0.0.1:1"]) == nil)
        #expect(throws: ProxyError.self) {
            try ProxyConfiguration.environment.proxy(for: HTTPURL("http://example.com/"), environment: ["http_proxy": "socks4://127.0.0.1:1"])
        }
        // A socks5:// value in http_proxy selects a SOCKS5 proxy, as in curl.
        let socks = try ProxyConfiguration.environment.proxy(for: HTTPURL("http://example.com/"), environment: ["http_proxy": "socks5://127.0.0.1:1"])
        #expect(socks?.scheme == .socks5)
    }
}
