import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// User information in a request URL is sent as Basic credentials to that origin, and to no
/// other (issue 9, item 1.6; RFC 7617, RFC 3986 §3.2.1).
@Suite(.serialized) struct URLCredentialsTests {
    static func basic(_ userAndPassword: String) -> String { "Basic " + Base64.encode(userAndPassword) }

    /// `http://user:pass@127.0.0.1:port` for a loopback server.
    static func url(_ server: ScriptedServer, userInfo: String, path: String = "/") -> String {
        (server.isTLS ? "https://" : "http://") + userInfo + "@" + server.authority + path
    }

    static func echoing(_ server: ScriptedServer) {
        server.setDefaultHandler { _, connection in try connection.respond(body: "ok") }
    }

    @Test func credentialsInTheURLAreSentAsBasic() throws {
        try withClientAndServer { client, server in
            Self.echoing(server)
            // Percent-decoded before encoding: "%3A" in the password is a ":", "%C3%A9" an "é".
            let result = run(client, try get(Self.url(server, userInfo: "alice:s%3Acr%C3%A9t", path: "/x")))
            #expect(result.head?.status == 200)
            #expect(server.requests.first?.header("Authorization") == Self.basic("alice:s:crét"))
            // Never in the request line.
            #expect(server.requests.first?.target == "/x")
        }
    }

    @Test func aUserWithoutPasswordSendsAnEmptyPassword() throws {
        try withClientAndServer { client, server in
            Self.echoing(server)
            run(client, try get(Self.url(server, userInfo: "token")))
            #expect(server.requests.first?.header("Authorization") == Self.basic("token:"))
        }
    }

    @Test func theCallersAuthorizationWins() throws {
        try withClientAndServer { client, server in
            Self.echoing(server)
            var request = try get(Self.url(server, userInfo: "alice:pw"))
            try request.headers.append(name: "Authorization", value: "Bearer mine")
            run(client, request)
            #expect(server.requests.first?.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer mine"])
        }
    }

    @Test func noUserInformationNoAuthorization() throws {
        try withClientAndServer { client, server in
            Self.echoing(server)
            run(client, try get("\(server.baseURL)/"))
            #expect(server.requests.first?.header("Authorization") == nil)
        }
    }

    @Test func sameOriginRedirectsKeepThem() throws {
        try withClientAndServer { client, server in
            server.route("/relative") { _, connection in try connection.respond(status: 302, headers: [("Location", "/a")], body: "") }
            let absolute = "\(server.baseURL)/b"
            server.route("/a") { _, connection in try connection.respond(status: 307, headers: [("Location", absolute)], body: "") }
            server.route("/b") { _, connection in try connection.respond(body: "ok") }
            let result = run(client, try get(Self.url(server, userInfo: "alice:pw", path: "/relative")))
            #expect(result.bodyString == "ok")
            #expect(server.requests.map(\.path) == ["/relative", "/a", "/b"])
            #expect(server.requests.map { $0.header("Authorization") } == Array(repeating: Self.basic("alice:pw"), count: 3))
        }
    }

    @Test func aCrossOriginRedirectDoesNotCarryThem() throws {
        try withClientAndServer { client, server in
            let other = try ScriptedServer()
            defer { other.shutdown() }
            Self.echoing(other)
            let location = "\(other.baseURL)/landing"
            server.route("/from") { _, connection in try connection.respond(status: 302, headers: [("Location", location)], body: "") }
            let result = run(client, try get(Self.url(server, userInfo: "alice:pw", path: "/from")))
            #expect(result.bodyString == "ok")
            #expect(server.requests.first?.header("Authorization") == Self.basic("alice:pw"))
            // Another port is another origin (RFC 6454): nothing is sent there.
            #expect(other.requests.count == 1)
            #expect(other.requests.first?.header("Authorization") == nil)
            #expect(result.metrics?.redirectCount == 1)
        }
    }

    /// User information that cannot be Basic credentials (RFC 7617 §2: no ":" in the user-id,
    /// no control characters) is refused before any connection, and the error does not print it.
    @Test(arguments: ["us%3Aer:s3cret", "user:s3%0Acret", "us%00er:s3cret"])
    func unsendableCredentialsAreRefused(_ userInfo: String) throws {
        try withClientAndServer { client, server in
            Self.echoing(server)
            let result = run(client, try get(Self.url(server, userInfo: userInfo)))
            #expect(result.error?.code == .invalidURL)
            #expect(result.error?.cause is BasicAuthorizationError)
            #expect(!(result.error?.description.contains("s3") ?? true), "\(String(describing: result.error))")
            #expect(server.connectionsAccepted == 0)
        }
    }
}
