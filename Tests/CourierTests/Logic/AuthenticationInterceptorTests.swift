import CourierClient
@testable import Courier
import FoundationEssentials
import Synchronization
import Testing

/// ``AuthenticationInterceptor`` without sockets: many requests refused at once, one refresh.
@Suite struct AuthenticationInterceptorTests {
    struct Token: AuthenticationCredential {
        var value: Int
        var requiresRefresh = false
    }

    /// A gate that opens once; waiters before and after pass when it is open.
    final class Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        init() { (stream, continuation) = AsyncStream<Void>.makeStream() }
        func open() { continuation.yield(); continuation.finish() }
        func wait() async { for await _ in stream { break } }
    }

    final class Counter: Sendable {
        let count = Atomic<Int>(0)
        func increment() -> Int { count.add(1, ordering: .relaxed).newValue }
    }

    /// Bearer tokens `t<n>`; a refresh gives `n + 1` once `gate` opens, or throws when `fails`.
    struct Bearer: Authenticator {
        let gate: Gate
        let failuresSeen: Counter
        let openAfterFailures: Int
        let fails: Bool

        func apply(_ credential: Token, to request: inout Request) throws {
            try request.setValue("Bearer t\(credential.value)", forHTTPHeaderField: "Authorization")
        }
        func refresh(_ credential: Token) async throws -> Token {
            await gate.wait()
            if fails { throw CancellationError() }
            return Token(value: credential.value + 1)
        }
        func isAuthenticationFailure(_ failure: RetryContext) -> Bool {
            if failuresSeen.increment() == openAfterFailures { gate.open() }
            return failure.response?.statusCode == 401
        }
        func isRequest(_ request: Request, authenticatedWith credential: Token) -> Bool {
            request.value(forHTTPHeaderField: "Authorization") == "Bearer t\(credential.value)"
        }
    }

    static let url = try! HTTPURL("http://h/api")  // a constant valid URL

    static func unauthorized(_ request: Request, retryCount: Int = 0) -> RetryContext {
        RetryContext(request: request, response: Response(location: RequestURL(url), statusCode: 401, headers: HTTPFields()),
                     error: CourierError(.unacceptableStatusCode), retryCount: retryCount, requestBytesSent: true)
    }

    /// One request as a task runs it against a server that accepts only `t<accepted>`:
    /// adapt, send, and on 401 ask the retrier, until accepted or refused.
    static func run(_ interceptor: AuthenticationInterceptor<Bearer>, accepted: Int, id: Int) async -> Result<String, CourierError> {
        var retries = 0
        while true {
            let request: Request
            do { request = try await interceptor.adapt(Request(url: url), context: AdaptationContext(taskIdentifier: id, retryCount: retries)) } catch {
                return .failure(error as! CourierError)
            }
            let sent = request.value(forHTTPHeaderField: "Authorization") ?? ""
            if sent == "Bearer t\(accepted)" { return .success(sent) }
            switch await interceptor.retry(unauthorized(request, retryCount: retries)) {
            case .retry, .retryWithDelay: retries += 1
            case .doNotRetry: return .failure(CourierError(.unacceptableStatusCode))
            case .doNotRetryWithError(let error): return .failure(error)
            }
        }
    }

    @Test func aHundredConcurrent401sCauseExactlyOneRefresh() async throws {
        let gate = Gate()
        let interceptor = AuthenticationInterceptor(
            authenticator: Bearer(gate: gate, failuresSeen: Counter(), openAfterFailures: 100, fails: false), credential: Token(value: 1))
        // A hundred requests in flight with the same token …
        var sent: [Request] = []
        for id in 0..<100 {
            sent.append(try await interceptor.adapt(Request(url: Self.url), context: AdaptationContext(taskIdentifier: id, retryCount: 0)))
        }
        #expect(sent.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == "Bearer t1" })
        // … all refused at once: the refresh is held until every 401 has reached the retrier.
        let retried = await withTaskGroup(of: String?.self) { group in
            for (id, request) in sent.enumerated() {
                group.addTask {
                    guard (await interceptor.retry(Self.unauthorized(request))).retries else { return nil }
                    return try? await interceptor.adapt(Request(url: Self.url), context: AdaptationContext(taskIdentifier: id, retryCount: 1))
                        .value(forHTTPHeaderField: "Authorization")
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(retried == Array(repeating: "Bearer t2", count: 100), "every request retried with the new token")
        #expect(interceptor.refreshCount == 1)
        #expect(interceptor.credential?.value == 2)
        // A late 401 for a request that carried the old token: retried at once, no refresh.
        #expect((await interceptor.retry(Self.unauthorized(sent[0]))).retries)
        #expect(interceptor.refreshCount == 1)
    }

    @Test func requestsStartedDuringARefreshWaitForIt() async throws {
        let gate = Gate()
        let interceptor = AuthenticationInterceptor(
            authenticator: Bearer(gate: gate, failuresSeen: Counter(), openAfterFailures: 0, fails: false), credential: Token(value: 1, requiresRefresh: true))
        // Ten requests start with a credential that must be refreshed first: one refresh.
        async let adapted = withTaskGroup(of: String?.self) { group in
            for id in 0..<10 {
                group.addTask { try? await interceptor.adapt(Request(url: Self.url), context: AdaptationContext(taskIdentifier: id, retryCount: 0)).value(forHTTPHeaderField: "Authorization") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        gate.open()
        #expect(await adapted == Array(repeating: "Bearer t2", count: 10), "no request sent the stale token")
        #expect(interceptor.refreshCount == 1)
    }

    @Test func aRefreshThatFailsFailsEveryWaiterWithATypedError() async throws {
        let gate = Gate()
        let interceptor = AuthenticationInterceptor(
            authenticator: Bearer(gate: gate, failuresSeen: Counter(), openAfterFailures: -1, fails: true), credential: Token(value: 1))
        var sent: [Request] = []
        for id in 0..<5 {
            sent.append(try await interceptor.adapt(Request(url: Self.url), context: AdaptationContext(taskIdentifier: id, retryCount: 0)))
        }
        let decisions = await withTaskGroup(of: RetryDecision.self) { group in
            for request in sent { group.addTask { await interceptor.retry(Self.unauthorized(request)) } }
            // The refresh fails only once the four others have joined it: a 401 that arrives
            // after a failed refresh may start another (the window bounds those).
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(20)
                while interceptor.joinCount < 4, ContinuousClock.now < deadline { await Task.yield() }
                gate.open()
                return .doNotRetry
            }
            return await group.reduce(into: []) { $0.append($1) }.filter { if case .doNotRetry = $0 { false } else { true } }
        }
        #expect(interceptor.joinCount == 4)
        #expect(decisions.count == 5)
        for decision in decisions {
            guard case .doNotRetryWithError(let error) = decision else { Issue.record("\(decision)"); continue }
            #expect(error.code == .authenticationRefreshFailed)
            #expect(error.underlying is CancellationError)
        }
        #expect(interceptor.refreshCount == 1, "the waiters share the one failed refresh")
        #expect(interceptor.credential?.value == 1, "the old credential stays")
    }

    @Test func aServerThatRefusesEveryCredentialMeetsTheRefreshWindow() async {
        let gate = Gate()
        gate.open()
        let interceptor = AuthenticationInterceptor(
            authenticator: Bearer(gate: gate, failuresSeen: Counter(), openAfterFailures: -1, fails: false), credential: Token(value: 1),
            refreshWindow: .init(interval: 60, maximumAttempts: 3))
        let result = await Self.run(interceptor, accepted: 1000, id: 1)
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(error.code == .excessiveAuthenticationRefresh)
        #expect(error.phase == .adapt)
        #expect(interceptor.refreshCount == 3)
    }

    @Test func withoutACredentialTheRequestFails() async {
        let interceptor = AuthenticationInterceptor(authenticator: Bearer(gate: Gate(), failuresSeen: Counter(), openAfterFailures: 0, fails: false))
        await #expect { try await interceptor.adapt(Request(url: Self.url), context: AdaptationContext(taskIdentifier: 1, retryCount: 0)) } throws: {
            ($0 as? CourierError)?.code == .authenticationCredentialMissing
        }
    }

    @Test func otherFailuresAreNotTheInterceptorsToRetry() async {
        let interceptor = AuthenticationInterceptor(authenticator: Bearer(gate: Gate(), failuresSeen: Counter(), openAfterFailures: 0, fails: false), credential: Token(value: 1))
        var failure = Self.unauthorized(Request(url: Self.url))
        failure.response = Response(location: RequestURL(Self.url), statusCode: 403, headers: HTTPFields())
        #expect(!(await interceptor.retry(failure)).retries)
        #expect(interceptor.refreshCount == 0)
    }
}
