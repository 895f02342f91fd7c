@testable import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// Cookies through a ``SessionManager`` against a scripted loopback server: stored from
/// responses, sent on later requests, carried and stored across redirect hops, off when the
/// storage is nil, shared when a jar is given to two sessions.
@Suite(.serialized) struct CookieSessionTests {
    static func routes(_ server: ScriptedServer) {
        server.route("/set") { _, connection in
            try connection.respond(headers: [("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/read; HttpOnly")], body: "set")
        }
        server.route("/read") { request, connection in
            try connection.respond(body: request.header("Cookie") ?? "-")
        }
        server.route("/start") { _, connection in
            try connection.respond(status: 302, headers: [("Location", "/hop"), ("Set-Cookie", "hop1=x; Path=/")], body: "")
        }
        server.route("/hop") { _, connection in
            try connection.respond(status: 307, headers: [("Location", "/read"), ("Set-Cookie", "hop2=y; Path=/")], body: "")
        }
    }

    static func body(_ response: DataResponse<Data>) -> String {
        response.value.map { String(decoding: $0, as: UTF8.self) } ?? "none"
    }

    @Test func aCookieSetIsSentBack() throws {
        try withSession { manager, server in
            Self.routes(server)
            _ = try runData(manager, Request(url: url(server, "/set")))
            let response = try runData(manager, Request(url: url(server, "/read")))
            #expect(Self.body(response) == "b=2; a=1", "longer path first")
            #expect(server.requests.first?.header("Cookie") == nil)
            let jar = try #require(manager.configuration.httpCookieStorage as? CookieJar)
            #expect(jar.count == 2)
        }
    }

    @Test(arguments: [false, true])
    func redirectsCarryAndStoreCookies(withHook: Bool) throws {
        try withSession { manager, server in
            Self.routes(server)
            if withHook {
                manager.updateHooks { $0.taskWillPerformHTTPRedirection = { _, _, proposed in proposed } }
            }
            var request = Request(url: url(server, "/start"))
            try request.setValue("mine=1", forHTTPHeaderField: "Cookie")
            let response = try runData(manager, request)
            #expect(Self.body(response) == "mine=1; hop1=x; hop2=y")
            #expect(server.requests.map(\.path) == ["/start", "/hop", "/read"])
            #expect(server.requests.map { $0.header("Cookie") ?? "-" } == ["mine=1", "mine=1; hop1=x", "mine=1; hop1=x; hop2=y"])
            #expect(server.requests.allSatisfy { $0.headerValues("Cookie").count == 1 }, "one Cookie field (RFC 6265bis §5.8.1)")
            // The session's current request carries the caller's cookie only.
            #expect(response.request.value(forHTTPHeaderField: "Cookie") == "mine=1")
        }
    }

    /// A hop to another origin (127.0.0.1 → localhost) gets the cookies of its own host only:
    /// neither the first host's stored cookies nor the caller's Cookie field (RFC 9110 §15.4).
    @Test func aHopToAnotherHostGetsItsOwnCookiesOnly() throws {
        try withSession { manager, server in
            Self.routes(server)
            // The port, not the server: a handler that held its server would keep it alive (a cycle).
            let port = server.port
            server.route("/cross") { _, connection in
                try connection.respond(
                    status: 302, headers: [("Location", "http://localhost:\(port)/read"), ("Set-Cookie", "first=1; Path=/")], body: "")
            }
            _ = try runData(manager, Request(url: url(server, "/set")))
            var request = Request(url: url(server, "/cross"))
            try request.setValue("mine=1", forHTTPHeaderField: "Cookie")
            let response = try runData(manager, request)
            #expect(Self.body(response) == "-")
            #expect(server.requests.last?.header("Host") == "localhost:\(server.port)")
            let jar = try #require(manager.configuration.httpCookieStorage as? CookieJar)
            #expect(jar.allCookies.first { $0.name == "first" }?.domain == "127.0.0.1", "stored for the hop that set it")
        }
    }

    @Test func theCallersCookieWinsOverAStoredOneOfTheSameName() throws {
        try withSession { manager, server in
            Self.routes(server)
            _ = try runData(manager, Request(url: url(server, "/set")))
            var request = Request(url: url(server, "/read"))
            try request.setValue("a=mine", forHTTPHeaderField: "Cookie")
            #expect(Self.body(try runData(manager, request)) == "a=mine; b=2")
        }
    }

    @Test func aTurnedOffJarStoresAndSendsNothing() throws {
        try withSession(configure: { $0.httpCookieStorage = nil }) { manager, server in
            Self.routes(server)
            _ = try runData(manager, Request(url: url(server, "/set")))
            #expect(Self.body(try runData(manager, Request(url: url(server, "/read")))) == "-")
            #expect(Self.body(try runData(manager, Request(url: url(server, "/start")))) == "-")
        }
    }

    @Test func withoutShouldSetCookiesTheJarStoresButSendsNothing() throws {
        let jar = CookieJar()
        try withSession(configure: { $0.httpCookieStorage = jar; $0.httpShouldSetCookies = false }) { manager, server in
            Self.routes(server)
            _ = try runData(manager, Request(url: url(server, "/set")))
            #expect(Self.body(try runData(manager, Request(url: url(server, "/read")))) == "-")
            #expect(jar.count == 2)
        }
    }

    @Test func aJarGivenToTwoSessionsIsShared() throws {
        let jar = CookieJar()
        try withSession(configure: { $0.httpCookieStorage = jar }) { manager, server in
            Self.routes(server)
            var configuration = SessionConfiguration()
            configuration.httpCookieStorage = jar
            let other = SessionManager(client: manager.client, configuration: configuration)
            defer { invalidateAndWait(other) }
            _ = try runData(manager, Request(url: url(server, "/set")))
            #expect(Self.body(try runData(other, Request(url: url(server, "/read")))) == "b=2; a=1")
            // Sessions made with configurations of their own have jars of their own.
            let separate = SessionManager(client: manager.client, configuration: SessionConfiguration())
            defer { invalidateAndWait(separate) }
            #expect(Self.body(try runData(separate, Request(url: url(server, "/read")))) == "-")
        }
    }

    @Test func bytesForRequestStoresAndSendsCookiesOnEveryHop() throws {
        try withSession { manager, server in
            Self.routes(server)
            let request = Request(url: url(server, "/start"))
            let body = try runAsync { () async throws(CourierError) -> Data in
                let (bytes, _) = try await manager.bytes(for: request)
                return try await bytes.collect(upTo: 1024)
            }.get()
            #expect(String(decoding: body, as: UTF8.self) == "hop1=x; hop2=y")
            #expect(server.requests.map { $0.header("Cookie") ?? "-" } == ["-", "hop1=x", "hop1=x; hop2=y"])
        }
    }
}
