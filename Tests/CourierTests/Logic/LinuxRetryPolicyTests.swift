@testable import Courier
import CourierClient
import CourierCore
import FoundationEssentials
import Testing

/// The two Linux-native retry policies without sockets: connection loss, and waiting for the
/// path to come back up.
@Suite struct LinuxRetryPolicyTests {
    static let request = Request(url: try! HTTPURL("http://h/x"))  // a constant valid URL

    static func failure(_ code: ClientError.Code, method: HTTPMethod = .GET, bytesSent: Bool = false, retryCount: Int = 0) -> RetryContext {
        var request = Self.request
        request.method = method
        let error = CourierError.transport(ClientError(code), url: request.url)
        return RetryContext(request: request, response: nil, error: error, retryCount: retryCount, requestBytesSent: bytesSent)
    }

    @Test(arguments: [
        (ClientError.Code.remoteClosedBeforeResponse, true), (.remoteClosedDuringBody, true), (.connectionClosed, true), (.ioError, true),
        (.readTimeout, false), (.connectionFailed, false), (.parse, false), (.tls, false),
    ])
    func onlyALostConnectionIsRetried(code: ClientError.Code, retried: Bool) {
        let policy = ConnectionLostRetryPolicy(exponentialBackoffScale: 0)
        #expect(policy.decision(for: Self.failure(code)).retries == retried)
    }

    @Test func aLostPOSTIsResentOnlyWhenNothingWasWrittenOrTheCallerAllows() {
        let lost = Self.failure(.remoteClosedBeforeResponse, method: .POST, bytesSent: true)
        #expect(!ConnectionLostRetryPolicy().decision(for: lost).retries)
        #expect(ConnectionLostRetryPolicy(retriesNonIdempotentRequestsAfterBytesSent: true).decision(for: lost).retries)
        #expect(ConnectionLostRetryPolicy().decision(for: Self.failure(.connectionClosed, method: .POST, bytesSent: false)).retries)
    }

    @Test func statusesAreNotAConnectionLoss() {
        var failure = Self.failure(.remoteClosedBeforeResponse)
        failure.error = CourierError(.unacceptableStatusCode)
        failure.response = Response(location: RequestURL(try! HTTPURL("http://h/x")), statusCode: 503, headers: HTTPFields())
        #expect(!ConnectionLostRetryPolicy().decision(for: failure).retries)
    }

    /// A status source the test moves.
    final class Path: Sendable {
        let updates: AsyncStream<ReachabilityStatus>
        let continuation: AsyncStream<ReachabilityStatus>.Continuation
        init() { (updates, continuation) = AsyncStream.makeStream(of: ReachabilityStatus.self) }
    }

    static func offline(_ path: Path, timeout: Double = 600, status: ReachabilityStatus = .notReachable) -> OfflineRetryPolicy {
        OfflineRetryPolicy(timeout: timeout, retryLimit: 1, status: { status }, updates: { path.updates })
    }

    @Test func offlineAConnectFailureWaitsForThePathThenRetries() async {
        let path = Path()
        async let decision = Self.offline(path).retry(Self.failure(.connectionFailed, method: .POST))
        path.continuation.yield(.notReachable)
        path.continuation.yield(.reachable(via: "eth0"))
        #expect(await decision.retries)
    }

    @Test func offlineTheWaitEndsAtTheTimeout() async {
        let path = Path()
        let decision = await Self.offline(path, timeout: 0).retry(Self.failure(.resolutionFailed))
        #expect(!decision.retries)
    }

    @Test func failuresWhileThePathIsUpOrAfterBytesWereSentAreNotTheOfflinePolicys() async {
        let path = Path()
        #expect(!(await Self.offline(path, status: .reachable(via: "eth0")).retry(Self.failure(.connectionFailed))).retries)
        #expect(!(await Self.offline(path, status: .unknown).retry(Self.failure(.connectionFailed))).retries)
        #expect(!(await Self.offline(path).retry(Self.failure(.remoteClosedBeforeResponse, bytesSent: true))).retries)
        #expect(!(await Self.offline(path).retry(Self.failure(.connectionFailed, retryCount: 1))).retries, "past the limit")
    }

    @Test func cancellingTheTaskEndsTheWait() async {
        let path = Path()
        let waiting = Task { await Self.offline(path).retry(Self.failure(.connectionFailed)) }
        waiting.cancel()
        #expect(!(await waiting.value).retries)
    }

    /// The policies never change a request, so a task with only them makes no adaptation step;
    /// anything else, or a composite holding anything else, adapts.
    @Test func onlyInterceptorsThatMayChangeARequestMakeAnAdaptationStep() {
        struct Custom: RequestInterceptor {}
        #expect(!Interceptor.adapts(RetryPolicy()))
        #expect(!Interceptor.adapts(ConnectionLostRetryPolicy()))
        #expect(!Interceptor.adapts(Interceptor(interceptors: [RetryPolicy(), ConnectionLostRetryPolicy()])))
        #expect(!Interceptor.adapts(Interceptor()))
        #expect(Interceptor.adapts(Custom()))
        #expect(Interceptor.adapts(Interceptor(interceptors: [RetryPolicy(), Custom()])))
        #expect(Interceptor.adapts(Interceptor.combining(Custom(), RetryPolicy())!))
    }
}
