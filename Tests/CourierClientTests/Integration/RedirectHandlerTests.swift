import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

/// What a handler was shown, without the requests themselves: they hold the handler, which
/// holds the record (no cycle).
struct ShownRedirect: Sendable {
    var number: Int
    var response: HTTPClientResponseHead
    var method: HTTPMethod
    var url: HTTPURL
    var proposedMethod: HTTPMethod
    var proposedURL: HTTPURL
    var proposedHasBody: Bool

    init(_ redirect: HTTPClientRedirect) {
        number = redirect.number
        response = redirect.response
        method = redirect.request.method
        url = redirect.request.url
        proposedMethod = redirect.proposed.method
        proposedURL = redirect.proposed.url
        proposedHasBody = redirect.proposed.body != nil
    }
}

/// A handler that keeps what it was asked and answers when the test says so.
final class PendingRedirects: Sendable {
    // No execution kept: the request holds the handler, which holds this.
    private let state = Mutex<(asked: [ShownRedirect], replies: [HTTPClientRedirectReply])>(([], []))
    let asked = TestEvent()

    var handler: HTTPClientRedirectHandler {
        HTTPClientRedirectHandler { _, redirect, reply in
            self.state.withLock {
                $0.asked.append(ShownRedirect(redirect))
                $0.replies.append(reply)
            }
            self.asked.signal()
        }
    }

    var redirects: [ShownRedirect] { state.withLock { $0.asked } }

    /// Answers the latest redirect, from the calling thread (not the loop).
    func answer(_ answer: HTTPClientRedirectAnswer) {
        let reply = state.withLock { $0.replies.last }
        reply?.answer(answer)
    }
}

/// What a synchronous handler was shown.
final class SeenRedirects: Sendable {
    private let seen = Mutex<[ShownRedirect]>([])
    var all: [ShownRedirect] { seen.withLock { $0 } }

    func handler(_ answer: @escaping @Sendable (HTTPClientRedirect) -> HTTPClientRedirectAnswer) -> HTTPClientRedirectHandler {
        .synchronous { _, redirect in
            self.seen.withLock { $0.append(ShownRedirect(redirect)) }
            return answer(redirect)
        }
    }
}

/// The redirect handler (RFC 9110 §15.4): follow, modify or stop each redirect the configuration
/// would follow, answered at once or later, with the 3xx body held meanwhile.
@Suite(.serialized) struct RedirectHandlerTests {
    /// `/from` answers 302 to `/target` with body `moved`; `/target` echoes the request.
    static func server() throws -> ScriptedServer {
        let server = try ScriptedServer()
        server.route("/from") { _, connection in
            try connection.respond(status: 302, headers: [("Location", "/target"), ("X-Hop", "1")], body: "moved")
        }
        server.route("/target") { request, connection in
            try connection.respond(body: "\(request.method) \(request.target) \(request.header("X-Added") ?? "-") \(request.bodyString)")
        }
        server.route("/other") { request, connection in
            try connection.respond(body: "other \(request.method) \(request.header("X-Added") ?? "-") \(request.bodyString)")
        }
        return server
    }

    @Test func followIsShownTheRedirectAndFollows() throws {
        try withClientAndServer(serving: Self.server()) { client, server in
            let seen = SeenRedirects()
            var request = try HTTPClientRequest(method: .POST, url: "\(server.baseURL)/from", body: .string("payload"))
            request.redirectHandler = seen.handler { _ in .follow }
            let result = run(client, request)
            #expect(result.head?.status == 200)
            #expect(result.bodyString == "GET /target - ")
            let redirect = try #require(seen.all.first)
            #expect(seen.all.count == 1)
            #expect(redirect.number == 1)
            #expect(redirect.response.status == 302)
            #expect(redirect.response.headers[first: "Location"] == "/target")
            #expect(redirect.response.headers[first: "X-Hop"] == "1")
            #expect(redirect.method == .POST)
            #expect(redirect.url.path == "/from")
            // The proposal has RFC 9110 §15.4.3's rule applied already: POST → GET, no body.
            #expect(redirect.proposedMethod == .GET)
            #expect(redirect.proposedURL.path == "/target")
            #expect(!redirect.proposedHasBody)
            #expect(result.events.filter { if case .head = $0 { true } else { false } } == [.head(200)])
            #expect(result.metrics?.redirectCount == 1)
        }
    }

    @Test func clientWideHandlerAndPerRequestOverride() throws {
        let seenByClient = SeenRedirects()
        try withClientAndServer(configure: { $0.redirectHandler = seenByClient.handler { _ in .stop } }, serving: Self.server()) { client, server in
            let stopped = run(client, try get("\(server.baseURL)/from"))
            #expect(stopped.head?.status == 302)
            #expect(stopped.bodyString == "moved")
            #expect(seenByClient.all.count == 1)

            let seenByRequest = SeenRedirects()
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = seenByRequest.handler { _ in .follow }
            let followed = run(client, request)
            #expect(followed.head?.status == 200)
            #expect(seenByRequest.all.count == 1)
            #expect(seenByClient.all.count == 1)
        }
    }

    @Test func modifyToAnotherURLMethodAndField() throws {
        try withClientAndServer(serving: Self.server()) { client, server in
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = .synchronous { _, redirect in
                var next = redirect.proposed
                next.method = .PUT
                next.url = try! redirect.proposed.url.resolving("/other")
                try! next.headers.append(name: "X-Added", value: "yes")
                next.body = .string("new body")
                return .modify(next)
            }
            let result = run(client, request)
            #expect(result.bodyString == "other PUT yes new body")
            #expect(server.requests.map(\.target) == ["/from", "/other"])
            #expect(server.requests.last?.header("Content-Length") == "8")
            #expect(result.hops.count == 1)
            #expect(result.hops.first?.next.method == .PUT)
        }
    }

    @Test func stopDeliversTheRedirectResponseWithItsBodyByteForByte() throws {
        // Every byte value, and more than one read's worth, so several parts are held or delivered.
        let body = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in
                try connection.respond(status: 307, headers: [("Location", "/target")], body: body)
            }
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = .synchronous { _, _ in .stop }
            let result = run(client, request)
            #expect(result.head?.status == 307)
            #expect(result.body == body)
            #expect(result.hops.isEmpty)
            #expect(result.metrics?.redirectCount == 0)
            #expect(result.metrics?.bodyBytesDelivered == Int64(body.count))
            #expect(server.requests.count == 1)
        }
    }

    /// The 3xx is sent whole in one write and the answer comes from another thread: the body has
    /// arrived before the answer. With a body, the first part is held and reading pauses (the
    /// end is parsed after the answer); without one, the response has ended and the execution
    /// waits without a connection.
    @Test(arguments: [false, true], ["", "moved"])
    func asynchronousAnswerAfterTheBodyArrived(stop: Bool, body: String) throws {
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in
                try connection.respond(status: 302, headers: [("Location", "/target")], body: body)
            }
            server.route("/target") { _, connection in try connection.respond(body: "target") }
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = HTTPClientRedirectHandler { _, _, reply in
                DispatchQueue.global().async { reply.answer(stop ? .stop : .follow) }
            }
            let result = run(client, request)
            if stop {
                #expect(result.head?.status == 302)
                #expect(result.bodyString == body)
                #expect(result.events.filter { if case .redirected = $0 { true } else { false } }.isEmpty)
            } else {
                #expect(result.head?.status == 200)
                #expect(result.bodyString == "target")
                #expect(result.events.contains(.redirected(302)))
                // The redirect's body was read to its end: the connection was reused.
                #expect(server.connectionsAccepted == 1)
            }
        }
    }

    /// The answer comes while the server holds back the rest of the 3xx body.
    @Test(arguments: [false, true])
    func asynchronousAnswerBeforeTheBodyEnded(stop: Bool) throws {
        let release = TestEvent()
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in
                try connection.send("HTTP/1.1 302 Found\r\nLocation: /target\r\nContent-Length: 10\r\n\r\nfirst")
                try connection.stall(until: release)
                try connection.send("-last")
            }
            server.route("/target") { _, connection in try connection.respond(body: "target") }
            let pending = PendingRedirects()
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = pending.handler
            let delegate = RecordingDelegate()
            // Stop: the head is delivered only once the answer is in; then the body may go on.
            delegate.onHead = { _ in release.signal() }
            client.execute(request, delegate: delegate)
            #expect(pending.asked.wait())
            pending.answer(stop ? .stop : .follow)
            // Follow: the answer is queued on the loop before the server sends the rest.
            if !stop { release.signal() }
            #expect(delegate.wait())
            if stop {
                #expect(delegate.head?.status == 302)
                #expect(delegate.bodyString == "first-last")
            } else {
                #expect(delegate.bodyString == "target")
                #expect(delegate.hops.count == 1)
                #expect(server.connectionsAccepted == 1)
            }
            release.signal()
        }
    }

    @Test func cancelWhileDecidingDuringTheBody() throws {
        let release = TestEvent()
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in
                try connection.send("HTTP/1.1 302 Found\r\nLocation: /target\r\nContent-Length: 10\r\n\r\nfirst")
                try connection.stall(until: release)
            }
            let pending = PendingRedirects()
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = pending.handler
            let delegate = RecordingDelegate()
            let execution = client.execute(request, delegate: delegate)
            #expect(pending.asked.wait())
            execution.cancel()
            #expect(delegate.wait())
            #expect(delegate.error?.code == .cancelled)
            #expect(delegate.events.filter { if case .head = $0 { true } else { false } }.isEmpty)
            // A late answer changes nothing.
            pending.answer(.stop)
            release.signal()
        }
    }

    /// An empty 3xx body: the response ends before the answer, the execution waits without a
    /// connection.
    @Test func cancelWhileDecidingAfterTheBodyEnded() throws {
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in
                try connection.respond(status: 302, headers: [("Location", "/target")], body: "")
            }
            let pending = PendingRedirects()
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = pending.handler
            let delegate = RecordingDelegate()
            let execution = client.execute(request, delegate: delegate)
            #expect(pending.asked.wait())
            execution.cancel()
            #expect(delegate.wait())
            #expect(delegate.error?.code == .cancelled)
            pending.answer(.follow)
            #expect(server.requests.count == 1)
        }
    }

    @Test(arguments: [false, true])
    func deadlineWhileDeciding(bodyEnded: Bool) throws {
        let release = TestEvent()
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in
                if bodyEnded {
                    // Empty: the response ends before the answer, the execution waits without a connection.
                    try connection.respond(status: 302, headers: [("Location", "/target")], body: "")
                } else {
                    try connection.send("HTTP/1.1 302 Found\r\nLocation: /target\r\nContent-Length: 10\r\n\r\nfirst")
                    try connection.stall(until: release)
                }
            }
            let pending = PendingRedirects()
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = pending.handler
            var timeouts = HTTPClientTimeouts.default
            timeouts.total = .milliseconds(300)
            request.timeouts = timeouts
            let result = run(client, request)
            #expect(result.error?.code == .totalTimeout)
            #expect(result.error?.phase == .redirect)
            #expect(pending.redirects.count == 1)
            release.signal()
        }
    }

    @Test func everyHopHasItsMetrics() throws {
        try withClientAndServer { client, server in
            server.route("/a") { _, connection in try connection.respond(status: 301, headers: [("Location", "/b")], body: "to b") }
            server.route("/b") { _, connection in try connection.respond(status: 302, headers: [("Location", "/c")], body: "to c") }
            server.route("/c") { _, connection in try connection.respond(body: "c") }
            var request = try get("\(server.baseURL)/a")
            request.redirectHandler = .synchronous { _, _ in .follow }
            let result = run(client, request)
            #expect(result.bodyString == "c")
            #expect(result.hops.map(\.response.status) == [301, 302])
            #expect(result.hops.map(\.next.url.path) == ["/b", "/c"])
            #expect(result.hops.map(\.metrics.redirectCount) == [0, 1])
            #expect(result.hops.map(\.metrics.reusedConnection) == [false, true])
            for hop in result.hops {
                #expect(hop.metrics.bytesReceived > 0 && hop.metrics.bytesSent > 0)
                #expect(hop.metrics.responseEnd != nil && hop.metrics.requestStart != nil)
            }
            let final = try #require(result.metrics)
            #expect(final.redirectCount == 2)
            #expect(final.reusedConnection)
            #expect(final.bodyBytesDelivered == 1)
            // The last request's own bytes, not the chain's.
            #expect(final.bytesReceived < result.hops[0].metrics.bytesReceived + result.hops[1].metrics.bytesReceived)
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func hopsWithoutHandlerAreReportedToo() throws {
        try withClientAndServer(serving: Self.server()) { client, server in
            let result = run(client, try get("\(server.baseURL)/from"))
            #expect(result.events.contains(.redirected(302)))
            #expect(result.hops.count == 1)
        }
    }

    @Test func credentialsDoNotFollowAModifiedRequestToAnotherOrigin() throws {
        try withClientAndServer(serving: Self.server()) { client, a in
            let b = try Self.server()
            defer { b.shutdown() }
            var request = try get("\(a.baseURL)/from")
            request.headers = ["Authorization": "Bearer secret", "Cookie": "id=1", "X-Keep": "k"]
            let other = try HTTPURL("\(b.baseURL)/target")
            request.redirectHandler = .synchronous { _, redirect in
                // Same origin: the proposal carries the credentials; moving it elsewhere must not.
                var next = redirect.proposed
                next.url = other
                return .modify(next)
            }
            let result = run(client, request)
            #expect(result.head?.status == 200)
            let received = try #require(b.requests.first)
            #expect(received.header("Authorization") == nil)
            #expect(received.header("Cookie") == nil)
            #expect(received.header("X-Keep") == "k")
            #expect(a.requests.first?.header("Authorization") == "Bearer secret")
        }
    }

    @Test func credentialsTheHandlerSetForAnotherOriginAreSent() throws {
        try withClientAndServer(serving: Self.server()) { client, a in
            let b = try Self.server()
            defer { b.shutdown() }
            var request = try get("\(a.baseURL)/from")
            request.headers = ["Authorization": "Bearer for-a"]
            let other = try HTTPURL("\(b.baseURL)/target")
            request.redirectHandler = .synchronous { _, redirect in
                var next = redirect.proposed
                next.url = other
                try! next.headers.set(name: "Authorization", value: "Bearer for-b")
                return .modify(next)
            }
            _ = run(client, request)
            #expect(b.requests.first?.header("Authorization") == "Bearer for-b")
        }
    }

    @Test func invalidModifiedRequestFailsWithATypedError() throws {
        try withClientAndServer(serving: Self.server()) { client, server in
            var request = try get("\(server.baseURL)/from")
            request.redirectHandler = .synchronous { _, redirect in
                var next = redirect.proposed
                next.url = redirect.request.url  // back to /from: a loop
                return .modify(next)
            }
            let result = run(client, request)
            #expect(result.error?.code == .redirectLoop)
            #expect(result.error?.phase == .redirect)

            var framed = try get("\(server.baseURL)/from")
            framed.redirectHandler = .synchronous { _, redirect in
                var next = redirect.proposed
                try! next.headers.append(name: "Content-Length", value: "3")
                return .modify(next)
            }
            #expect(run(client, framed).error?.code == .invalidRequest)
        }
    }

    @Test func configurationRefusalsComeBeforeTheHandler() throws {
        try withClientAndServer { client, server in
            server.route("/loop") { _, connection in try connection.respond(status: 302, headers: [("Location", "/loop")], body: "") }
            let seen = SeenRedirects()
            var request = try get("\(server.baseURL)/loop")
            request.redirectHandler = seen.handler { _ in .follow }
            let result = run(client, request)
            #expect(result.error?.code == .redirectLoop)
            #expect(seen.all.isEmpty)
        }
    }

    @Test func disabledRedirectsAreNotPutToTheHandler() throws {
        try withClientAndServer(serving: Self.server()) { client, server in
            let seen = SeenRedirects()
            var request = try get("\(server.baseURL)/from")
            request.redirects = .disabled
            request.redirectHandler = seen.handler { _ in .follow }
            let result = run(client, request)
            #expect(result.head?.status == 302)
            #expect(result.bodyString == "moved")
            #expect(seen.all.isEmpty)
        }
    }
}
