import Courier
import Dispatch
import CourierTestSupport
import FoundationEssentials
import Synchronization
import Testing

/// Interceptors on real tasks against scripted loopback servers: adapters before every attempt,
/// the retry policy on statuses, transport failures and `Retry-After`, what it does with a POST
/// whose bytes did or did not reach the socket, a retry racing a cancel, and token refresh under
/// a hundred concurrent 401s.
@Suite(.serialized) struct InterceptorTests {
    /// Adds a field naming itself, after any the request already has.
    struct Tagging: RequestInterceptor {
        let tag: String
        func adapt(_ request: Request, context: AdaptationContext) async throws -> Request {
            var adapted = request
            adapted.headers.append(try HTTPField(name: "X-Adapted-By", value: "\(tag) attempt \(context.retryCount)"))
            return adapted
        }
    }

    struct Refusing: RequestAdapter {
        struct NoToken: Error {}
        func adapt(_ request: Request, context: AdaptationContext) async throws -> Request { throw NoToken() }
    }

    /// A retry policy whose delays are too short to matter.
    static func quickPolicy(limit: Int = 2, allowPOST: Bool = false) -> RetryPolicy {
        RetryPolicy(retryLimit: limit, exponentialBackoffScale: 0.001, maximumDelay: 0.01,
                    retriesNonIdempotentRequestsAfterBytesSent: allowPOST)
    }

    /// Answers 503 (with `headers`) `failures` times, then 200 "ok".
    static func flaky(_ server: ScriptedServer, failures: Int, headers: [(String, String)] = []) {
        let seen = Atomic<Int>(0)
        server.route("/flaky") { _, connection in
            if seen.add(1, ordering: .relaxed).newValue <= failures {
                try connection.respond(status: 503, headers: headers, body: "busy")
            } else {
                try connection.respond(status: 200, body: "ok")
            }
        }
    }

    @Test func theRequestsAdapterRunsBeforeTheSessionsOnEveryAttempt() throws {
        try withSession(configure: { $0.interceptor = Interceptor(interceptors: [Tagging(tag: "session"), Self.quickPolicy()]) }) { manager, server in
            Self.flaky(server, failures: 1)
            var request = Request(url: url(server, "/flaky"))
            request.interceptor = Tagging(tag: "request")
            let response = try runData(manager, request)
            #expect(response.response?.statusCode == 200)
            #expect(server.requests.map { $0.headerValues("X-Adapted-By") } == [
                ["request attempt 0", "session attempt 0"],
                ["request attempt 1", "session attempt 1"],
            ], "each attempt adapted once, from the request as the caller made it")
        }
    }

    @Test func anAdapterThatThrowsFailsTheTaskInTheAdaptPhaseNamingIt() throws {
        try withSession(configure: { $0.interceptor = Interceptor(adapters: [Tagging(tag: "first"), Refusing()]) }) { manager, server in
            server.route("/never") { _, connection in try connection.respond(status: 200, body: "") }
            let response = try runData(manager, Request(url: url(server, "/never")))
            let error = try #require(response.error)
            #expect(error.code == .requestAdaptationFailed)
            #expect(error.phase == .adapt)
            #expect(error.underlying is Refusing.NoToken)
            #expect(error.detail?.contains("Refusing") == true, "\(error)")
            #expect(server.requests.isEmpty, "nothing was sent")
        }
    }

    @Test func theRetryPolicyRetriesA503UntilItSucceedsWithOneTransactionPerAttempt() throws {
        try withSession(configure: { $0.interceptor = Self.quickPolicy() }) { manager, server in
            Self.flaky(server, failures: 2)
            let response = try runData(manager, Request(url: url(server, "/flaky")))
            #expect(response.response?.statusCode == 200)
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "ok")
            #expect(server.requests.count == 3)
            #expect(response.metrics?.transactionMetrics.count == 3)
            #expect(response.metrics?.retryCount == 2)
        }
    }

    @Test func pastTheRetryLimitTheLastResponseIsDelivered() throws {
        try withSession(configure: { $0.interceptor = Self.quickPolicy(limit: 1) }) { manager, server in
            Self.flaky(server, failures: 5)
            let response = try runData(manager, Request(url: url(server, "/flaky")))
            #expect(response.response?.statusCode == 503)
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "busy", "the last response's body, as sent")
            #expect(server.requests.count == 2)
        }
    }

    /// RFC 9110 §10.2.3: an HTTP-date, counted from the response's `Date`: one already past
    /// means "now"; one further off than the policy's cap (60 s) means the failure stands.
    @Test(arguments: [("Sun, 06 Nov 1994 07:49:37 GMT", 2), ("Sun, 06 Nov 1994 10:49:37 GMT", 1)])
    func retryAfterAsAnHTTPDateIsHonouredWithACap(retryAfter: String, requests: Int) throws {
        try withSession(configure: { $0.interceptor = Self.quickPolicy() }) { manager, server in
            Self.flaky(server, failures: 1, headers: [("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Retry-After", retryAfter)])
            let response = try runData(manager, Request(url: url(server, "/flaky")))
            #expect(server.requests.count == requests)
            #expect(response.response?.statusCode == (requests == 2 ? 200 : 503))
        }
    }

    /// A POST whose bytes were partly written may have reached the server: not resent unless the
    /// caller allows it. The server reads the head, then resets the connection mid-body.
    @Test(arguments: [false, true])
    func aPartlyWrittenPOSTIsRetriedOnlyWhenTheCallerAllowsIt(allow: Bool) throws {
        try withSession(configure: { $0.interceptor = Self.quickPolicy(allowPOST: allow) }) { manager, server in
            let seen = Atomic<Int>(0)
            server.route("/upload", body: .manual) { _, connection in
                if seen.add(1, ordering: .relaxed).newValue == 1 {
                    connection.reset()
                } else {
                    _ = try connection.readRequestBody()
                    try connection.respond(status: 200, body: "stored")
                }
            }
            let request = Request(url: url(server, "/upload"), method: .POST, body: .data(Data(patternBytes(8 << 20))))
            let response = try runData(manager, request)
            let first = try #require(response.metrics?.transactionMetrics.first)
            #expect(first.bytesSent > 0, "part of the request was written before the reset")
            if allow {
                #expect(response.response?.statusCode == 200)
                #expect(seen.load(ordering: .relaxed) == 2)
            } else {
                #expect(response.error?.code == .transport)
                #expect(seen.load(ordering: .relaxed) == 1, "not resent")
                #expect(response.metrics?.retryCount == 0)
            }
        }
    }

    /// Nothing reached a server that refused the connection, so even a POST is safe to resend.
    @Test func aPOSTThatNeverReachedTheSocketIsRetried() throws {
        let closed = try ScriptedServer()
        let target = url(closed, "/gone")
        closed.shutdown()
        try withSession(configure: { $0.interceptor = Self.quickPolicy(limit: 2) }) { manager, _ in
            let response = try runData(manager, Request(url: target, method: .POST, body: .data(Data("x".utf8))))
            #expect(response.error?.phase == .connect)
            #expect(response.metrics?.retryCount == 2)
            #expect(response.metrics?.transactionMetrics.count == 3)
            #expect(response.metrics?.transactionMetrics.allSatisfy { $0.bytesSent == 0 } == true)
        }
    }

    /// A retrier that holds its answer until released.
    final class HeldRetrier: RequestInterceptor {
        let asked = TestEvent()
        private let release: AsyncStream<Void>
        private let releaser: AsyncStream<Void>.Continuation
        init() { (release, releaser) = AsyncStream<Void>.makeStream() }
        func open() { releaser.finish() }
        func retry(_ failure: RetryContext) async -> RetryDecision {
            asked.signal()
            for await _ in release {}
            return .retry
        }
    }

    @Test func aCancelWhileTheRetrierDecidesEndsTheTaskOnce() throws {
        let retrier = HeldRetrier()
        try withSession(configure: { $0.interceptor = retrier }) { manager, server in
            Self.flaky(server, failures: 1)
            let completions = Recorder<DataResponse<Data>>()
            let done = TestEvent()
            let task = manager.dataTask(with: Request(url: url(server, "/flaky"))) { completions.append($0); done.signal() }
            task.resume()
            #expect(retrier.asked.wait(timeout: .seconds(20)), "the 503 reached the retrier")
            task.cancel()
            #expect(done.wait(timeout: .seconds(20)))
            retrier.open()
            #expect(completions.all.first?.error?.code == .cancelled)
            #expect(task.state == .completed)
            #expect(server.requests.count == 1, "the retry decided after the cancel made nothing")
            #expect(completions.count == 1)
        }
    }

    @Test func aCancelDuringARetrysDelayEndsTheWait() throws {
        let policy = RetryPolicy(retryLimit: 1, exponentialBackoffScale: 600, maximumDelay: 600)
        try withSession(configure: { $0.interceptor = policy }) { manager, server in
            let failed = TestEvent()
            server.route("/down") { _, connection in
                failed.signal()
                try connection.respond(status: 503, body: "")
            }
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/down"))) { outcome.set($0) }
            task.resume()
            #expect(failed.wait(timeout: .seconds(20)))
            // The task now waits up to ten minutes (full jitter) — unless the draw was tiny and
            // it already retried: either way a cancel ends it.
            task.cancel()
            let response = try #require(outcome.wait(), "the cancel did not end the delay")
            #expect(response.error?.code == .cancelled)
        }
    }

    struct Token: AuthenticationCredential {
        var value: Int
        var requiresRefresh: Bool { false }
    }

    struct Bearer: Authenticator {
        func apply(_ credential: Token, to request: inout Request) throws {
            try request.setValue("Bearer t\(credential.value)", forHTTPHeaderField: "Authorization")
        }
        func refresh(_ credential: Token) async throws -> Token { Token(value: credential.value + 1) }
        func isRequest(_ request: Request, authenticatedWith credential: Token) -> Bool {
            request.value(forHTTPHeaderField: "Authorization") == "Bearer t\(credential.value)"
        }
    }

    /// The server has rotated its token to `t2`: every request sent with `t1` gets 401.
    @Test func aHundredConcurrentRequestsMeetingA401ShareOneRefresh() throws {
        let auth = AuthenticationInterceptor(authenticator: Bearer(), credential: Token(value: 1))
        try withSession(configure: { $0.interceptor = auth }) { manager, server in
            server.route("/api") { request, connection in
                if request.header("Authorization") == "Bearer t2" {
                    try connection.respond(status: 200, body: "ok")
                } else {
                    try connection.respond(status: 401, headers: [("WWW-Authenticate", #"Bearer realm="api""#)], body: "expired")
                }
            }
            let responses = Recorder<DataResponse<Data>>()
            let group = DispatchGroup()
            for _ in 0..<100 {
                group.enter()
                manager.dataTask(with: Request(url: url(server, "/api"))) { responses.append($0); group.leave() }.resume()
            }
            #expect(group.wait(timeout: .now() + .seconds(60)) == .success)
            #expect(responses.count == 100)
            #expect(responses.all.allSatisfy { $0.response?.statusCode == 200 }, "every request succeeded")
            #expect(auth.refreshCount == 1, "exactly one refresh")
            #expect(auth.credential?.value == 2)
            let accepted = server.requests.filter { $0.header("Authorization") == "Bearer t2" }
            #expect(accepted.count == 100)
        }
    }
}
