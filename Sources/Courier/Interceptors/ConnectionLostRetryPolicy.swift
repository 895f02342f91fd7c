import CourierClient
import FoundationEssentials

/// Retries only requests whose connection was lost: closed or reset by the peer before or while
/// the response came (Alamofire's `ConnectionLostRetryPolicy`, which retries
/// `NSURLErrorNetworkConnectionLost`). Statuses are never retried.
///
/// The rules of ``RetryPolicy`` apply otherwise: the backoff with full jitter, the retry limit,
/// and resending a non-idempotent request only when none of its bytes reached the socket (RFC 9110
/// §9.2.2) or the caller allows it. (The transport already makes one quiet retry of an idempotent
/// request whose reused keep-alive connection turned out closed; this policy covers the rest.)
public struct ConnectionLostRetryPolicy: RequestInterceptor {
    /// The backoff, limit and resend rules; its status codes are not used.
    public var policy: RetryPolicy

    public init(
        retryLimit: Int = 2, exponentialBackoffBase: Double = 2, exponentialBackoffScale: Double = 0.5, maximumDelay: Double = 30,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableMethods,
        retriesNonIdempotentRequestsAfterBytesSent: Bool = false
    ) {
        policy = RetryPolicy(
            retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase, exponentialBackoffScale: exponentialBackoffScale,
            maximumDelay: maximumDelay, retryableMethods: retryableMethods, retryableStatusCodes: [],
            retriesNonIdempotentRequestsAfterBytesSent: retriesNonIdempotentRequestsAfterBytesSent)
    }

    public func retry(_ failure: RetryContext) async -> RetryDecision { decision(for: failure) }

    /// The decision, without waiting.
    public func decision(for failure: RetryContext) -> RetryDecision {
        guard Self.isConnectionLost(failure.error) else { return .doNotRetry }
        return policy.decision(for: failure)
    }

    /// Whether `error` says the connection went away under the request.
    public static func isConnectionLost(_ error: CourierError) -> Bool {
        guard error.code == .transport, let cause = error.underlying as? ClientError else { return false }
        return lostConnectionCodes.contains(cause.code)
    }

    static let lostConnectionCodes: Set<ClientError.Code> = [
        .remoteClosedBeforeResponse, .remoteClosedDuringBody, .connectionClosed, .ioError,
    ]
}

extension ConnectionLostRetryPolicy: AdaptsNothing {}
