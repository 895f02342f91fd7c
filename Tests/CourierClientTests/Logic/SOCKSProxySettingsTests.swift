import CourierClient
import Testing

private func url(_ s: String) -> HTTPURL {
    do { return try HTTPURL(s) } catch { preconditionFailure("bad test URL \(s): \(error)") }
}

/// SOCKS5 proxy settings: `socks5://` and `socks5h://` values, from configuration and from the
/// environment (`all_proxy`, and as curl reads them `http_proxy`/`https_proxy`), `no_proxy`,
/// and the input limits RFC 1929 sets.
@Suite("SOCKS5 proxy settings")
struct SOCKSProxySettingsTests {
    /// An environment, a URL, and the proxy chosen (`scheme://host:port`, or nil for direct).
    struct Case: Sendable, CustomTestStringConvertible {
        var environment: [String: String]
        var url: String
        var proxy: String?
        var testDescription: String {
            "\(environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }) \(url) -> \(proxy ?? "direct")"
        }
    }

    static let cases: [Case] = [
        .init(environment: ["all_proxy": "socks5://127.0.0.1:1080"], url: "http://h/", proxy: "socks5://127.0.0.1:1080"),
        .init(environment: ["all_proxy": "socks5h://127.0.0.1:1080"], url: "https://h/", proxy: "socks5h://127.0.0.1:1080"),
        .init(environment: ["ALL_PROXY": "SOCKS5H://Proxy.Local"], url: "https://h/", proxy: "socks5h://proxy.local:1080"),
        .init(environment: ["all_proxy": "Socks5://p:9050/"], url: "http://h/", proxy: "socks5://p:9050"),
        .init(environment: ["all_proxy": "socks5h://[::1]:1080"], url: "http://h/", proxy: "socks5h://[::1]:1080"),
        // http_proxy / https_proxy with a SOCKS scheme, as curl reads them.
        .init(environment: ["http_proxy": "socks5://p:1"], url: "http://h/", proxy: "socks5://p:1"),
        .init(environment: ["https_proxy": "socks5h://p:2", "all_proxy": "http://q:3"], url: "https://h/", proxy: "socks5h://p:2"),
        .init(environment: ["HTTPS_PROXY": "socks5h://p:2"], url: "https://h/", proxy: "socks5h://p:2"),
        .init(environment: ["http_proxy": "socks5://p:1", "all_proxy": "http://q:3"], url: "https://h/", proxy: "http://q:3"),
        // no_proxy applies as for an HTTP proxy.
        .init(environment: ["all_proxy": "socks5h://p:1", "no_proxy": "example.com"], url: "https://www.example.com/", proxy: nil),
        .init(environment: ["all_proxy": "socks5h://p:1", "no_proxy": "example.com"], url: "https://example.org/", proxy: "socks5h://p:1"),
        .init(environment: ["all_proxy": "socks5://p:1", "NO_PROXY": "10.0.0.0/8"], url: "http://10.1.1.1/", proxy: nil),
        .init(environment: ["all_proxy": "socks5://p:1", "no_proxy": "*"], url: "http://h/", proxy: nil),
        .init(environment: ["all_proxy": "socks5://p:1", "no_proxy": "localhost:8080"], url: "http://localhost:8080/", proxy: nil),
        .init(environment: ["all_proxy": "socks5://p:1", "no_proxy": "localhost:8080"], url: "http://localhost:8081/", proxy: "socks5://p:1"),
        // Set but empty still ends the search.
        .init(environment: ["all_proxy": "", "ALL_PROXY": "socks5://p:1"], url: "http://h/", proxy: nil),
        // Unix sockets are never proxied.
        .init(environment: ["all_proxy": "socks5://p:1"], url: "http+unix://%2Fs.sock/", proxy: nil),
    ]

    @Test("environment selection", arguments: cases)
    func environment(_ c: Case) throws {
        let proxy = try ProxyConfiguration.environment.proxy(for: url(c.url), environment: c.environment)
        #expect(proxy.map { "\($0.scheme.rawValue)://\($0.authority)" } == c.proxy)
        if let proxy { #expect(proxy.description == c.proxy) }
    }

    @Test func parsingKeepsCredentialsAndRedactsThem() throws {
        let proxy = try ProxyServer(parsing: "socks5h://us%65r:p%40ss@127.0.0.1:1081")
        #expect(proxy.scheme == .socks5h)
        #expect(proxy.scheme.isSOCKS)
        #expect(proxy.credentials == ProxyCredentials(username: "user", password: "p@ss"))
        #expect(proxy.description == "socks5h://***@127.0.0.1:1081")
        #expect(try ProxyServer(parsing: "p:1").scheme == .http)
        #expect(!ProxyServer.Scheme.http.isSOCKS)
    }

    /// Proxy settings whose credentials RFC 1929 cannot carry are refused when they are read,
    /// with a reason and without the secret in the message.
    @Test func credentialsOverTheLimitsAreRefused() throws {
        let long = String(repeating: "u", count: 256)
        let value = "socks5://\(long):secret@p:1"
        do {
            _ = try ProxyConfiguration.environment.proxy(for: url("http://h/"), environment: ["all_proxy": value])
            Issue.record("accepted a 256-byte user name")
        } catch {
            #expect(error.reason == .invalidSOCKSCredentials)
            #expect(error.socksReason == .usernameTooLong(bytes: 256))
            #expect(error.variable == "all_proxy")
            #expect(!error.description.contains("secret"))
        }
        #expect(throws: ProxyError(reason: .invalidSOCKSCredentials, socksReason: .passwordTooLong(bytes: 300), value: "socks5h://127.0.0.1:1")) {
            try ProxyServer(host: "127.0.0.1", port: 1, credentials: ProxyCredentials(username: "u", password: String(repeating: "p", count: 300)), scheme: .socks5h)
        }
        #expect(throws: ProxyError(reason: .invalidSOCKSCredentials, socksReason: .emptyUsername, value: "socks5://127.0.0.1:1")) {
            try ProxyServer(host: "127.0.0.1", port: 1, credentials: ProxyCredentials(username: "", password: "p"), scheme: .socks5)
        }
        // The same credentials are fine for an HTTP proxy (Basic has no such limit).
        #expect(try ProxyServer(host: "p", port: 1, credentials: ProxyCredentials(username: long, password: "x")).scheme == .http)
        // 255 bytes each are fine.
        let max = String(repeating: "m", count: 255)
        #expect(try ProxyServer(host: "p", credentials: ProxyCredentials(username: max, password: max), scheme: .socks5).port == 1080)
    }

    @Test func explicitConfiguration() throws {
        let socks = try ProxyServer(host: "127.0.0.1", port: 1080, scheme: .socks5h)
        #expect(try ProxyConfiguration.socks5(socks).proxy(for: url("https://h/"), environment: [:]) == socks)
        // An explicit proxy ignores no_proxy, as the HTTP one does.
        #expect(try ProxyConfiguration.socks5(socks).proxy(for: url("http://h/"), environment: ["no_proxy": "*"]) == socks)
        #expect(try ProxyConfiguration.socks5(socks).proxy(for: url("http+unix://%2Fs/"), environment: [:]) == nil)
        // A server made without a SOCKS scheme counts as socks5 (local resolution).
        let plain = try ProxyServer(host: "127.0.0.1", port: 1080)
        let chosen = try ProxyConfiguration.socks5(plain).proxy(for: url("http://h/"), environment: [:])
        #expect(chosen?.scheme == .socks5)
        #expect(chosen?.authority == "127.0.0.1:1080")
        // `.http` with a SOCKS server uses it as one: the scheme decides.
        #expect(try ProxyConfiguration.http(socks).proxy(for: url("http://h/"), environment: [:])?.scheme == .socks5h)
    }
}
