import CourierClient
import CourierCore
import CourierHTTP1
import Testing

/// One URL the parser must accept, with every derived property spelled out.
struct AcceptedURL: Sendable, CustomTestStringConvertible {
    var input: String
    var scheme: HTTPScheme
    var host: String
    var kind: HTTPURL.HostKind
    var port: Int
    var explicitPort: Int?
    var path: String
    var query: String?
    var hostHeader: String
    var absolute: String
    var user: String? = nil
    var password: String? = nil

    var testDescription: String { HTTPURLError(reason: .empty, input: input).input }
}

private let accepted: [AcceptedURL] = [
    .init(
        input: "http://example.com", scheme: .http, host: "example.com", kind: .name, port: 80, path: "/",
        hostHeader: "example.com", absolute: "http://example.com/"),
    .init(
        input: "HTTPS://Example.COM:8443/a/b?x=1#frag", scheme: .https, host: "example.com", kind: .name, port: 8443,
        explicitPort: 8443, path: "/a/b", query: "x=1", hostHeader: "example.com:8443",
        absolute: "https://example.com:8443/a/b?x=1"),
    .init(
        input: "http://example.com:80/", scheme: .http, host: "example.com", kind: .name, port: 80, explicitPort: 80,
        path: "/", hostHeader: "example.com", absolute: "http://example.com:80/"),
    .init(
        input: "https://example.com:443", scheme: .https, host: "example.com", kind: .name, port: 443,
        explicitPort: 443, path: "/", hostHeader: "example.com", absolute: "https://example.com:443/"),
    .init(
        input: "http://example.com:443/", scheme: .http, host: "example.com", kind: .name, port: 443,
        explicitPort: 443, path: "/", hostHeader: "example.com:443", absolute: "http://example.com:443/"),
    .init(
        input: "https://example.com:80/", scheme: .https, host: "example.com", kind: .name, port: 80,
        explicitPort: 80, path: "/", hostHeader: "example.com:80", absolute: "https://example.com:80/"),
    .init(
        input: "http://h:080/", scheme: .http, host: "h", kind: .name, port: 80, explicitPort: 80, path: "/",
        hostHeader: "h", absolute: "http://h:80/"),
    .init(
        input: "http://h:65535/", scheme: .http, host: "h", kind: .name, port: 65535, explicitPort: 65535, path: "/",
        hostHeader: "h:65535", absolute: "http://h:65535/"),
    .init(
        input: "http://h:/", scheme: .http, host: "h", kind: .name, port: 80, path: "/", hostHeader: "h",
        absolute: "http://h/"),
    .init(
        input: "http://127.0.0.1:8080/p", scheme: .http, host: "127.0.0.1", kind: .ipv4, port: 8080,
        explicitPort: 8080, path: "/p", hostHeader: "127.0.0.1:8080", absolute: "http://127.0.0.1:8080/p"),
    .init(
        input: "http://0.0.0.0/", scheme: .http, host: "0.0.0.0", kind: .ipv4, port: 80, path: "/",
        hostHeader: "0.0.0.0", absolute: "http://0.0.0.0/"),
    .init(
        input: "http://[::1]/", scheme: .http, host: "::1", kind: .ipv6, port: 80, path: "/", hostHeader: "[::1]",
        absolute: "http://[::1]/"),
    .init(
        input: "https://[0:0:0:0:0:0:0:1]:8443/x", scheme: .https, host: "::1", kind: .ipv6, port: 8443,
        explicitPort: 8443, path: "/x", hostHeader: "[::1]:8443", absolute: "https://[::1]:8443/x"),
    .init(
        input: "http://[2001:DB8:0:0:1:0:0:A]/", scheme: .http, host: "2001:db8::1:0:0:a", kind: .ipv6, port: 80,
        path: "/", hostHeader: "[2001:db8::1:0:0:a]", absolute: "http://[2001:db8::1:0:0:a]/"),
    .init(
        input: "http://[::ffff:192.0.2.1]/", scheme: .http, host: "::ffff:c000:201", kind: .ipv6, port: 80,
        path: "/", hostHeader: "[::ffff:c000:201]", absolute: "http://[::ffff:c000:201]/"),
    .init(
        input: "http://[1::]/", scheme: .http, host: "1::", kind: .ipv6, port: 80, path: "/", hostHeader: "[1::]",
        absolute: "http://[1::]/"),
    .init(
        input: "http://[1:0:0:2:0:0:0:3]/", scheme: .http, host: "1:0:0:2::3", kind: .ipv6, port: 80, path: "/",
        hostHeader: "[1:0:0:2::3]", absolute: "http://[1:0:0:2::3]/"),
    .init(
        input: "http://user:p%40ss@host/", scheme: .http, host: "host", kind: .name, port: 80, path: "/",
        hostHeader: "host", absolute: "http://user:p%40ss@host/", user: "user", password: "p@ss"),
    .init(
        input: "http://us%3Aer@host/", scheme: .http, host: "host", kind: .name, port: 80, path: "/",
        hostHeader: "host", absolute: "http://us%3Aer@host/", user: "us:er", password: nil),
    .init(
        input: "http://user:@host/", scheme: .http, host: "host", kind: .name, port: 80, path: "/",
        hostHeader: "host", absolute: "http://user:@host/", user: "user", password: ""),
    .init(
        input: "http://h?q", scheme: .http, host: "h", kind: .name, port: 80, path: "/", query: "q", hostHeader: "h",
        absolute: "http://h/?q"),
    .init(
        input: "http://h/?", scheme: .http, host: "h", kind: .name, port: 80, path: "/", query: "", hostHeader: "h",
        absolute: "http://h/?"),
    .init(
        input: "http://h#only-fragment", scheme: .http, host: "h", kind: .name, port: 80, path: "/", hostHeader: "h",
        absolute: "http://h/"),
    .init(
        input: "http://h/a/./b/../c/", scheme: .http, host: "h", kind: .name, port: 80, path: "/a/c/",
        hostHeader: "h", absolute: "http://h/a/c/"),
    .init(
        input: "http://h/a/b/c/./../../g", scheme: .http, host: "h", kind: .name, port: 80, path: "/a/g",
        hostHeader: "h", absolute: "http://h/a/g"),
    .init(
        input: "http://h/../../x", scheme: .http, host: "h", kind: .name, port: 80, path: "/x", hostHeader: "h",
        absolute: "http://h/x"),
    .init(
        input: "http://h/%7Euser/a%20b?x=%2F&y=/?z", scheme: .http, host: "h", kind: .name, port: 80,
        path: "/%7Euser/a%20b", query: "x=%2F&y=/?z", hostHeader: "h", absolute: "http://h/%7Euser/a%20b?x=%2F&y=/?z"),
    .init(
        input: "http://h/a[1]|{x}?filter[name]=\"v\"", scheme: .http, host: "h", kind: .name, port: 80,
        path: "/a[1]|{x}", query: "filter[name]=\"v\"", hostHeader: "h", absolute: "http://h/a[1]|{x}?filter[name]=\"v\""),
    .init(
        input: "http://example.com./", scheme: .http, host: "example.com.", kind: .name, port: 80, path: "/",
        hostHeader: "example.com.", absolute: "http://example.com./"),
    .init(
        input: "http://xn--bcher-kva.example/", scheme: .http, host: "xn--bcher-kva.example", kind: .name, port: 80,
        path: "/", hostHeader: "xn--bcher-kva.example", absolute: "http://xn--bcher-kva.example/"),
    .init(
        input: "http://a-b_c~d.1x/", scheme: .http, host: "a-b_c~d.1x", kind: .name, port: 80, path: "/",
        hostHeader: "a-b_c~d.1x", absolute: "http://a-b_c~d.1x/"),
    .init(
        input: "http+unix://%2Fvar%2Frun%2Fapp.sock/v1/info?x=1", scheme: .unix, host: "/var/run/app.sock",
        kind: .unixSocket, port: 0, path: "/v1/info", query: "x=1", hostHeader: "localhost",
        absolute: "http+unix://%2Fvar%2Frun%2Fapp.sock/v1/info?x=1"),
    .init(
        input: "HTTP+UNIX://relative.sock", scheme: .unix, host: "relative.sock", kind: .unixSocket, port: 0,
        path: "/", hostHeader: "localhost", absolute: "http+unix://relative.sock/"),
]

/// A URL the parser must refuse, and why.
struct RefusedURL: Sendable, CustomTestStringConvertible {
    var input: String
    var reason: HTTPURLError.Reason
    var testDescription: String { HTTPURLError(reason: reason, input: input).description }
}

private let refused: [RefusedURL] = [
    .init(input: "", reason: .empty),
    // Injection attempts: control bytes anywhere.
    .init(input: "http://h/a\r\nX: y", reason: .controlCharacter),
    .init(input: "http://h/a\nb", reason: .controlCharacter),
    .init(input: "http://h/a\rb", reason: .controlCharacter),
    .init(input: "http://h/\0", reason: .controlCharacter),
    .init(input: "http://h\r\nHost: evil/", reason: .controlCharacter),
    .init(input: "http://h/?q=\u{7F}", reason: .controlCharacter),
    .init(input: "http://h/\t", reason: .controlCharacter),
    .init(input: "http://h/#\u{1B}", reason: .controlCharacter),
    .init(input: "http://u\u{0}@h/", reason: .controlCharacter),
    // Spaces and non-ASCII.
    .init(input: "http://h /", reason: .space),
    .init(input: " http://h/", reason: .space),
    .init(input: "http://h/ ", reason: .space),
    .init(input: "http://h/a b HTTP/1.1", reason: .space),
    .init(input: "http://h/é", reason: .nonASCII),
    .init(input: "http://bücher.de/", reason: .nonASCII),
    .init(input: "http://h/\u{85}", reason: .nonASCII),
    .init(input: "http://h/\u{2028}", reason: .nonASCII),
    // Percent-escapes.
    .init(input: "http://h/%zz", reason: .invalidPercentEncoding),
    .init(input: "http://h/%4", reason: .invalidPercentEncoding),
    .init(input: "http://h/a%", reason: .invalidPercentEncoding),
    .init(input: "http://h/?%g0", reason: .invalidPercentEncoding),
    .init(input: "http://h/#%", reason: .invalidPercentEncoding),
    // Ports.
    .init(input: "http://h:99999/", reason: .invalidPort),
    .init(input: "http://h:65536/", reason: .invalidPort),
    .init(input: "http://h:0/", reason: .invalidPort),
    .init(input: "http://h:8o/", reason: .invalidPort),
    .init(input: "http://h:-1/", reason: .invalidPort),
    .init(input: "http://h:+80/", reason: .invalidPort),
    .init(input: "http://h:80:80/", reason: .invalidPort),
    .init(input: "http://h:99999999999999999999999999/", reason: .invalidPort),
    // IPv6 literals.
    .init(input: "http://[::1", reason: .invalidIPv6Address),
    .init(input: "http://[::1/", reason: .invalidIPv6Address),
    .init(input: "http://[]/", reason: .invalidIPv6Address),
    .init(input: "http://[1:2:3:4:5:6:7:8:9]/", reason: .invalidIPv6Address),
    .init(input: "http://[1:2:3:4:5:6:7]/", reason: .invalidIPv6Address),
    .init(input: "http://[1:2:3:4:5:6:7::8]/", reason: .invalidIPv6Address),
    .init(input: "http://[::1::2]/", reason: .invalidIPv6Address),
    .init(input: "http://[12345::]/", reason: .invalidIPv6Address),
    .init(input: "http://[:1]/", reason: .invalidIPv6Address),
    .init(input: "http://[1:]/", reason: .invalidIPv6Address),
    .init(input: "http://[::1.2.3]/", reason: .invalidIPv6Address),
    .init(input: "http://[1.2.3.4::]/", reason: .invalidIPv6Address),
    .init(input: "http://[g::1]/", reason: .invalidIPv6Address),
    .init(input: "http://[v1.fe]/", reason: .invalidIPv6Address),
    .init(input: "http://[fe80::1%25eth0]/", reason: .zoneIDNotSupported),
    .init(input: "http://[fe80::1%eth0]/", reason: .invalidPercentEncoding),
    .init(input: "http://[::1]x/", reason: .invalidHost),
    .init(input: "http://[::1]]/", reason: .invalidHost),
    // Hosts.
    .init(input: "http://user@/", reason: .emptyHost),
    .init(input: "http:///path", reason: .emptyHost),
    .init(input: "http://", reason: .emptyHost),
    .init(input: "http://:80/", reason: .emptyHost),
    .init(input: "http://h%41/", reason: .percentEncodedHostNotSupported),
    .init(input: "http://a<b/", reason: .invalidHost),
    .init(input: "http://a\"b/", reason: .invalidHost),
    .init(input: "http://a\\b/", reason: .invalidHost),
    .init(input: "http://a^b/", reason: .invalidHost),
    .init(input: "http://a[b/", reason: .invalidHost),
    .init(input: "http://127.1/", reason: .invalidIPv4Address),
    .init(input: "http://0x7f.0.0.1/", reason: .invalidIPv4Address),
    .init(input: "http://0177.0.0.1/", reason: .invalidIPv4Address),
    .init(input: "http://127.0.0.01/", reason: .invalidIPv4Address),
    .init(input: "http://256.1.1.1/", reason: .invalidIPv4Address),
    .init(input: "http://1.2.3.4.5/", reason: .invalidIPv4Address),
    .init(input: "http://2130706433/", reason: .invalidIPv4Address),
    .init(input: "http://example.0x10/", reason: .invalidIPv4Address),
    .init(input: "http://1.2.3.4./", reason: .invalidIPv4Address),
    // User information.
    .init(input: "http://a@b@c/", reason: .invalidUserInfo),
    .init(input: "http://u[x]@h/", reason: .invalidUserInfo),
    .init(input: "http://%FF@h/", reason: .invalidUserInfo),
    // Schemes and structure.
    .init(input: "ftp://h/", reason: .unsupportedScheme),
    .init(input: "file:///etc/passwd", reason: .unsupportedScheme),
    .init(input: "javascript:alert(1)", reason: .unsupportedScheme),
    .init(input: "https+unix://x/", reason: .unsupportedScheme),
    .init(input: "ws://h/", reason: .unsupportedScheme),
    .init(input: "h:80", reason: .unsupportedScheme),
    .init(input: "//h/path", reason: .missingScheme),
    .init(input: "/path", reason: .missingScheme),
    .init(input: "example.com", reason: .missingScheme),
    .init(input: "1http://h/", reason: .missingScheme),
    .init(input: ":80", reason: .missingScheme),
    .init(input: "http:/h/", reason: .missingAuthority),
    .init(input: "http:h", reason: .missingAuthority),
    .init(input: "http:", reason: .missingAuthority),
    // Unix-domain socket paths.
    .init(input: "http+unix:///x", reason: .emptyHost),
    .init(input: "http+unix://%00/", reason: .invalidUnixSocketPath),
    .init(input: "http+unix://%2Fa%0Ab/", reason: .invalidUnixSocketPath),
    .init(input: "http+unix://%FF/", reason: .invalidUnixSocketPath),
    .init(input: "http+unix://%2Fs.sock:80/", reason: .invalidUnixSocketPath),
    .init(input: "http+unix://[::1]/", reason: .invalidIPv6Address),
]

@Suite("HTTPURL parsing")
struct HTTPURLTests {
    @Test("accepted URLs and their properties", arguments: accepted)
    func accepts(_ c: AcceptedURL) throws {
        let url = try HTTPURL(c.input)
        #expect(url.scheme == c.scheme)
        #expect(url.host == c.host)
        #expect(url.hostKind == c.kind)
        #expect(url.port == c.port)
        #expect(url.explicitPort == c.explicitPort)
        #expect(url.path == c.path)
        #expect(url.query == c.query)
        #expect(url.requestTarget == (c.query.map { c.path + "?" + $0 } ?? c.path))
        #expect(url.hostHeader == c.hostHeader)
        #expect(url.absoluteString == c.absolute)
        #expect(url.user == c.user)
        #expect(url.password == c.password)
        #expect(url.isIPLiteral == (c.kind == .ipv4 || c.kind == .ipv6))
        #expect(url.origin == HTTPOrigin(scheme: c.scheme, host: c.host, port: c.port))
        #expect(url.unixSocketPath == (c.kind == .unixSocket ? c.host : nil))
        // The normalised form parses to the same URL.
        #expect(try HTTPURL(url.absoluteString) == url)
    }

    @Test("refused URLs name the right reason", arguments: refused)
    func refuses(_ c: RefusedURL) {
        #expect(throws: HTTPURLError(reason: c.reason, input: c.input)) { try HTTPURL(c.input) }
    }

    @Test("an @ after the authority is part of the path, not user information")
    func atSignInPath() throws {
        let url = try HTTPURL("http://u/x@h/")
        #expect(url.host == "u")
        #expect(url.path == "/x@h/")
        #expect(url.user == nil)
    }

    @Test("every accepted URL can be written by the request encoder, in origin and absolute form")
    func encoderAcceptsOutput() throws {
        for c in accepted {
            let url = try HTTPURL(c.input)
            var buffer = ByteBuffer()
            try HTTPRequestEncoder.encodeHead(
                HTTPRequestHead(method: .GET, target: .origin(url.requestTarget)), host: url.hostHeader,
                framing: .none, into: &buffer)
            let text = String(decoding: buffer.readableBytesArray(), as: UTF8.self)
            #expect(text == "GET \(url.requestTarget) HTTP/1.1\r\nHost: \(url.hostHeader)\r\n\r\n")
            if url.scheme != .unix {
                var proxied = ByteBuffer()
                try HTTPRequestEncoder.encodeHead(
                    HTTPRequestHead(method: .GET, target: .absolute(url.absoluteFormTarget)), host: url.hostHeader,
                    framing: .none, into: &proxied)
            }
        }
    }

    @Test("no single ASCII byte in the path can reach the request line unvalidated")
    func everyByteInPath() {
        for byte in UInt8(0)...UInt8(0x7F) {
            let input = "http://h/a" + String(Character(Unicode.Scalar(byte))) + "b"
            let result = Result { () throws(HTTPURLError) in try HTTPURL(input) }
            switch byte {
            case 0x00...0x1F, 0x7F:
                #expect(throws: HTTPURLError(reason: .controlCharacter, input: input)) { try result.get() }
            case 0x20:
                #expect(throws: HTTPURLError(reason: .space, input: input)) { try result.get() }
            case UInt8(ascii: "%"):
                #expect(throws: HTTPURLError(reason: .invalidPercentEncoding, input: input)) { try result.get() }
            default:
                guard case .success(let url) = result else {
                    Issue.record("byte \(byte) refused")
                    continue
                }
                #expect(url.requestTarget.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") })
                #expect(url.requestTarget.utf8.first == UInt8(ascii: "/"))
            }
        }
    }

    @Test("error descriptions escape what they quote")
    func errorDescriptionIsSafe() {
        let error = HTTPURLError(reason: .controlCharacter, input: "http://h/a\r\nX: y\0é")
        #expect(error.description == #"HTTPURLError.controlCharacter: "http://h/a\r\nX: y\0\u{e9}""#)
        #expect(!error.description.utf8.contains { $0 < 0x20 || $0 >= 0x7F })
    }

    @Test("origins: same scheme, normalised host and effective port")
    func origins() throws {
        let same = [
            ("http://h/", "HTTP://H:80/x?y"), ("https://[::1]/", "https://[0::1]:443/"),
            ("http://user:pw@h/", "http://h/"),
        ]
        for (a, b) in same { #expect(try HTTPURL(a).origin == HTTPURL(b).origin, "\(a) vs \(b)") }
        let different = [
            ("http://h/", "https://h/"), ("http://h/", "http://h:8080/"), ("http://h/", "http://g/"),
            ("http://h:443/", "https://h/"), ("http://127.0.0.1/", "http://localhost/"),
        ]
        for (a, b) in different { #expect(try HTTPURL(a).origin != HTTPURL(b).origin, "\(a) vs \(b)") }
        #expect(try HTTPURL("https://[::1]:8443/").origin.description == "https://[::1]:8443")
        #expect(try HTTPURL("http://h/").origin.description == "http://h:80")
    }

    @Test("equality and hashing use the normalised form")
    func equality() throws {
        #expect(try HTTPURL("HTTP://H/a/../b#x") == HTTPURL("http://h/b"))
        #expect(try Set([HTTPURL("http://h/"), HTTPURL("http://H"), HTTPURL("http://h/#f")]).count == 1)
        #expect(try HTTPURL("http://h/") != HTTPURL("http://h:80/"))  // the written port is kept
        #expect(try HTTPURL("http://h/?") != HTTPURL("http://h/"))
    }

    @Test("description hides the password; absolute form never carries user information")
    func credentialsStayOut() throws {
        let url = try HTTPURL("http://alice:s3cret@h:8080/a?b#f")
        #expect(url.description == "http://alice:***@h:8080/a?b")
        #expect(url.absoluteString == "http://alice:s3cret@h:8080/a?b")
        #expect(url.absoluteFormTarget == "http://h:8080/a?b")
        #expect(url.removingUserInfo().absoluteString == "http://h:8080/a?b")
        #expect(url.removingUserInfo().user == nil)
        // User information without a password is often a token: replaced whole.
        #expect(try HTTPURL("http://alice@h/").description == "http://***@h/")
        #expect(try HTTPURL("https://[::1]:443/x").absoluteFormTarget == "https://[::1]/x")
        #expect(try HTTPURL("https://[::1]/").bracketedHost == "[::1]")
        #expect(try HTTPURL("https://h/").bracketedHost == "h")
    }
}
