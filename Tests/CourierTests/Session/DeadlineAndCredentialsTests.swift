import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// A request's own total deadline (issue 9, item 2.3) and credentials in the URL (item 1.6),
/// through a `SessionManager`.
@Suite(.serialized) struct DeadlineAndCredentialsTests {
    // MARK: Deadlines

    /// A server that holds `/stall` until the test ends (the session is invalidated first).
    static func stalling(_ server: ScriptedServer, _ release: TestEvent) {
        server.route("/stall") { _, connection in
            try connection.stall(until: release)
            try connection.respond(body: "late")
        }
    }

    @Test func theRequestsDeadlineEndsAStalledResponse() throws {
        try withSession { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            Self.stalling(server, release)
            // The idle timeout alone (60 s) would wait; the total deadline does not.
            let request = Request(url: url(server, "/stall"), totalTimeoutInterval: 1)
            let response = try runData(manager, request)
            let error = try #require(response.error, "the stalled request succeeded")
            #expect(error.code == .resourceTimeout, "\(error)")
            #expect(error.phase == .receive)
            #expect((error.underlying as? ClientError)?.code == .totalTimeout)
            #expect(!release.isSignaled, "the server was still holding the response")
        }
    }

    @Test func theDeadlineCoversTheWholeRedirectChain() throws {
        try withSession { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            server.route("/r1") { _, connection in try connection.respond(status: 302, headers: [("Location", "/r2")]) }
            server.route("/r2") { _, connection in try connection.respond(status: 307, headers: [("Location", "/stall")]) }
            Self.stalling(server, release)
            let request = Request(url: url(server, "/r1"), totalTimeoutInterval: 1)
            let response = try runData(manager, request)
            let error = try #require(response.error)
            #expect(error.code == .resourceTimeout, "\(error)")
            #expect(error.phase == .receive)
            #expect(server.requests.map(\.path) == ["/r1", "/r2", "/stall"])
            #expect(response.metrics?.redirectCount == 2)
        }
    }

    @Test func theSoonerOfTheRequestsAndTheSessionsLimitWins() throws {
        try withSession(configure: { $0.timeoutIntervalForResource = 600 }) { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            Self.stalling(server, release)
            let response = try runData(manager, Request(url: url(server, "/stall"), totalTimeoutInterval: 1))
            #expect(response.error?.code == .resourceTimeout)
        }
        try withSession(configure: { $0.timeoutIntervalForResource = 1 }) { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            Self.stalling(server, release)
            let response = try runData(manager, Request(url: url(server, "/stall"), totalTimeoutInterval: 600))
            #expect(response.error?.code == .resourceTimeout)
        }
    }

    @Test func aDeadlineWhileSendingTheBodyFailsInTheSendPhase() throws {
        try withSession { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            // The server never reads the body; the body stream never ends.
            server.route("/upload", body: .manual) { _, connection in
                try connection.stall(until: release)
            }
            let request = Request(
                url: url(server, "/upload"), method: .POST,
                body: .stream(length: nil) { EndlessEmptyStream() }, totalTimeoutInterval: 1)
            let response = try runData(manager, request)
            let error = try #require(response.error)
            #expect(error.code == .resourceTimeout, "\(error)")
            #expect(error.phase == .send)
        }
    }

    // MARK: Credentials in the URL

    static func withUserInfo(_ server: ScriptedServer, _ userInfo: String, _ path: String) -> URL {
        URL(string: "http://\(userInfo)@\(server.authority)\(path)")!
    }

    @Test func urlCredentialsAreSentAndKeptToTheirOrigin() throws {
        try withSession { manager, server in
            let other = try ScriptedServer()
            defer { other.shutdown() }
            other.route("/landing") { _, connection in try connection.respond(body: "landed") }
            let away = "\(other.baseURL)/landing"
            server.route("/here") { _, connection in try connection.respond(status: 302, headers: [("Location", "/there")]) }
            server.route("/there") { _, connection in try connection.respond(status: 302, headers: [("Location", away)]) }
            let response = try runData(manager, Request(url: Self.withUserInfo(server, "alice:s3cret", "/here")))
            #expect(response.error == nil, "\(String(describing: response.error))")
            let expected = "Basic " + Data("alice:s3cret".utf8).base64EncodedString()
            #expect(server.requests.map { $0.header("Authorization") } == [expected, expected])
            #expect(other.requests.count == 1)
            #expect(other.requests.first?.header("Authorization") == nil, "credentials followed a redirect to another origin")
        }
    }

    @Test func descriptionsAndErrorsDoNotPrintURLCredentials() throws {
        try withSession { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            Self.stalling(server, release)
            let request = Request(url: Self.withUserInfo(server, "alice:s3cret", "/stall"), totalTimeoutInterval: 1)
            let task = manager.dataTask(with: request) { _ in }
            #expect(!task.description.contains("s3cret"), "\(task)")
            #expect(task.description.contains("alice:***@"), "\(task)")
            task.cancel()
            let response = try runData(manager, request)
            let error = try #require(response.error)
            #expect(!error.description.contains("s3cret"), "\(error)")
            #expect(error.description.contains("alice:***@"), "\(error)")
        }
        let secretURL = URL(string: "https://TOKEN@example.com/x")!
        let error = CourierError(.invalidURL, failingURL: secretURL)
        #expect(!error.description.contains("TOKEN"), "\(error)")
        let request = Request(url: URL(string: "https://alice:s3cret@example.com/x")!)
        #expect("\(request)" == "GET https://alice:***@example.com/x")
        let response = Response(url: secretURL, statusCode: 200, headers: HTTPFields())
        #expect("\(response)" == "HTTP 200 https://***@example.com/x")
    }
}

/// A body stream that never has anything and asks to be polled again only after a minute.
struct EndlessEmptyStream: HTTPClientBodyStream {
    mutating func next() throws -> ByteBuffer? { ByteBuffer() }
    var waitAfterEmptyPiece: TimeAmount? { .seconds(60) }
}
