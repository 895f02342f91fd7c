#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierTestSupport
import Testing

/// Requests through a SOCKS5 proxy (RFC 1928, RFC 1929): the scripted ``SOCKS5Proxy`` for what
/// the client sends and for faults, `socks5` (resolved here) and `socks5h` (resolved by the
/// proxy), plain HTTP and HTTPS, with and without credentials.
@Suite(.serialized) struct SOCKSIntegrationTests {
    /// Like `withClient`, with a scripted SOCKS5 proxy started inside the descriptor accounting
    /// and the client configured to use it.
    static func withSOCKSClient(
        scheme: ProxyServer.Scheme = .socks5h,
        proxyCredentials: (user: String, password: String)? = nil,
        clientCredentials: ProxyCredentials? = nil,
        fault: SOCKS5ProxyFault? = nil,
        configure: (inout HTTPClientConfiguration) -> Void = { _ in },
        _ body: (SOCKS5Proxy, HTTPClient) throws -> Void
    ) throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let proxy = try SOCKS5Proxy(credentials: proxyCredentials, fault: fault)
                defer { proxy.shutdown() }
                var configuration = HTTPClientConfiguration()
                configuration.eventLoopThreads = 2
                configuration.proxy = .socks5(try ProxyServer(host: "127.0.0.1", port: proxy.port, credentials: clientCredentials, scheme: scheme))
                configuration.timeouts.tlsHandshake = .seconds(5)
                configuration.tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
                configure(&configuration)
                let client = try HTTPClient(configuration: configuration)
                defer { client.shutdown() }
                try body(proxy, client)
            }
        }
    }

    static func helloServer(tls: Bool, address: ServerAddress = .loopbackIPv4) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: tls ? ServerTLS() : nil, address: address)
        server.route("/hello") { request, connection in
            try connection.respond(body: "hello \(request.target)")
        }
        return server
    }

    /// The address `getaddrinfo` gives first for `localhost` (what `socks5` sends), as text.
    static func firstLocalhostAddress() -> String {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("localhost", "1", &hints, &list) == 0, let first = list else { return "127.0.0.1" }
        defer { freeaddrinfo(list) }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        // Safe: getaddrinfo filled ai_addr with ai_addrlen bytes; getnameinfo only reads them.
        getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
        return String(cString: text)
    }

    static func socksCause(_ result: RecordingDelegate) -> SOCKSError? { result.error?.cause as? SOCKSError }

    // MARK: socks5h and socks5, plain and TLS

    @Test func socks5hSendsTheNameAndOriginFormRequests() throws {
        try Self.withSOCKSClient { proxy, client in
            let server = try Self.helloServer(tls: false)
            defer { server.shutdown() }
            let result = run(client, try get("http://localhost:\(server.port)/hello?x=1"))
            #expect(result.head?.status == 200, "\(String(describing: result.error))")
            #expect(result.bodyString == "hello /hello?x=1")
            #expect(proxy.addressTypes == [3])
            #expect(proxy.destinations == ["localhost:\(server.port)"])
            #expect(proxy.methodsOffered == [[0]])
            #expect(server.requests.first?.target == "/hello?x=1")
            #expect(server.requests.first?.header("Host") == "localhost:\(server.port)")
            #expect(server.requests.first?.header("Proxy-Authorization") == nil)
        }
    }

    @Test func socks5ResolvesLocallyAndSendsAnAddress() throws {
        let first = Self.firstLocalhostAddress()
        try Self.withSOCKSClient(scheme: .socks5) { proxy, client in
            let server = try Self.helloServer(tls: false, address: first.contains(":") ? .loopbackIPv6 : .loopbackIPv4)
            defer { server.shutdown() }
            let result = run(client, try get("http://localhost:\(server.port)/hello"))
            #expect(result.head?.status == 200, "\(String(describing: result.error))")
            #expect(proxy.addressTypes == [first.contains(":") ? 4 : 1])
            #expect(proxy.destinations == [first.contains(":") ? "[\(first)]:\(server.port)" : "\(first):\(server.port)"])
            // The Host field still names the origin as the URL does.
            #expect(server.requests.first?.header("Host") == "localhost:\(server.port)")
        }
    }

    @Test func ipLiteralsGoAsAddressesEitherWay() throws {
        for scheme in [ProxyServer.Scheme.socks5, .socks5h] {
            try Self.withSOCKSClient(scheme: scheme) { proxy, client in
                let v4 = try Self.helloServer(tls: false)
                defer { v4.shutdown() }
                let v6 = try Self.helloServer(tls: false, address: .loopbackIPv6)
                defer { v6.shutdown() }
                #expect(run(client, try get("http://127.0.0.1:\(v4.port)/hello")).head?.status == 200)
                #expect(run(client, try get("http://[::1]:\(v6.port)/hello")).head?.status == 200)
                #expect(proxy.addressTypes == [1, 4], "\(scheme)")
                #expect(proxy.destinations == ["127.0.0.1:\(v4.port)", "[::1]:\(v6.port)"])
            }
        }
    }

    @Test func httpsThroughTheTunnelIsReused() throws {
        try Self.withSOCKSClient { proxy, client in
            let server = try Self.helloServer(tls: true)
            defer { server.shutdown() }
            let first = run(client, try get("\(server.baseURL)/hello"))
            #expect(first.head?.status == 200, "\(String(describing: first.error))")
            #expect(first.bodyString == "hello /hello")
            #expect(server.requests.first?.tlsServerName == "localhost")
            #expect(proxy.destinations == [server.authority])
            // The metrics: a new connection to the proxy, with TLS to the origin through it.
            let metrics = try #require(first.metrics)
            #expect(metrics.reusedConnection == false)
            #expect(metrics.remoteAddress?.port == proxy.port)
            #expect(metrics.tlsVersion != nil)
            #expect(metrics.connectEnd != nil && metrics.tlsStart != nil && metrics.tlsEnd != nil)
            let second = run(client, try get("\(server.baseURL)/hello"))
            #expect(second.head?.status == 200)
            #expect(second.metrics?.reusedConnection == true)
            #expect(proxy.tunnelsOpened == 1)
            #expect(proxy.connectionsAccepted == 1)
        }
    }

    // MARK: Authentication

    @Test func usernamePasswordForPlainAndTLS() throws {
        let credentials = ProxyCredentials(username: "user", password: "pa:ss")
        for scheme in [ProxyServer.Scheme.socks5, .socks5h] {
            try Self.withSOCKSClient(scheme: scheme, proxyCredentials: ("user", "pa:ss"), clientCredentials: credentials) { proxy, client in
                let tlsServer = try Self.helloServer(tls: true)
                defer { tlsServer.shutdown() }
                let plainServer = try Self.helloServer(tls: false)
                defer { plainServer.shutdown() }
                let tunnelled = run(client, try get("\(tlsServer.baseURL)/hello"))
                #expect(tunnelled.head?.status == 200, "\(String(describing: tunnelled.error))")
                let plain = run(client, try get("\(plainServer.baseURL)/hello"))
                #expect(plain.head?.status == 200, "\(String(describing: plain.error))")
                #expect(proxy.methodsOffered == [[0, 2], [0, 2]])
                #expect(proxy.authentications == ["user:pa:ss", "user:pa:ss"])
                // Nothing of the proxy's credentials reaches the origin.
                #expect(plainServer.requests.first?.header("Proxy-Authorization") == nil)
                #expect(tlsServer.requests.first?.header("Proxy-Authorization") == nil)
            }
        }
    }

    @Test func wrongPasswordFailsInProxyPhase() throws {
        let credentials = ProxyCredentials(username: "user", password: "wrong")
        try Self.withSOCKSClient(proxyCredentials: ("user", "right"), clientCredentials: credentials) { proxy, client in
            let server = try Self.helloServer(tls: true)
            defer { server.shutdown() }
            let result = run(client, try get("\(server.baseURL)/hello"))
            let error = try #require(result.error)
            #expect(error.code == .proxyHandshakeFailed, "\(error)")
            #expect(error.phase == .proxy)
            #expect(Self.socksCause(result) == .authenticationFailed(status: 1))
            #expect(!error.description.contains("wrong"))
            #expect(server.connectionsAccepted == 0)
        }
    }

    @Test func missingCredentialsFailWithNoAcceptableMethods() throws {
        try Self.withSOCKSClient(proxyCredentials: ("user", "pw")) { proxy, client in
            let result = run(client, try get("http://127.0.0.1:1/hello"))
            #expect(result.error?.code == .proxyHandshakeFailed)
            #expect(Self.socksCause(result) == .noAcceptableMethods)
            #expect(proxy.authentications.isEmpty)
        }
    }

    // MARK: Faults

    struct FaultCase: Sendable, CustomTestStringConvertible {
        var name: String
        var fault: SOCKS5ProxyFault
        var error: SOCKSError
        var testDescription: String { name }
    }

    static let faults: [FaultCase] = [
        .init(name: "not SOCKS5", fault: .methodReply([4, 0]), error: .unsupportedVersion(4)),
        .init(name: "GSSAPI chosen", fault: .methodReply([5, 1]), error: .unexpectedMethod(1)),
        .init(name: "closed after the greeting", fault: .methodReply([]), error: .closedDuringHandshake),
        .init(name: "closed before the reply", fault: .closeBeforeReply, error: .closedDuringHandshake),
        .init(name: "half a reply, then closed", fault: .connectReply([5, 0, 0, 1, 127]), error: .closedDuringHandshake),
        .init(name: "bad ATYP", fault: .connectReply([5, 0, 0, 9, 0, 0]), error: .unsupportedAddressType(9)),
        .init(name: "general failure", fault: .connectReply([5, 1, 0, 1, 0, 0, 0, 0, 0, 0]), error: .requestFailed(.generalFailure)),
        .init(name: "host unreachable", fault: .connectReply([5, 4, 0, 1, 0, 0, 0, 0, 0, 0]), error: .requestFailed(.hostUnreachable)),
        .init(name: "TTL expired", fault: .connectReply([5, 6, 0, 1, 0, 0, 0, 0, 0, 0]), error: .requestFailed(.ttlExpired)),
    ]

    @Test(arguments: faults)
    func proxyFaultEndsInTypedError(_ c: FaultCase) throws {
        try Self.withSOCKSClient(fault: c.fault) { proxy, client in
            for url in ["http://localhost:1/", "https://localhost:1/"] {
                let result = run(client, try get(url))
                #expect(result.head == nil)
                #expect(result.error?.code == .proxyHandshakeFailed, "\(String(describing: result.error))")
                #expect(result.error?.phase == .proxy)
                #expect(Self.socksCause(result) == c.error, "\(url)")
            }
        }
    }

    /// The proxy's own refusals, without faults: a target it may not reach, and one that refuses.
    @Test func proxyRefusalsAreTyped() throws {
        try Self.withSOCKSClient { proxy, client in
            let notAllowed = run(client, try get("http://192.0.2.1/"))
            #expect(Self.socksCause(notAllowed) == .requestFailed(.connectionNotAllowed))
            // Port 1 on loopback: nothing listens.
            let refused = run(client, try get("http://127.0.0.1:1/"))
            #expect(Self.socksCause(refused) == .requestFailed(.connectionRefused))
            #expect(refused.error?.description.contains("connection refused (5)") == true)
        }
    }

    /// A proxy that never answers: the handshake is bounded by the connect timeout.
    @Test func stalledHandshakeTimesOutAsConnect() throws {
        try Self.withSOCKSClient(fault: .stall, configure: { $0.timeouts.connect = .milliseconds(300) }) { proxy, client in
            let (result, elapsed) = timedRun(client, try get("https://localhost:1/"))
            let error = try #require(result.error)
            #expect(error.code == .connectTimeout, "\(error)")
            #expect(error.phase == .proxy)
            #expect(error.detail == "SOCKS5 handshake")
            #expect(proxy.greetingReceived.isSignaled)
            #expect(elapsed < .seconds(5))
        }
    }

    /// Bytes that arrive with the proxy's reply already belong to the origin: here a whole HTTP
    /// response, which must be the response the request gets.
    @Test func bytesAfterTheReplyReachTheHTTPParser() throws {
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nearly".utf8)
        try Self.withSOCKSClient(fault: .replyFollowedBy(response)) { proxy, client in
            let result = run(client, try get("http://localhost:9/x"))
            #expect(result.head?.status == 200, "\(String(describing: result.error))")
            #expect(result.bodyString == "early")
        }
    }

    // MARK: Input no handshake can carry

    @Test func overlongNameOrCredentialsAreRefusedBeforeConnecting() throws {
        // 4 labels of 63 bytes and one of 4: 260 bytes, a valid URL host.
        let label = String(repeating: "a", count: 63)
        let host = [label, label, label, label, "test"].joined(separator: ".")
        try Self.withSOCKSClient { proxy, client in
            let result = run(client, try get("http://\(host)/"))
            let error = try #require(result.error)
            #expect(error.code == .invalidRequest, "\(error)")
            #expect(error.phase == .proxy)
            #expect(Self.socksCause(result) == .domainNameTooLong(bytes: 260))
            #expect(proxy.connectionsAccepted == 0)
        }
        // socks5 resolves the name here: its length does not matter to the proxy (the lookup fails).
        try Self.withSOCKSClient(scheme: .socks5) { proxy, client in
            let result = run(client, try get("http://\(host)/"))
            #expect(result.error?.code == .resolutionFailed, "\(String(describing: result.error))")
            #expect(proxy.destinations.isEmpty)
        }
        // Credentials changed after the ProxyServer was made are checked when a request starts.
        var server = try ProxyServer(host: "127.0.0.1", port: 9, scheme: .socks5h)
        server.credentials = ProxyCredentials(username: String(repeating: "u", count: 300), password: "secret")
        try withClient(configure: { $0.proxy = .socks5(server) }) { client in
            let result = run(client, try get("http://localhost/"))
            #expect(result.error?.code == .invalidRequest)
            #expect(Self.socksCause(result) == .usernameTooLong(bytes: 300))
            #expect(result.error?.description.contains("secret") == false)
        }
    }
}
