import CourierClient
import CourierTestSupport
import Glibc
import Testing

private func url(_ s: String) -> HTTPURL {
    do { return try HTTPURL(s) } catch { preconditionFailure("bad test URL \(s): \(error)") }
}

/// A `no_proxy` value, a URL, and whether the URL bypasses the proxy.
struct NoProxyCase: Sendable, CustomTestStringConvertible {
    var noProxy: String
    var url: String
    var bypass: Bool
    var testDescription: String { "no_proxy=\"\(noProxy)\" \(url) -> \(bypass ? "direct" : "proxy")" }
}

private let noProxyCases: [NoProxyCase] = [
    .init(noProxy: "example.com", url: "http://example.com/", bypass: true),
    .init(noProxy: "example.com", url: "http://www.example.com/", bypass: true),
    .init(noProxy: "example.com", url: "http://a.b.example.com/", bypass: true),
    .init(noProxy: "example.com", url: "http://badexample.com/", bypass: false),
    .init(noProxy: "example.com", url: "http://example.com.evil.test/", bypass: false),
    .init(noProxy: "www.example.com", url: "http://example.com/", bypass: false),
    .init(noProxy: ".example.com", url: "http://example.com/", bypass: true),
    .init(noProxy: ".example.com", url: "http://a.example.com/", bypass: true),
    .init(noProxy: "*.example.com", url: "http://a.example.com/", bypass: true),
    .init(noProxy: "*.example.com", url: "http://example.com/", bypass: true),
    .init(noProxy: "EXAMPLE.com", url: "http://Example.COM/", bypass: true),
    .init(noProxy: "example.com", url: "http://example.com./", bypass: true),
    .init(noProxy: "example.com.", url: "http://a.example.com/", bypass: true),
    .init(noProxy: "com", url: "http://example.com/", bypass: true),
    .init(noProxy: " foo.test , example.com ", url: "http://example.com/", bypass: true),
    .init(noProxy: "foo.test bar.test\texample.com", url: "http://example.com/", bypass: true),
    .init(noProxy: "foo.test,,bar.test", url: "http://example.com/", bypass: false),
    .init(noProxy: "*", url: "http://anything.test/", bypass: true),
    .init(noProxy: " * ", url: "https://[::1]/", bypass: true),
    .init(noProxy: "", url: "http://example.com/", bypass: false),
    .init(noProxy: "example.com:8080", url: "http://example.com:8080/", bypass: true),
    .init(noProxy: "example.com:8080", url: "http://example.com/", bypass: false),
    .init(noProxy: "example.com:443", url: "https://example.com/", bypass: true),
    .init(noProxy: "example.com:443", url: "http://example.com/", bypass: false),
    .init(noProxy: "example.com:abc", url: "http://example.com/", bypass: false),
    .init(noProxy: "localhost", url: "http://localhost:3000/", bypass: true),
    .init(noProxy: "127.0.0.1", url: "http://127.0.0.1:8080/", bypass: true),
    .init(noProxy: "127.0.0.1", url: "http://127.0.0.2/", bypass: false),
    .init(noProxy: "127.0.0.1", url: "http://localhost/", bypass: false),
    .init(noProxy: "localhost", url: "http://127.0.0.1/", bypass: false),
    .init(noProxy: "10.0.0.1:8080", url: "http://10.0.0.1:8080/", bypass: true),
    .init(noProxy: "10.0.0.1:8080", url: "http://10.0.0.1/", bypass: false),
    .init(noProxy: "10.0.0.0/8", url: "http://10.1.2.3/", bypass: true),
    .init(noProxy: "10.0.0.0/8", url: "http://11.0.0.1/", bypass: false),
    .init(noProxy: "192.168.1.0/24", url: "http://192.168.1.77/", bypass: true),
    .init(noProxy: "192.168.1.0/24", url: "http://192.168.2.1/", bypass: false),
    .init(noProxy: "172.16.0.0/12", url: "http://172.31.255.255/", bypass: true),
    .init(noProxy: "172.16.0.0/12", url: "http://172.32.0.0/", bypass: false),
    .init(noProxy: "0.0.0.0/0", url: "http://8.8.8.8/", bypass: true),
    .init(noProxy: "0.0.0.0/0", url: "http://[::1]/", bypass: false),
    .init(noProxy: "10.0.0.0/33", url: "http://10.0.0.1/", bypass: false),
    .init(noProxy: "10.0.0.1", url: "http://10.0.0.1.example/", bypass: false),
    .init(noProxy: "::1", url: "http://[::1]:8080/", bypass: true),
    .init(noProxy: "[::1]", url: "http://[::1]/", bypass: true),
    .init(noProxy: "0:0:0:0:0:0:0:1", url: "http://[::1]/", bypass: true),
    .init(noProxy: "[::1]:8080", url: "http://[::1]:8080/", bypass: true),
    .init(noProxy: "[::1]:8080", url: "http://[::1]:9090/", bypass: false),
    .init(noProxy: "::1", url: "http://127.0.0.1/", bypass: false),
    .init(noProxy: "fe80::/10", url: "http://[fe80::1234]/", bypass: true),
    .init(noProxy: "fe80::/10", url: "http://[febf::1]/", bypass: true),
    .init(noProxy: "fe80::/10", url: "http://[fec0::1]/", bypass: false),
    .init(noProxy: "[2001:db8::]/32:443", url: "https://[2001:db8:1::5]/", bypass: true),
    .init(noProxy: "[2001:db8::]/32:443", url: "http://[2001:db8:1::5]/", bypass: false),
]

/// An environment, a URL, and the proxy chosen (`host:port`, or nil for direct).
struct EnvironmentCase: Sendable, CustomTestStringConvertible {
    var environment: [String: String]
    var url: String
    var proxy: String?
    var testDescription: String {
        "\(environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }) \(url) -> \(proxy ?? "direct")"
    }
}

private let environmentCases: [EnvironmentCase] = [
    .init(environment: [:], url: "http://h/", proxy: nil),
    .init(environment: ["http_proxy": "p1:3128"], url: "http://h/", proxy: "p1:3128"),
    .init(environment: ["http_proxy": "p1:3128"], url: "https://h/", proxy: nil),
    // HTTP_PROXY is never read (CGI "httpoxy").
    .init(environment: ["HTTP_PROXY": "evil:1"], url: "http://h/", proxy: nil),
    .init(environment: ["HTTP_PROXY": "evil:1", "all_proxy": "p2:1"], url: "http://h/", proxy: "p2:1"),
    .init(environment: ["https_proxy": "a:1", "HTTPS_PROXY": "b:1"], url: "https://h/", proxy: "a:1"),
    .init(environment: ["HTTPS_PROXY": "b:1"], url: "https://h/", proxy: "b:1"),
    .init(environment: ["https_proxy": "a:1"], url: "http://h/", proxy: nil),
    .init(environment: ["all_proxy": "c:1", "ALL_PROXY": "d:1"], url: "https://h/", proxy: "c:1"),
    .init(environment: ["ALL_PROXY": "d:1"], url: "https://h/", proxy: "d:1"),
    .init(environment: ["ALL_PROXY": "d:1"], url: "http://h/", proxy: "d:1"),
    .init(environment: ["https_proxy": "a:1", "all_proxy": "c:1"], url: "https://h/", proxy: "a:1"),
    .init(environment: ["http_proxy": "a:1", "all_proxy": "c:1"], url: "https://h/", proxy: "c:1"),
    // Set but empty: no proxy, and the search stops there.
    .init(environment: ["http_proxy": "", "all_proxy": "c:1"], url: "http://h/", proxy: nil),
    .init(environment: ["https_proxy": " ", "HTTPS_PROXY": "b:1"], url: "https://h/", proxy: nil),
    .init(environment: ["https_proxy": "", "all_proxy": "c:1"], url: "https://h/", proxy: nil),
    // no_proxy, then NO_PROXY only when no_proxy is unset.
    .init(environment: ["http_proxy": "p:1", "no_proxy": "example.com"], url: "http://www.example.com/", proxy: nil),
    .init(environment: ["http_proxy": "p:1", "NO_PROXY": "example.com"], url: "http://www.example.com/", proxy: nil),
    .init(environment: ["http_proxy": "p:1", "no_proxy": "other.test"], url: "http://example.com/", proxy: "p:1"),
    .init(environment: ["http_proxy": "p:1", "no_proxy": "", "NO_PROXY": "*"], url: "http://h/", proxy: "p:1"),
    .init(environment: ["http_proxy": "p:1", "NO_PROXY": "*"], url: "http://h/", proxy: nil),
    .init(environment: ["all_proxy": "p:1", "no_proxy": "10.0.0.0/8"], url: "https://10.2.3.4/", proxy: nil),
    // A Unix-domain socket is never proxied.
    .init(environment: ["http_proxy": "p:1", "all_proxy": "p:1"], url: "http+unix://%2Fs.sock/", proxy: nil),
    // Value forms.
    .init(environment: ["http_proxy": "proxy.local"], url: "http://h/", proxy: "proxy.local:1080"),
    .init(environment: ["http_proxy": "http://proxy.local"], url: "http://h/", proxy: "proxy.local:1080"),
    .init(environment: ["http_proxy": "HTTP://Proxy.Local:3128/"], url: "http://h/", proxy: "proxy.local:3128"),
    .init(environment: ["http_proxy": "  p:8080\n"], url: "http://h/", proxy: "p:8080"),
    .init(environment: ["http_proxy": "[::1]:3128"], url: "http://h/", proxy: "[::1]:3128"),
    .init(environment: ["http_proxy": "http://10.0.0.1:3128"], url: "http://h/", proxy: "10.0.0.1:3128"),
]

@Suite("Proxy environment and no_proxy")
struct ProxyEnvironmentTests {
    @Test("no_proxy matching", arguments: noProxyCases)
    func noProxy(_ c: NoProxyCase) {
        #expect(NoProxyList(c.noProxy).matches(url(c.url)) == c.bypass)
    }

    @Test("variable precedence", arguments: environmentCases)
    func precedence(_ c: EnvironmentCase) throws {
        let proxy = try ProxyConfiguration.environment.proxy(for: url(c.url), environment: c.environment)
        #expect(proxy?.authority == c.proxy)
    }

    @Test("credentials in a proxy URL are percent-decoded")
    func credentials() throws {
        let env = ["http_proxy": "http://us%65r:p%40ss:w@proxy.local:8080"]
        let proxy = try #require(try ProxyConfiguration.environment.proxy(for: url("http://h/"), environment: env))
        #expect(proxy.host == "proxy.local")
        #expect(proxy.port == 8080)
        #expect(proxy.credentials == ProxyCredentials(username: "user", password: "p@ss:w"))
        #expect(try proxy.proxyAuthorization() == "Basic " + Base64.encode("user:p@ss:w"))
        #expect(!proxy.description.contains("p@ss"))
        #expect(!(proxy.credentials?.description.contains("p@ss") ?? true))
        let noPassword = try ProxyServer(parsing: "alice@p:1")
        #expect(noPassword.credentials == ProxyCredentials(username: "alice", password: ""))
        #expect(try ProxyServer(parsing: "p:1").proxyAuthorization() == nil)
    }

    @Test("unusable proxy values are errors, never a silent direct connection")
    func errors() throws {
        let h = url("https://h/")
        #expect(throws: ProxyError(reason: .unsupportedScheme, variable: "https_proxy", value: "https://p:443")) {
            try ProxyConfiguration.environment.proxy(for: h, environment: ["https_proxy": "https://p:443"])
        }
        // SOCKS5 is supported (see the SOCKS tests below); SOCKS4 and the rest are not.
        #expect(throws: ProxyError(reason: .unsupportedScheme, variable: "ALL_PROXY", value: "socks4://p:1080")) {
            try ProxyConfiguration.environment.proxy(for: h, environment: ["ALL_PROXY": "socks4://p:1080"])
        }
        #expect(throws: ProxyError(reason: .unsupportedScheme, variable: "ALL_PROXY", value: "socks://p:1080")) {
            try ProxyConfiguration.environment.proxy(for: h, environment: ["ALL_PROXY": "socks://p:1080"])
        }
        #expect(throws: ProxyError(reason: .unsupportedScheme, variable: "ALL_PROXY", value: "socks5hh://p:1080")) {
            try ProxyConfiguration.environment.proxy(for: h, environment: ["ALL_PROXY": "socks5hh://p:1080"])
        }
        #expect(
            throws: ProxyError(
                reason: .invalidURL, urlReason: .invalidPort, variable: "HTTPS_PROXY", value: "http://p:99999")
        ) {
            try ProxyConfiguration.environment.proxy(for: h, environment: ["HTTPS_PROXY": "http://p:99999"])
        }
        #expect(throws: ProxyError(reason: .invalidURL, urlReason: .controlCharacter, value: "p:1\r\nX: y")) {
            try ProxyServer(parsing: "p:1\r\nX: y")
        }
        // A bad value does not matter for hosts in no_proxy.
        #expect(
            try ProxyConfiguration.environment.proxy(
                for: h, environment: ["https_proxy": "https://p", "no_proxy": "h"]) == nil)
        // Messages never carry the password.
        do {
            _ = try ProxyServer(parsing: "http://alice:s3cret@p:99999")
            Issue.record("accepted a bad port")
        } catch {
            #expect(!error.description.contains("s3cret"))
            #expect(error.value == "http://***@p:99999")
        }
    }

    @Test("explicit configurations")
    func explicit() throws {
        let server = try ProxyServer(host: "Proxy.Example", port: 3128)
        #expect(server.host == "proxy.example")
        #expect(try ProxyConfiguration.none.proxy(for: url("http://h/"), environment: ["http_proxy": "p:1"]) == nil)
        #expect(try ProxyConfiguration.http(server).proxy(for: url("http://h/"), environment: [:]) == server)
        #expect(try ProxyConfiguration.http(server).proxy(for: url("https://h/"), environment: [:]) == server)
        #expect(try ProxyConfiguration.http(server).proxy(for: url("http+unix://%2Fs/"), environment: [:]) == nil)
        // An explicit proxy ignores no_proxy.
        #expect(try ProxyConfiguration.http(server).proxy(for: url("http://h/"), environment: ["no_proxy": "*"]) == server)
        let v6 = try ProxyServer(host: "::1", port: 8080)
        #expect(v6.authority == "[::1]:8080")
        #expect(try ProxyServer(host: "[0::1]", port: 8080) == v6)
        #expect(try ProxyServer(host: "p").port == 1080)
        #expect(throws: ProxyError(reason: .invalidPort, value: "p:0")) { try ProxyServer(host: "p", port: 0) }
        #expect(throws: ProxyError(reason: .invalidURL, urlReason: .space, value: "a b")) {
            try ProxyServer(host: "a b", port: 1)
        }
    }

    @Test("current() reads the process environment: the same values as /proc/self/environ")
    func current() throws {
        let current = ProxyEnvironment.current()
        #expect(Set(current.keys).isSubset(of: ProxyEnvironment.variableNames))
        // Read the initial environment independently. Nothing in this test process calls setenv.
        guard let bytes = TestFiles.bytes(at: "/proc/self/environ") else { return }
        var expected: [String: String] = [:]
        for entry in bytes.split(separator: 0) {
            guard let eq = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: entry[..<eq], as: UTF8.self)
            if ProxyEnvironment.variableNames.contains(name) {
                expected[name] = String(decoding: entry[(eq + 1)...], as: UTF8.self)
            }
        }
        #expect(current == expected)
    }
}
