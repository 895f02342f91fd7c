import CourierClient
@testable import Courier
import FoundationEssentials
import Testing

/// ``RetryPolicy``'s decisions, ``RetryAfter`` and ``Interceptor``'s composition, without sockets.
@Suite struct RetryPolicyTests {
    static let url = try! HTTPURL("http://h/r")  // a constant valid URL

    static func failure(
        _ method: HTTPMethod = .GET, status: Int? = nil, fields: HTTPFields = HTTPFields(), code: CourierError.Code = .unacceptableStatusCode,
        phase: CourierError.Phase? = nil, underlying: (any Error & Sendable)? = nil, retryCount: Int = 0, bytesSent: Bool = true
    ) -> RetryContext {
        let response = status.map { Response(location: RequestURL(url), statusCode: $0, headers: fields) }
        let error = phase.map { CourierError(code, phase: $0, underlying: underlying) } ?? CourierError(code, underlying: underlying, response: response)
        return RetryContext(request: Request(url: url, method: method), response: response, error: error, retryCount: retryCount, requestBytesSent: bytesSent)
    }

    /// A policy whose jitter always picks the upper bound, so delays are exact.
    static func policy(_ configure: (inout RetryPolicy) -> Void = { _ in }) -> RetryPolicy {
        var policy = RetryPolicy()
        policy.random = { $0 }
        configure(&policy)
        return policy
    }

    static func delay(_ decision: RetryDecision) -> Double? {
        if case .retryWithDelay(let seconds) = decision { return seconds }
        return nil
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatusesAreRetried(_ status: Int) {
        #expect(Self.delay(Self.policy().decision(for: Self.failure(status: status))) == 0.5)
    }

    @Test(arguments: [400, 401, 403, 404, 409, 501, 505])
    func otherStatusesAreNot(_ status: Int) {
        #expect(!Self.policy().decision(for: Self.failure(status: status)).retries)
    }

    @Test func theBackoffGrowsExponentiallyUpToTheCapAndStopsAtTheLimit() {
        let policy = Self.policy { $0.retryLimit = 6; $0.maximumDelay = 3 }
        let delays = (0..<6).map { Self.delay(policy.decision(for: Self.failure(status: 503, retryCount: $0))) }
        #expect(delays == [0.5, 1, 2, 3, 3, 3])
        #expect(!policy.decision(for: Self.failure(status: 503, retryCount: 6)).retries, "the limit")
    }

    @Test func jitterIsFullBetweenZeroAndTheBackoff() {
        let policy = RetryPolicy(retryLimit: 1000)
        for retry in 0..<200 {
            let bound = min(30, 0.5 * Double(1 << min(retry, 20)))
            let delay = policy.backoff(retryCount: retry)
            #expect(delay >= 0 && delay <= bound)
        }
        let spread = Set((0..<50).map { _ in policy.backoff(retryCount: 3) })
        #expect(spread.count > 1, "random, not fixed")
    }

    @Test func nonIdempotentRequestsAreRetriedOnlyWhenNoByteWasSentOrTheCallerAllows() {
        let sent = Self.failure(.POST, code: .transport, phase: .receive, underlying: ClientError(.remoteClosedBeforeResponse), bytesSent: true)
        let unsent = Self.failure(.POST, code: .transport, phase: .connect, underlying: ClientError(.connectionFailed), bytesSent: false)
        #expect(!Self.policy().decision(for: sent).retries, "a POST the server may have seen")
        #expect(Self.policy().decision(for: unsent).retries, "a POST no byte of which left")
        #expect(Self.policy { $0.retriesNonIdempotentRequestsAfterBytesSent = true }.decision(for: sent).retries)
        #expect(Self.policy().decision(for: Self.failure(.PUT, code: .transport, phase: .receive, bytesSent: true)).retries, "PUT is idempotent")
        #expect(!Self.policy().decision(for: Self.failure(.PATCH, status: 503, bytesSent: true)).retries)
    }

    @Test func onlyTransportFailuresAnotherAttemptMayNotMeetAreRetried() {
        for phase in [CourierError.Phase.resolve, .connect, .send, .receive] {
            #expect(Self.policy().decision(for: Self.failure(code: .transport, phase: phase)).retries, "\(phase)")
        }
        #expect(Self.policy().decision(for: Self.failure(code: .transport, phase: .tls, underlying: ClientError(.tlsHandshakeTimeout))).retries)
        #expect(!Self.policy().decision(for: Self.failure(code: .transport, phase: .tls, underlying: ClientError(.tls))).retries)
        for code in [CourierError.Code.cancelled, .resourceTimeout, .serverTrustRejected, .bodyTooLarge, .invalidURL, .responseSerializationFailed] {
            #expect(!Self.policy().decision(for: Self.failure(code: code, phase: code.defaultPhase)).retries, "\(code)")
        }
        #expect(!Self.policy().decision(for: Self.failure(code: .transport, phase: .parse)).retries, "a malformed response is not retried")
    }

    @Test func retryAfterInSecondsOrAsADateReplacesTheBackoffWithinItsCap() throws {
        let policy = Self.policy()
        #expect(Self.delay(policy.decision(for: Self.failure(status: 429, fields: ["Retry-After": "7"]))) == 7)
        #expect(Self.delay(policy.decision(for: Self.failure(status: 503, fields: ["Retry-After": " 0 "]))) == 0)
        let dated: HTTPFields = ["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Retry-After": "Sun, 06 Nov 1994 08:50:07 GMT"]
        #expect(Self.delay(policy.decision(for: Self.failure(status: 503, fields: dated))) == 30, "counted from the server's Date")
        let obsolete: HTTPFields = ["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Retry-After": "Sunday, 06-Nov-94 08:49:47 GMT"]
        #expect(Self.delay(policy.decision(for: Self.failure(status: 503, fields: obsolete))) == 10)
        let now = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        let undated = Self.failure(status: 503, fields: ["Retry-After": "Sun, 06 Nov 1994 08:49:57 GMT"])
        #expect(Self.delay(policy.decision(for: undated, now: now)) == 20, "without Date, from now")
        let past = Self.failure(status: 503, fields: ["Retry-After": "Sun, 06 Nov 1994 08:49:00 GMT"])
        #expect(Self.delay(policy.decision(for: past, now: now)) == 0, "a date in the past means now")
        #expect(!policy.decision(for: Self.failure(status: 503, fields: ["Retry-After": "61"])).retries, "longer than maximumRetryAfter")
        #expect(!policy.decision(for: Self.failure(status: 503, fields: ["Retry-After": "99999999999999999999999"])).retries)
        #expect(Self.delay(policy.decision(for: Self.failure(status: 503, fields: ["Retry-After": "soon"]))) == 0.5, "invalid: the backoff")
        #expect(Self.delay(policy.decision(for: Self.failure(status: 503, fields: ["Retry-After": "-5"]))) == 0.5, "no sign allowed")
    }

    // MARK: Interceptor composition

    struct Tag: RequestInterceptor {
        let name: String
        let answer: RetryDecision
        func adapt(_ request: Request, context: AdaptationContext) async throws -> Request {
            var adapted = request
            adapted.headers.append(try HTTPField(name: "X-Tag", value: name))
            return adapted
        }
        func retry(_ failure: RetryContext) async -> RetryDecision { answer }
    }

    struct Refusing: RequestAdapter {
        struct Refusal: Error {}
        func adapt(_ request: Request, context: AdaptationContext) async throws -> Request { throw Refusal() }
    }

    @Test func adaptersRunInOrderAndTheFirstRetrierThatAnswersDecides() async throws {
        let interceptor = Interceptor(interceptors: [Tag(name: "a", answer: .doNotRetry), Tag(name: "b", answer: .retryWithDelay(2)), Tag(name: "c", answer: .retry)])
        let adapted = try await interceptor.adapt(Request(url: Self.url), context: AdaptationContext(taskIdentifier: 1, retryCount: 0))
        #expect(adapted.headers.map(\.value) == ["a", "b", "c"])
        #expect(Self.delay(await interceptor.retry(Self.failure(status: 503))) == 2)
        let none = Interceptor(retriers: [Tag(name: "x", answer: .doNotRetry)])
        #expect(!(await none.retry(Self.failure(status: 503))).retries)
        let failing = Interceptor(adapters: [Tag(name: "a", answer: .retry), Refusing(), Tag(name: "c", answer: .retry)])
        // The first adapter that throws ends it, and the error names that adapter (not the
        // composite), with the adapter's own error underneath.
        await #expect {
            try await failing.adapt(Request(url: Self.url), context: AdaptationContext(taskIdentifier: 1, retryCount: 0))
        } throws: { error in
            guard let error = error as? CourierError else { return false }
            return error.code == .requestAdaptationFailed && error.underlying is Refusing.Refusal
                && error.detail?.contains("Refusing") == true
        }
    }
}
