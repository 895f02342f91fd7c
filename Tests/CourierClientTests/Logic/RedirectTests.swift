import CourierClient
import CourierHTTP1
import Testing

private func url(_ s: String) -> HTTPURL {
    do { return try HTTPURL(s) } catch { preconditionFailure("bad test URL \(s): \(error)") }
}

private func fields(_ pairs: [(String, String)]) -> HTTPFields {
    var f = HTTPFields()
    for (n, v) in pairs {
        do { try f.append(name: n, value: v) } catch { preconditionFailure("bad test field \(n)") }
    }
    return f
}

/// Follows or fails the test.
private func followed(
    _ decision: RedirectDecision, sourceLocation: SourceLocation = #_sourceLocation
) -> RedirectedRequest? {
    guard case .follow(let request) = decision else {
        Issue.record("expected .follow, got \(decision)", sourceLocation: sourceLocation)
        return nil
    }
    return request
}

/// One row of RFC 9110 §15.4's method rules: status, method before, method after, body kept.
struct MethodRule: Sendable, CustomTestStringConvertible {
    var status: Int
    var method: String
    var newMethod: String
    var keepsBody: Bool
    var testDescription: String { "\(status) \(method) -> \(newMethod)\(keepsBody ? " with body" : "")" }
}

/// Written out by hand, row by row, from RFC 9110 §15.4.2–§15.4.9.
private let methodRules: [MethodRule] = [
    .init(status: 301, method: "GET", newMethod: "GET", keepsBody: false),
    .init(status: 301, method: "HEAD", newMethod: "HEAD", keepsBody: false),
    .init(status: 301, method: "POST", newMethod: "GET", keepsBody: false),
    .init(status: 301, method: "PUT", newMethod: "PUT", keepsBody: true),
    .init(status: 301, method: "PATCH", newMethod: "PATCH", keepsBody: true),
    .init(status: 301, method: "DELETE", newMethod: "DELETE", keepsBody: false),
    .init(status: 302, method: "GET", newMethod: "GET", keepsBody: false),
    .init(status: 302, method: "HEAD", newMethod: "HEAD", keepsBody: false),
    .init(status: 302, method: "POST", newMethod: "GET", keepsBody: false),
    .init(status: 302, method: "PUT", newMethod: "PUT", keepsBody: true),
    .init(status: 302, method: "PATCH", newMethod: "PATCH", keepsBody: true),
    .init(status: 302, method: "DELETE", newMethod: "DELETE", keepsBody: false),
    .init(status: 303, method: "GET", newMethod: "GET", keepsBody: false),
    .init(status: 303, method: "HEAD", newMethod: "HEAD", keepsBody: false),
    .init(status: 303, method: "POST", newMethod: "GET", keepsBody: false),
    .init(status: 303, method: "PUT", newMethod: "GET", keepsBody: false),
    .init(status: 303, method: "PATCH", newMethod: "GET", keepsBody: false),
    .init(status: 303, method: "DELETE", newMethod: "GET", keepsBody: false),
    .init(status: 307, method: "GET", newMethod: "GET", keepsBody: false),
    .init(status: 307, method: "HEAD", newMethod: "HEAD", keepsBody: false),
    .init(status: 307, method: "POST", newMethod: "POST", keepsBody: true),
    .init(status: 307, method: "PUT", newMethod: "PUT", keepsBody: true),
    .init(status: 307, method: "PATCH", newMethod: "PATCH", keepsBody: true),
    .init(status: 307, method: "DELETE", newMethod: "DELETE", keepsBody: false),
    .init(status: 308, method: "GET", newMethod: "GET", keepsBody: false),
    .init(status: 308, method: "HEAD", newMethod: "HEAD", keepsBody: false),
    .init(status: 308, method: "POST", newMethod: "POST", keepsBody: true),
    .init(status: 308, method: "PUT", newMethod: "PUT", keepsBody: true),
    .init(status: 308, method: "PATCH", newMethod: "PATCH", keepsBody: true),
    .init(status: 308, method: "DELETE", newMethod: "DELETE", keepsBody: false),
]

private let bodyFields: [(String, String)] = [
    ("Content-Type", "application/json"), ("Content-Length", "2"), ("Content-Encoding", "gzip"),
    ("Content-Language", "en"), ("Content-Location", "/doc"),
]

@Suite("Redirect decisions")
struct RedirectTests {
    let config = RedirectConfiguration()

    @Test("method and body rules for each status and method", arguments: methodRules)
    func methodRule(_ rule: MethodRule) throws {
        let method = try #require(HTTPMethod(rule.method))
        // GET, HEAD and DELETE are sent without a body here; the others with one.
        let hasBody = ["POST", "PUT", "PATCH"].contains(rule.method)
        let headers = fields([("Accept", "*/*"), ("X-Trace", "1")] + (hasBody ? bodyFields : []))
        let decision = try config.decide(
            method: method, url: url("http://h/form"), headers: headers, body: hasBody ? .replayable : .none,
            status: rule.status, location: "/next", history: [])
        let next = try #require(followed(decision))
        #expect(next.method.rawValue == rule.newMethod)
        #expect(next.keepsBody == rule.keepsBody)
        #expect(next.url == url("http://h/next"))
        #expect(next.headers[first: "Accept"] == "*/*")
        #expect(next.headers[first: "X-Trace"] == "1")
        for (name, value) in bodyFields {
            #expect(next.headers[first: name] == (rule.keepsBody ? value : nil), "\(name)")
        }
    }

    @Test("Transfer-Encoding goes with the body")
    func transferEncodingDropped() throws {
        let headers = fields([("Transfer-Encoding", "chunked"), ("Content-Type", "text/plain")])
        let next = try #require(
            followed(
                config.decide(
                    method: .POST, url: url("http://h/"), headers: headers, body: .replayable, status: 303,
                    location: "/x", history: [])))
        #expect(!next.headers.contains("Transfer-Encoding"))
        #expect(!next.headers.contains("Content-Type"))
        let kept = try #require(
            followed(
                config.decide(
                    method: .POST, url: url("http://h/"), headers: headers, body: .replayable, status: 307,
                    location: "/x", history: [])))
        #expect(kept.headers[first: "Transfer-Encoding"] == "chunked")
    }

    @Test("statuses that are not followed", arguments: [200, 204, 300, 304, 305, 306, 309, 399, 404, 500])
    func notRedirects(_ status: Int) throws {
        let decision = try config.decide(
            method: .GET, url: url("http://h/"), headers: [:], body: .none, status: status, location: "/x",
            history: [])
        #expect(decision == .doNotFollow(.notARedirect))
    }

    @Test("disabled following and missing Location return the response")
    func notFollowed() throws {
        let disabled = try RedirectConfiguration.disabled.decide(
            method: .GET, url: url("http://h/"), headers: [:], body: .none, status: 302, location: "/x", history: [])
        #expect(disabled == .doNotFollow(.disabled))
        for location in [nil, "", "  \t "] as [String?] {
            let decision = try config.decide(
                method: .GET, url: url("http://h/"), headers: [:], body: .none, status: 301, location: location,
                history: [])
            #expect(decision == .doNotFollow(.noLocation))
        }
    }

    @Test("a streamed body that 307/308 would resend is not followed; 303 drops it and follows")
    func streamedBody() throws {
        for status in [307, 308] {
            let decision = try config.decide(
                method: .POST, url: url("http://h/"), headers: [:], body: .stream, status: status, location: "/x",
                history: [])
            #expect(decision == .doNotFollow(.bodyNotReplayable))
        }
        let put = try config.decide(
            method: .PUT, url: url("http://h/"), headers: [:], body: .stream, status: 301, location: "/x",
            history: [])
        #expect(put == .doNotFollow(.bodyNotReplayable))
        let next = try #require(
            followed(
                config.decide(
                    method: .POST, url: url("http://h/"), headers: [:], body: .stream, status: 303, location: "/x",
                    history: [])))
        #expect(next.method == .GET)
        #expect(!next.keepsBody)
    }

    /// Location, and whether credentials survive, from `https://api.example.com/a`.
    static let originCases: [(String, Bool, String?)] = [
        ("/b", true, "api.example.com"),
        ("https://api.example.com:443/c", true, "api.example.com"),
        ("https://API.Example.COM/d", true, "api.example.com"),
        ("//api.example.com/e", true, "api.example.com"),
        ("http://api.example.com/a", false, "api.example.com"),  // scheme change
        ("https://api.example.com:8443/a", false, "api.example.com:8443"),  // port change
        ("https://other.example.com/a", false, "other.example.com"),  // host change
        ("https://example.com/a", false, "example.com"),  // parent domain is another host
    ]

    @Test("credentials are dropped when the origin changes", arguments: originCases)
    func crossOrigin(_ location: String, _ sameOrigin: Bool, _ host: String?) throws {
        let headers = fields([
            ("Host", "api.example.com"), ("Authorization", "Bearer t"), ("Cookie", "a=b"),
            ("Proxy-Authorization", "Basic eDp5"), ("Accept", "application/json"),
        ])
        let next = try #require(
            followed(
                config.decide(
                    method: .GET, url: url("https://api.example.com/a"), headers: headers, body: .none, status: 302,
                    location: location, history: [])))
        #expect(next.headers[first: "Authorization"] == (sameOrigin ? "Bearer t" : nil))
        #expect(next.headers[first: "Cookie"] == (sameOrigin ? "a=b" : nil))
        #expect(next.headers[first: "Proxy-Authorization"] == (sameOrigin ? "Basic eDp5" : nil))
        #expect(next.headers[first: "Accept"] == "application/json")
        #expect(next.headers.values(for: "Host") == [host!])
        #expect(next.headers[first: "Host"] == next.url.hostHeader)
    }

    @Test("a caller's Host override survives same-origin redirects only; without one, none is added")
    func hostField() throws {
        let headers = fields([("Host", "virtual.test")])
        let same = try #require(
            followed(
                config.decide(
                    method: .GET, url: url("http://10.0.0.1/a"), headers: headers, body: .none, status: 301,
                    location: "/b", history: [])))
        #expect(same.headers[first: "Host"] == "virtual.test")
        let other = try #require(
            followed(
                config.decide(
                    method: .GET, url: url("http://10.0.0.1/a"), headers: headers, body: .none, status: 301,
                    location: "http://[::1]:8080/b", history: [])))
        #expect(other.headers[first: "Host"] == "[::1]:8080")
        let none = try #require(
            followed(
                config.decide(
                    method: .GET, url: url("http://h/a"), headers: [:], body: .none, status: 301,
                    location: "http://g/b", history: [])))
        #expect(!none.headers.contains("Host"))
    }

    @Test("https to http: allowed by default, refused when configured")
    func downgrade() throws {
        let allowed = try config.decide(
            method: .GET, url: url("https://h/"), headers: [:], body: .none, status: 302, location: "http://h/",
            history: [])
        #expect(followed(allowed)?.url == url("http://h/"))
        let strict = RedirectConfiguration(allowHTTPSToHTTP: false)
        #expect(throws: RedirectError.httpsToHTTPDowngrade(url("http://h/x"))) {
            try strict.decide(
                method: .GET, url: url("https://h/"), headers: [:], body: .none, status: 302, location: "http://h/x",
                history: [])
        }
        // An upgrade is always fine.
        let upgrade = try strict.decide(
            method: .GET, url: url("http://h/"), headers: [:], body: .none, status: 301, location: "https://h/",
            history: [])
        #expect(followed(upgrade)?.url == url("https://h/"))
    }

    @Test("Location resolution: relative, scheme-relative, fragment, spaces and non-ASCII")
    func locationResolution() throws {
        let cases: [(String, String)] = [
            ("../x?y#frag", "http://h/a/x?y"),
            ("https://g:8443/p", "https://g:8443/p"),
            ("//g/p", "http://g/p"),
            ("?q=1", "http://h/a/b/c?q=1"),
            ("/a b", "http://h/a%20b"),
            ("/caf\u{E9}", "http://h/caf%C3%A9"),
            ("  /trimmed  ", "http://h/trimmed"),
        ]
        for (location, expected) in cases {
            let decision = try config.decide(
                method: .GET, url: url("http://h/a/b/c"), headers: [:], body: .none, status: 302,
                location: location, history: [])
            #expect(followed(decision)?.url.absoluteString == expected, "\(location)")
        }
    }

    @Test("invalid and unsupported Locations")
    func invalidLocations() throws {
        func attempt(_ location: String, from current: String = "http://h/") throws(RedirectError) -> RedirectDecision {
            try config.decide(
                method: .GET, url: url(current), headers: [:], body: .none, status: 302, location: location,
                history: [])
        }
        #expect(throws: RedirectError.invalidLocation(HTTPURLError(reason: .controlCharacter, input: "/x\r\nSet-Cookie: a"))) {
            try attempt("/x\r\nSet-Cookie: a")
        }
        #expect(throws: RedirectError.invalidLocation(HTTPURLError(reason: .invalidIPv6Address, input: "http://[::1"))) {
            try attempt("http://[::1")
        }
        #expect(throws: RedirectError.invalidLocation(HTTPURLError(reason: .invalidPort, input: "http://h:99999/"))) {
            try attempt("http://h:99999/")
        }
        // A non-ASCII host is percent-encoded like the rest, then refused as an encoded host.
        #expect(
            throws: RedirectError.invalidLocation(
                HTTPURLError(reason: .percentEncodedHostNotSupported, input: "http://bücher.de/"))
        ) {
            try attempt("http://bücher.de/")
        }
        #expect(throws: RedirectError.unsupportedScheme("ftp://h/file")) { try attempt("ftp://h/file") }
        #expect(throws: RedirectError.unsupportedScheme("javascript:alert(1)")) { try attempt("javascript:alert(1)") }
        // A network server cannot send the client into a local socket...
        #expect(throws: RedirectError.unsupportedScheme("http+unix://%2Fvar%2Frun%2Fdocker.sock/")) {
            try attempt("http+unix://%2Fvar%2Frun%2Fdocker.sock/")
        }
        // ...nor one socket into another...
        #expect(throws: RedirectError.unsupportedScheme("http+unix://%2Fother.sock/")) {
            try attempt("http+unix://%2Fother.sock/", from: "http+unix://%2Fapp.sock/a")
        }
        // ...but a relative redirect stays on the same socket.
        let same = try attempt("/b", from: "http+unix://%2Fapp.sock/a")
        #expect(followed(same)?.url.unixSocketPath == "/app.sock")
    }

    @Test("loops: the same method and URL twice in a chain")
    func loops() throws {
        // Redirect to itself.
        #expect(throws: RedirectError.loop(url("http://h/a"))) {
            try config.decide(
                method: .GET, url: url("http://h/a"), headers: [:], body: .none, status: 302, location: "/a",
                history: [])
        }
        // Back to an earlier URL; an explicit default port is the same URL.
        #expect(throws: RedirectError.loop(url("http://h:80/a"))) {
            try config.decide(
                method: .GET, url: url("http://h/b"), headers: [:], body: .none, status: 302,
                location: "http://h:80/a", history: [RedirectVisit(method: .GET, url: url("http://h/a"))])
        }
        // POST /a -> 302 -> GET /a is a new request, not a loop.
        let postToGet = try config.decide(
            method: .POST, url: url("http://h/a"), headers: [:], body: .replayable, status: 302, location: "/a",
            history: [])
        #expect(followed(postToGet)?.method == .GET)
        // 307 keeps POST, so POST /a -> /a is a loop.
        #expect(throws: RedirectError.loop(url("http://h/a"))) {
            try config.decide(
                method: .POST, url: url("http://h/a"), headers: [:], body: .replayable, status: 307, location: "/a",
                history: [])
        }
        // A different query is a different URL.
        let query = try config.decide(
            method: .GET, url: url("http://h/a"), headers: [:], body: .none, status: 302, location: "/a?retry=1",
            history: [])
        #expect(followed(query) != nil)
    }

    @Test("the maximum number of redirects")
    func maximum() throws {
        // Walk a chain of distinct URLs the way a client would.
        var history: [RedirectVisit] = []
        var current = url("http://h/0")
        var followedCount = 0
        while true {
            let decision: RedirectDecision
            do {
                decision = try config.decide(
                    method: .GET, url: current, headers: [:], body: .none, status: 302,
                    location: "/\(followedCount + 1)", history: history)
            } catch {
                #expect(error == .tooManyRedirects(17))
                break
            }
            let next = try #require(followed(decision))
            history.append(RedirectVisit(method: .GET, url: current))
            current = next.url
            followedCount += 1
            try #require(followedCount <= 16, "followed more than the maximum")
        }
        // NSURLSession's and Alamofire's limit: the 16th redirect is followed, the 17th refused.
        #expect(followedCount == 16)
        #expect(current == url("http://h/16"))

        let none = RedirectConfiguration(maximum: 0)
        #expect(throws: RedirectError.tooManyRedirects(1)) {
            try none.decide(
                method: .GET, url: url("http://h/"), headers: [:], body: .none, status: 301, location: "/x",
                history: [])
        }
        let three = RedirectConfiguration(maximum: 3)
        let visits = (0..<3).map { RedirectVisit(method: .GET, url: url("http://h/\($0)")) }
        #expect(
            try followed(
                three.decide(
                    method: .GET, url: url("http://h/x"), headers: [:], body: .none, status: 301, location: "/y",
                    history: Array(visits.prefix(2)))) != nil)
        #expect(throws: RedirectError.tooManyRedirects(4)) {
            try three.decide(
                method: .GET, url: url("http://h/x"), headers: [:], body: .none, status: 301, location: "/y",
                history: visits)
        }
    }

    @Test("defaults")
    func defaults() {
        let d = RedirectConfiguration()
        #expect(d.follow)
        #expect(d.maximum == 16)
        #expect(d.allowHTTPSToHTTP)
        #expect(RedirectConfiguration.default == d)
        #expect(!RedirectConfiguration.disabled.follow)
    }
}
