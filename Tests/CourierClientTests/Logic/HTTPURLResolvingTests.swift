import CourierClient
import Testing

/// RFC 3986 §5.4: a reference and the URL it resolves to against `http://a/b/c/d;p?q`.
/// Expected values are copied from the RFC, fragments included; ``HTTPURL`` drops fragments, so
/// the comparison removes them from the expected text.
private let normalExamples: [(String, String)] = [
    ("g", "http://a/b/c/g"),
    ("./g", "http://a/b/c/g"),
    ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"),
    ("//g", "http://g"),
    ("?y", "http://a/b/c/d;p?y"),
    ("g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s"),
    ("g#s", "http://a/b/c/g#s"),
    ("g?y#s", "http://a/b/c/g?y#s"),
    (";x", "http://a/b/c/;x"),
    ("g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    ("", "http://a/b/c/d;p?q"),
    (".", "http://a/b/c/"),
    ("./", "http://a/b/c/"),
    ("..", "http://a/b/"),
    ("../", "http://a/b/"),
    ("../g", "http://a/b/g"),
    ("../..", "http://a/"),
    ("../../", "http://a/"),
    ("../../g", "http://a/g"),
]

/// RFC 3986 §5.4.2.
private let abnormalExamples: [(String, String)] = [
    ("../../../g", "http://a/g"),
    ("../../../../g", "http://a/g"),
    ("/./g", "http://a/g"),
    ("/../g", "http://a/g"),
    ("g.", "http://a/b/c/g."),
    (".g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g.."),
    ("..g", "http://a/b/c/..g"),
    ("./../g", "http://a/b/g"),
    ("./g/.", "http://a/b/c/g/"),
    ("g/./h", "http://a/b/c/g/h"),
    ("g/../h", "http://a/b/c/h"),
    ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
    ("g;x=1/../y", "http://a/b/c/y"),
    ("g?y/./x", "http://a/b/c/g?y/./x"),
    ("g?y/../x", "http://a/b/c/g?y/../x"),
    ("g#s/./x", "http://a/b/c/g#s/./x"),
    ("g#s/../x", "http://a/b/c/g#s/../x"),
]

private func withoutFragment(_ s: String) -> String {
    guard let hash = s.firstIndex(of: "#") else { return s }
    return String(s[..<hash])
}

/// The RFC writes `http://g` for an empty path; an ``HTTPURL`` path is never empty.
private func normalisedExpectation(_ s: String) -> String {
    let text = withoutFragment(s)
    return text == "http://g" ? "http://g/" : text
}

@Suite("HTTPURL reference resolution (RFC 3986 §5)")
struct HTTPURLResolvingTests {
    static let base = "http://a/b/c/d;p?q"

    @Test("§5.4.1 normal examples", arguments: normalExamples)
    func normal(_ reference: String, _ expected: String) throws {
        let resolved = try HTTPURL(Self.base).resolving(reference)
        #expect(resolved.absoluteString == normalisedExpectation(expected))
    }

    @Test("§5.4.2 abnormal examples", arguments: abnormalExamples)
    func abnormal(_ reference: String, _ expected: String) throws {
        let resolved = try HTTPURL(Self.base).resolving(reference)
        #expect(resolved.absoluteString == normalisedExpectation(expected))
    }

    @Test("references whose result is not an http URL are refused")
    func refusedResults() throws {
        let base = try HTTPURL(Self.base)
        // §5.4.1 "g:h" resolves to "g:h": not http.
        #expect(throws: HTTPURLError(reason: .unsupportedScheme, input: "g:h")) { try base.resolving("g:h") }
        // §5.4.2 "http:g": the strict parser keeps the scheme, so there is no authority.
        #expect(throws: HTTPURLError(reason: .missingAuthority, input: "http:g")) { try base.resolving("http:g") }
        #expect(throws: HTTPURLError(reason: .controlCharacter, input: "/x\r\nHost: evil")) {
            try base.resolving("/x\r\nHost: evil")
        }
        #expect(throws: HTTPURLError(reason: .space, input: "/a b")) { try base.resolving("/a b") }
        #expect(throws: HTTPURLError(reason: .invalidPort, input: "//g:0/")) { try base.resolving("//g:0/") }
        #expect(throws: HTTPURLError(reason: .emptyHost, input: "///x")) { try base.resolving("///x") }
        #expect(throws: HTTPURLError(reason: .invalidPercentEncoding, input: "g%")) { try base.resolving("g%") }
    }

    @Test("the base keeps its scheme, user information and port; a scheme-relative reference replaces them")
    func authorityHandling() throws {
        let base = try HTTPURL("https://u:p@h:8443/dir/file?x")
        #expect(try base.resolving("other").absoluteString == "https://u:p@h:8443/dir/other")
        #expect(try base.resolving("//g/x").absoluteString == "https://g/x")
        #expect(try base.resolving("http://G:80").absoluteString == "http://g:80/")
        #expect(try base.resolving("?").absoluteString == "https://u:p@h:8443/dir/file?")
        let v6 = try HTTPURL("http://[::1]:8080/a/b")
        #expect(try v6.resolving("../c").absoluteString == "http://[::1]:8080/c")
        let unix = try HTTPURL("http+unix://%2Fsrv%2Fs.sock/a/b")
        let resolved = try unix.resolving("/c?d")
        #expect(resolved.absoluteString == "http+unix://%2Fsrv%2Fs.sock/c?d")
        #expect(resolved.unixSocketPath == "/srv/s.sock")
    }

    @Test("RFC 3986 §5.2.4 examples of remove_dot_segments, through a relative path")
    func removeDotSegments() throws {
        // "mid/content=5/../6" -> "mid/6", here under the base directory "/".
        #expect(try HTTPURL("http://h/").resolving("mid/content=5/../6").path == "/mid/6")
        #expect(try HTTPURL("http://h/a/b/c/./../../g").path == "/a/g")
        #expect(try HTTPURL("http://h/a/..").path == "/")
        #expect(try HTTPURL("http://h/a/.").path == "/a/")
        #expect(try HTTPURL("http://h/.a/..b/...").path == "/.a/..b/...")
        #expect(try HTTPURL("http://h//a//../b").path == "//a/b")
    }
}
