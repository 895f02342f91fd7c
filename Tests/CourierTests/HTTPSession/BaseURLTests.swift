import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// AFNetworking's base URL rule (`URLWithString:relativeToURL:` after the trailing slash is
/// added), first through `url(for:)`, then through real requests whose target the server records.
@Suite(.serialized) struct BaseURLTests {
    /// The URL `url(for:)` makes, or the error's description.
    static func resolve(_ manager: HTTPSessionManager, _ path: String) -> String {
        do { return try manager.url(for: path).absoluteString } catch { return "failed: \(error)" }
    }

    @Test func aBaseURLWithAPathGetsATrailingSlash() throws {
        try withHTTPManager(baseURL: "http://h:8080/v1") { manager in
            #expect(manager.baseURL?.absoluteString == "http://h:8080/v1/")
            #expect(Self.resolve(manager, "users") == "http://h:8080/v1/users")
            #expect(Self.resolve(manager, "users/7") == "http://h:8080/v1/users/7")
            #expect(Self.resolve(manager, "/users") == "http://h:8080/users", "a leading slash replaces the base path")
            #expect(Self.resolve(manager, "../x") == "http://h:8080/x")
            #expect(Self.resolve(manager, "./x") == "http://h:8080/v1/x")
            #expect(Self.resolve(manager, "users?page=2&q=a") == "http://h:8080/v1/users?page=2&q=a")
            #expect(Self.resolve(manager, "") == "http://h:8080/v1/")
            #expect(Self.resolve(manager, "https://other.example:9/z?k=v") == "https://other.example:9/z?k=v")
            #expect(Self.resolve(manager, "//other.example/p") == "http://other.example/p", "a network-path reference keeps the scheme")
        }
    }

    @Test func aBaseURLEndingInASlashIsUnchanged() throws {
        try withHTTPManager(baseURL: "http://h:8080/v1/") { manager in
            #expect(manager.baseURL?.absoluteString == "http://h:8080/v1/")
            #expect(Self.resolve(manager, "users") == "http://h:8080/v1/users")
        }
        try withHTTPManager(baseURL: "http://h:8080/a/b") { manager in
            #expect(manager.baseURL?.absoluteString == "http://h:8080/a/b/")
            #expect(Self.resolve(manager, "../x") == "http://h:8080/a/x", "one level up from /a/b/")
            #expect(Self.resolve(manager, "../../x") == "http://h:8080/x")
        }
    }

    @Test func aBaseURLWithoutAPathIsUnchanged() throws {
        try withHTTPManager(baseURL: "http://h:8080") { manager in
            #expect(manager.baseURL?.absoluteString == "http://h:8080")
            #expect(Self.resolve(manager, "users") == "http://h:8080/users")
            #expect(Self.resolve(manager, "/users") == "http://h:8080/users")
        }
    }

    @Test func theSlashGoesOnThePathNotAfterAQuery() throws {
        // AFNetworking appends an empty path component (`URLByAppendingPathComponent:@""`).
        try withHTTPManager(baseURL: "http://h:8080/v1?key=1") { manager in
            #expect(manager.baseURL?.absoluteString == "http://h:8080/v1/?key=1")
            #expect(Self.resolve(manager, "users") == "http://h:8080/v1/users")
            #expect(Self.resolve(manager, "") == "http://h:8080/v1/?key=1")
        }
    }

    @Test func withoutABaseURLOnlyAbsoluteURLsWork() throws {
        try withHTTPManager(baseURL: nil) { manager in
            #expect(manager.baseURL == nil)
            #expect(Self.resolve(manager, "http://h:8080/plain?x=1") == "http://h:8080/plain?x=1")
            for path in ["users", "/users", "../x", ""] {
                #expect { try manager.url(for: path) } throws: { ($0 as? CourierError)?.code == .invalidURL }
            }
        }
    }

    // MARK: Real requests

    /// Sends GET `path` through `manager` and returns the target the server saw.
    static func target(_ manager: HTTPSessionManager, _ server: ScriptedServer, _ path: String, parameters: (any Sendable)? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> RecordedRequest? {
        let before = server.requests.count
        let outcome = Outcome<CourierError?>()
        let task = manager.GET(path, parameters: parameters, success: { _, _ in outcome.set(nil) }, failure: { _, error in outcome.set(error) })
        #expect(task != nil, sourceLocation: sourceLocation)
        let error = try #require(outcome.wait(), "the request did not finish", sourceLocation: sourceLocation)
        #expect(error == nil, "\(String(describing: error))", sourceLocation: sourceLocation)
        return server.requests.dropFirst(before).first
    }

    /// The target the server saw for GET `path`, or a description of what went wrong.
    static func seenTarget(_ manager: HTTPSessionManager, _ server: ScriptedServer, _ path: String, parameters: (any Sendable)? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            return try target(manager, server, path, parameters: parameters, sourceLocation: sourceLocation)?.target ?? "no request"
        } catch {
            return "failed: \(error)"
        }
    }

    static func routeAll(_ server: ScriptedServer) {
        server.setDefaultHandler { _, connection in
            try connection.respond(headers: [("Content-Type", "application/json")], body: "{}")
        }
    }

    @Test func relativePathsResolveAgainstTheBasePathOnTheWire() throws {
        try withHTTPSession(baseURLPath: "/v1") { manager, server in
            Self.routeAll(server)
            #expect(Self.seenTarget(manager, server, "users") == "/v1/users")
            #expect(Self.seenTarget(manager, server, "/users") == "/users")
            #expect(Self.seenTarget(manager, server, "users?page=2&sort=name") == "/v1/users?page=2&sort=name")
            #expect(Self.seenTarget(manager, server, "users?page=2", parameters: ["q": "x"]) == "/v1/users?page=2&q=x",
                    "parameters are appended to the path's own query")
        }
    }

    @Test func aSlashTerminatedBaseAndDotDotOnTheWire() throws {
        try withHTTPSession(baseURLPath: "/v1/") { manager, server in
            Self.routeAll(server)
            #expect(Self.seenTarget(manager, server, "users") == "/v1/users")
        }
        try withHTTPSession(baseURLPath: "/v1/sub") { manager, server in
            Self.routeAll(server)
            #expect(Self.seenTarget(manager, server, "../x") == "/v1/x")
        }
    }

    @Test func anAbsoluteURLOverridesTheBaseURL() throws {
        // The base names a host that does not exist: only the absolute URL can reach the server.
        try withHTTPSession(baseURL: { _ in "http://base.invalid/v1" }) { manager, server in
            Self.routeAll(server)
            let seen = try Self.target(manager, server, server.baseURL + "/abs/x?k=v")
            #expect(seen?.target == "/abs/x?k=v")
            #expect(seen?.header("Host") == server.authority)
        }
    }

    @Test func noBaseURLWithAnAbsoluteURL() throws {
        try withHTTPSession(baseURLPath: nil) { manager, server in
            Self.routeAll(server)
            #expect(manager.baseURL == nil)
            #expect(Self.seenTarget(manager, server, server.baseURL + "/plain") == "/plain")
        }
    }
}
