import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// Redirects followed over real connections (RFC 9110 §15.4): methods, bodies, credentials
/// across origins, limits and loops.
@Suite(.serialized) struct RedirectIntegrationTests {
    /// A server where `/from` answers `status` with `Location: location`, and `/target` echoes
    /// what it received.
    static func redirectingServer(status: Int, location: String = "/target") throws -> ScriptedServer {
        let server = try ScriptedServer()
        server.route("/from") { _, connection in
            try connection.respond(status: status, headers: [("Location", location)], body: "moved")
        }
        server.route("/target") { request, connection in
            try connection.respond(body: "\(request.method) \(request.bodyString)")
        }
        return server
    }

    static func request(_ method: HTTPMethod, _ url: String, body: String? = nil, headers: HTTPFields = HTTPFields()) throws -> HTTPClientRequest {
        try HTTPClientRequest(method: method, url: url, headers: headers, body: body.map { .string($0) })
    }

    @Test(arguments: [301, 302])
    func postBecomesGetWithoutBody(status: Int) throws {
        try withClientAndServer(serving: Self.redirectingServer(status: status)) { client, server in
            let headers: HTTPFields = ["Content-Type": "text/plain"]
            let result = run(client, try Self.request(.POST, "\(server.baseURL)/from", body: "payload", headers: headers))
            #expect(result.head?.status == 200)
            #expect(result.bodyString == "GET ")
            #expect(result.metrics?.redirectCount == 1)
            let target = try #require(server.requests.last)
            #expect(target.method == "GET")
            #expect(target.body.isEmpty)
            #expect(target.header("Content-Length") == nil)
            #expect(target.header("Content-Type") == nil)
            #expect(server.requests.first?.bodyString == "payload")
        }
    }

    @Test func seeOtherTurnsPutIntoGet() throws {
        try withClientAndServer(serving: Self.redirectingServer(status: 303)) { client, server in
            let result = run(client, try Self.request(.PUT, "\(server.baseURL)/from", body: "payload"))
            #expect(result.bodyString == "GET ")
            #expect(server.requests.last?.header("Content-Length") == nil)
        }
    }

    @Test(arguments: [307, 308])
    func temporaryAndPermanentRedirectsKeepMethodAndBody(status: Int) throws {
        try withClientAndServer(serving: Self.redirectingServer(status: status)) { client, server in
            let result = run(client, try Self.request(.POST, "\(server.baseURL)/from", body: "payload"))
            #expect(result.head?.status == 200)
            #expect(result.bodyString == "POST payload")
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.header("Content-Length") == "7")
            // The redirect's own body is not delivered: the delegate sees only the final response.
            #expect(result.events.filter { if case .head = $0 { true } else { false } } == [.head(200)])
        }
    }

    @Test func streamBodyIsReplayedOn307() throws {
        try withClientAndServer(serving: Self.redirectingServer(status: 307)) { client, server in
            var request = try get("\(server.baseURL)/from")
            request.method = .PUT
            request.body = .stream(length: nil) { PiecesStream(pieces: ["abc", "def"]) }
            let result = run(client, request)
            #expect(result.bodyString == "PUT abcdef")
            #expect(server.requests.map(\.wasChunked) == [true, true])
        }
    }

    @Test func relativeLocationIsResolved() throws {
        try withClientAndServer { client, server in
            server.route("/a/b/from") { _, connection in
                try connection.respond(status: 302, headers: [("Location", "../c/target?x=1")], body: "")
            }
            server.route("/a/c/target") { request, connection in try connection.respond(body: request.target) }
            let result = run(client, try get("\(server.baseURL)/a/b/from"))
            #expect(result.bodyString == "/a/c/target?x=1")
        }
    }

    @Test func crossOriginRedirectDropsCredentials() throws {
        try withClient { client in
            let other = try ScriptedServer()
            defer { other.shutdown() }
            other.route("/landing") { _, connection in try connection.respond(body: "other") }
            let server = try Self.redirectingServer(status: 302, location: "\(other.baseURL)/landing")
            defer { server.shutdown() }
            let headers: HTTPFields = [
                "Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic eDp5",
                "X-Kept": "yes",
            ]
            let result = run(client, try Self.request(.GET, "\(server.baseURL)/from", headers: headers))
            #expect(result.bodyString == "other")
            let first = try #require(server.requests.first)
            #expect(first.header("Authorization") == "Bearer secret")
            let landed = try #require(other.requests.first)
            #expect(landed.header("Authorization") == nil)
            #expect(landed.header("Cookie") == nil)
            #expect(landed.header("Proxy-Authorization") == nil)
            #expect(landed.header("X-Kept") == "yes")
            #expect(landed.header("Host") == other.authority)
        }
    }

    @Test func sameOriginRedirectKeepsCredentials() throws {
        try withClientAndServer(serving: Self.redirectingServer(status: 302)) { client, server in
            let headers: HTTPFields = ["Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic eDp5"]
            let result = run(client, try Self.request(.GET, "\(server.baseURL)/from", headers: headers))
            #expect(result.bodyString == "GET ")
            let target = try #require(server.requests.last)
            #expect(target.path == "/target")
            #expect(target.header("Authorization") == "Bearer secret")
            #expect(target.header("Cookie") == "session=1")
            #expect(target.header("Proxy-Authorization") == "Basic eDp5")
        }
    }

    /// `/hop/N` redirects to `/hop/N+1` until `/hop/last`, which answers 200.
    static func hopServer(last: Int) throws -> ScriptedServer {
        let server = try ScriptedServer()
        server.setDefaultHandler { request, connection in
            let n = Int(request.path.dropFirst("/hop/".count)) ?? 0
            if n >= last {
                try connection.respond(body: "arrived after \(n)")
            } else {
                try connection.respond(status: 302, headers: [("Location", "/hop/\(n + 1)")], body: "")
            }
        }
        return server
    }

    /// The default limit is NSURLSession's and Alamofire's: 16 redirects are followed.
    @Test func sixteenRedirectsAreFollowed() throws {
        try withClientAndServer(serving: Self.hopServer(last: 16)) { client, server in
            let result = run(client, try get("\(server.baseURL)/hop/0"))
            #expect(result.bodyString == "arrived after 16")
            #expect(result.metrics?.redirectCount == 16)
            // Every hop reused the one keep-alive connection.
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func seventeenthRedirectFails() throws {
        try withClientAndServer(serving: Self.hopServer(last: 17)) { client, server in
            let result = run(client, try get("\(server.baseURL)/hop/0"))
            #expect(result.head == nil)
            #expect(result.error?.code == .tooManyRedirects, "\(String(describing: result.error))")
            #expect(result.error?.phase == .redirect)
            #expect(server.requests.count == 17)
        }
    }

    @Test func redirectLoopFails() throws {
        try withClientAndServer { client, server in
            server.route("/a") { _, connection in try connection.respond(status: 302, headers: [("Location", "/b")], body: "") }
            server.route("/b") { _, connection in try connection.respond(status: 302, headers: [("Location", "/a")], body: "") }
            let result = run(client, try get("\(server.baseURL)/a"))
            #expect(result.error?.code == .redirectLoop, "\(String(describing: result.error))")
            #expect(server.requests.map(\.path) == ["/a", "/b"])
        }
    }

    @Test func disabledRedirectsReturnTheRedirect() throws {
        try withClientAndServer(serving: Self.redirectingServer(status: 301)) { client, server in
            var request = try get("\(server.baseURL)/from")
            request.redirects = .disabled
            let result = run(client, request)
            #expect(result.head?.status == 301)
            #expect(result.head?.headers[first: "Location"] == "/target")
            #expect(result.bodyString == "moved")
            #expect(result.metrics?.redirectCount == 0)
            #expect(server.requests.count == 1)
        }
        try withClientAndServer(
            configure: { $0.redirects.follow = false }, serving: Self.redirectingServer(status: 302)
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/from"))
            #expect(result.head?.status == 302)
        }
    }
}

/// A body stream that yields the given strings, one piece each.
struct PiecesStream: HTTPClientBodyStream {
    var pieces: [String]
    mutating func next() throws -> ByteBuffer? {
        pieces.isEmpty ? nil : ByteBuffer(string: pieces.removeFirst())
    }
}
