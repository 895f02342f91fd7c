import CourierClient
import FoundationEssentials

/// Retries what is safe to retry, with exponential backoff and full jitter (Alamofire's
/// `RetryPolicy`, with what Courier's own transport knows added).
///
/// An attempt is retried, up to ``retryLimit`` times, when:
/// - it failed with a status in ``retryableStatusCodes`` (408, 429, 500, 502, 503, 504), or a
///   transport error that another attempt may not meet (name resolution, connecting, a TLS
///   handshake that timed out, sending, the connection closed or timed out before or while the
///   response came); and
/// - resending cannot do harm: the method is idempotent (``retryableMethods``, RFC 9110
///   §9.2.2), or no byte of the request reached the socket (the server cannot have seen it),
///   or the caller allowed it (``retriesNonIdempotentRequestsAfterBytesSent``).
///
/// The delay is `random(0 … min(maximumDelay, scale × base^retryCount))` ("full jitter"). A
/// `Retry-After` field (RFC 9110 §10.2.3, seconds or an HTTP-date) replaces it; one longer
/// than ``maximumRetryAfter`` means the server wants more patience than the caller allows, so
/// the failure stands.
public struct RetryPolicy: RequestInterceptor {
    /// Retries at most this many times (so up to `retryLimit + 1` attempts).
    public var retryLimit: Int
    /// The backoff's base and scale (seconds): the n-th retry waits up to `scale × base^n`.
    public var exponentialBackoffBase: Double
    public var exponentialBackoffScale: Double
    /// The cap of one backoff delay (seconds).
    public var maximumDelay: Double
    /// The longest `Retry-After` obeyed (seconds).
    public var maximumRetryAfter: Double
    /// Methods retried even after their bytes were sent.
    public var retryableMethods: Set<HTTPMethod>
    public var retryableStatusCodes: Set<Int>
    /// Resend a request whose method is not in ``retryableMethods`` after some of its bytes were
    /// written (the server may have acted on it). Off by default.
    public var retriesNonIdempotentRequestsAfterBytesSent: Bool
    /// A number in `0 … upper`; replaceable for tests.
    var random: @Sendable (Double) -> Double = { upper in upper > 0 ? Double.random(in: 0...upper) : 0 }

    public static let defaultRetryableMethods: Set<HTTPMethod> = [.GET, .HEAD, .PUT, .DELETE, .OPTIONS, .TRACE]
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    public init(
        retryLimit: Int = 2, exponentialBackoffBase: Double = 2, exponentialBackoffScale: Double = 0.5, maximumDelay: Double = 30,
        maximumRetryAfter: Double = 60, retryableMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retriesNonIdempotentRequestsAfterBytesSent: Bool = false
    ) {
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retriesNonIdempotentRequestsAfterBytesSent = retriesNonIdempotentRequestsAfterBytesSent
    }

    public func retry(_ failure: RetryContext) async -> RetryDecision { decision(for: failure) }

    /// The decision, without waiting: what ``retry(_:)`` answers.
    public func decision(for failure: RetryContext, now: Date = Date()) -> RetryDecision {
        guard failure.retryCount < retryLimit, isRetryable(failure), resendIsSafe(failure) else { return .doNotRetry }
        if let response = failure.response, let wait = RetryAfter.delay(in: response, now: now) {
            return wait <= maximumRetryAfter ? .retryWithDelay(wait) : .doNotRetry
        }
        return .retryWithDelay(backoff(retryCount: failure.retryCount))
    }

    /// The full-jitter delay before retry number `retryCount + 1`.
    public func backoff(retryCount: Int) -> Double {
        var exponential = exponentialBackoffScale
        for _ in 0..<max(0, retryCount) where exponential < maximumDelay { exponential *= exponentialBackoffBase }
        return random(min(maximumDelay, exponential.isFinite ? exponential : maximumDelay))
    }

    /// Whether the failure is of a kind worth another attempt.
    func isRetryable(_ failure: RetryContext) -> Bool {
        if let response = failure.response, failure.error.code != .transport {
            return retryableStatusCodes.contains(response.statusCode)
        }
        guard failure.error.code == .transport else { return false }
        switch failure.error.phase {
        case .resolve, .connect, .send, .receive: return true
        // A handshake that timed out may work next time; a refused certificate will not.
        case .tls: return (failure.error.underlying as? ClientError)?.code == .tlsHandshakeTimeout
        default: return false
        }
    }

    /// Whether sending the request again cannot repeat an effect the caller did not allow.
    func resendIsSafe(_ failure: RetryContext) -> Bool {
        retryableMethods.contains(failure.request.method) || !failure.requestBytesSent || retriesNonIdempotentRequestsAfterBytesSent
    }
}

extension RetryPolicy: AdaptsNothing {}
