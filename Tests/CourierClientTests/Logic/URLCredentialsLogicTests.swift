import CourierClient
import CourierCore
import CourierHTTP1
import Testing

/// User information in URLs (issue 9, item 1.6), without sockets: how it is printed, and which
/// redirects keep it.
@Suite("URL credentials: descriptions and redirects")
struct URLCredentialsLogicTests {
    static func url(_ s: String) throws -> HTTPURL { try HTTPURL(s) }

    // MARK: Never printed

    @Test func descriptionRedactsThePasswordAndALoneUser() throws {
        #expect(try Self.url("http://alice:s3cret@h:8080/a?b#f").description == "http://alice:***@h:8080/a?b")
        // User information without a password is often a token: replaced whole.
        #expect(try Self.url("https://ghp_TOKEN@h/repo").description == "https://***@h/repo")
        #expect(try Self.url("http://alice:@h/").description == "http://alice:***@h/")
        #expect(try Self.url("http://h/a@b").description == "http://h/a@b")
        // The credentials are still there for whoever asks for them explicitly.
        #expect(try Self.url("http://alice:s3cret@h/").absoluteString == "http://alice:s3cret@h/")
    }

    static let refusedWithCredentials = [
        "http://alice:s3cret@h:99999/", "http://alice:s3cret@/", "http://alice:s3cret@h%41/", "ftp://alice:s3cret@h/",
        "http://alice:s3cret@[::1/", "http://alice:s3/cret@h/", "http://alice:s3cret@h/a b", "//alice:s3cret@h:0/",
        // A `?` or `#` inside a malformed password must not end the search for the `@`.
        "http://alice:s3#cret@h/", "http://alice:s3?cret@h/",
    ]

    @Test(arguments: refusedWithCredentials)
    func aRefusedURLDoesNotPrintItsCredentials(_ input: String) throws {
        do {
            _ = try HTTPURL(input)
            Issue.record("accepted \(input)")
        } catch {
            #expect(!error.description.contains("s3"), "\(error)")
            #expect(!error.input.contains("s3"), "\(error)")
            #expect(error.description.contains("***@"), "\(error)")
        }
    }

    @Test func aRefusedReferenceDoesNotPrintItsCredentials() throws {
        let base = try Self.url("http://h/")
        do {
            _ = try base.resolving("//alice:s3cret@h:0/")
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("s3cret"), "\(error)")
        }
    }

    @Test func redirectErrorsDoNotPrintCredentials() throws {
        let config = RedirectConfiguration(allowHTTPSToHTTP: false)
        let start = try Self.url("https://alice:s3cret@h/")
        let cases: [(String, Int)] = [
            ("ftp://bob:s3cret@h/", 302), ("http://alice:s3cret@h:99999/", 302), ("http://alice:s3cret@h/", 302),
            ("https://alice:s3cret@h/", 307),
        ]
        for (location, status) in cases {
            do {
                _ = try config.decide(
                    method: .GET, url: start, headers: [:], body: .none, status: status, location: location, history: [])
                Issue.record("followed \(location)")
            } catch {
                #expect(!error.description.contains("s3cret"), "\(error)")
            }
        }
    }

    @Test func clientErrorForUnsendableCredentialsDoesNotPrintThem() {
        let error = ClientError(
            .invalidURL, cause: BasicAuthorizationError(reason: .colonInUsername),
            detail: "the URL's user information cannot be sent as Basic credentials")
        #expect(!error.description.contains("s3cret"))
    }

    // MARK: Redirects keep them for their origin only

    static let config = RedirectConfiguration()

    static func next(from: String, to location: String, status: Int = 302) throws -> HTTPURL? {
        let decision = try config.decide(
            method: .GET, url: try url(from), headers: [:], body: .none, status: status, location: location, history: [])
        guard case .follow(let next) = decision else { return nil }
        return next.url
    }

    @Test func sameOriginKeepsTheUserInformation() throws {
        let relative = try #require(try Self.next(from: "http://alice:pw@h/a", to: "/b"))
        #expect(relative.user == "alice")
        #expect(relative.password == "pw")
        // An absolute Location on the same origin without user information inherits it.
        let absolute = try #require(try Self.next(from: "http://alice:pw@h/a", to: "http://H:80/b"))
        #expect(absolute.user == "alice")
        #expect(absolute.password == "pw")
    }

    @Test(arguments: ["http://other/b", "https://h/b", "http://h:8080/b", "//other/b", "http://127.0.0.1/b"])
    func anotherOriginDropsTheUserInformation(_ location: String) throws {
        let next = try #require(try Self.next(from: "http://alice:pw@h/a", to: location))
        #expect(next.user == nil)
        #expect(next.password == nil)
        #expect(!next.absoluteString.contains("pw"))
    }

    @Test func aLocationsOwnUserInformationIsUsedAsWritten() throws {
        let next = try #require(try Self.next(from: "http://alice:pw@h/a", to: "http://bob:x@h/b"))
        #expect(next.user == "bob")
        #expect(next.password == "x")
    }

    /// A Location on another origin that writes user information, even the request's own, is
    /// followed as written: the server sent it, nothing was carried over (FuzzURL's finding
    /// `Fuzz/FailCases/FuzzURL/location-repeats-the-credentials`).
    @Test(arguments: ["https://user:pass@example;com:8443/other", "http://alice:pw@other/b", "//alice:pw@other/b"])
    func aLocationOnAnotherOriginKeepsTheUserInformationItWrites(_ location: String) throws {
        let from = location.hasPrefix("https") ? "https://user:pass@example.com:8443/dir/file?x=1" : "http://alice:pw@h/a"
        let next = try #require(try Self.next(from: from, to: location))
        let written = try Self.url(from).resolving(location)
        #expect(next.host != (try Self.url(from)).host)
        #expect(next.user == written.user)
        #expect(next.password == written.password)
        #expect(next.user != nil)
    }
}

/// The request encoder's IPv6address rule (RFC 3986 §3.2.2, in CourierHTTP1) against the URL
/// parser's own IPv6 parser (CourierClient), two implementations written separately: over every
/// string of up to 7 characters from an alphabet that reaches each of the grammar's branches,
/// both must accept exactly the same literals.
@Suite("IPv6 literals: encoder grammar and URL parser agree")
struct IPv6AgreementTests {
    @Test func everyShortLiteral() throws {
        let alphabet: [Character] = ["0", "f", ":", ".", "1"]
        var strings = [""]
        var checked = 0
        var accepted = 0
        for _ in 1...7 {
            strings = strings.flatMap { s in alphabet.map { s + String($0) } }
            for literal in strings {
                let host = "[\(literal)]"
                var buffer = ByteBuffer()
                let encoderAccepts: Bool
                do {
                    try HTTPRequestEncoder.encodeHead(
                        HTTPRequestHead(method: .GET, target: .origin("/")), host: host, framing: .none, into: &buffer)
                    encoderAccepts = true
                } catch {
                    encoderAccepts = false
                }
                let parserAccepts = (try? HTTPURL("http://\(host)/")) != nil
                #expect(encoderAccepts == parserAccepts, "\(host): encoder \(encoderAccepts), URL parser \(parserAccepts)")
                checked += 1
                if parserAccepts { accepted += 1 }
            }
        }
        #expect(checked > 90_000)
        #expect(accepted > 100, "the corpus reaches valid literals")
    }

    @Test func embeddedIPv4() throws {
        for literal in ["::1.2.3.4", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1::1.2.3.4", "::1.2.3", "::1.2.3.256", "1.2.3.4::", "::01.2.3.4"] {
            var buffer = ByteBuffer()
            let encoderAccepts = (try? HTTPRequestEncoder.encodeHead(
                HTTPRequestHead(method: .GET, target: .origin("/")), host: "[\(literal)]", framing: .none, into: &buffer)) != nil
            let parserAccepts = (try? HTTPURL("http://[\(literal)]/")) != nil
            #expect(encoderAccepts == parserAccepts, "\(literal)")
        }
    }
}
