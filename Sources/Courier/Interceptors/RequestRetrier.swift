import FoundationEssentials

/// Decides whether a failed attempt is made again (Alamofire's `RequestRetrier`). It may suspend
/// (wait for a token refresh, for the network); the task waits in the meantime, and cancelling
/// the task ends the wait.
public protocol RequestRetrier: Sendable {
    func retry(_ failure: RetryContext) async -> RetryDecision
}

/// What a retrier decides.
public enum RetryDecision: Sendable {
    /// Make the attempt again now.
    case retry
    /// Make it again after `seconds` (on the monotonic clock; the task's deadline still applies).
    case retryWithDelay(Double)
    /// Let the failure stand.
    case doNotRetry
    /// Let the task fail with `error` instead.
    case doNotRetryWithError(CourierError)

    /// Whether this decision makes another attempt.
    public var retries: Bool {
        switch self {
        case .retry, .retryWithDelay: true
        case .doNotRetry, .doNotRetryWithError: false
        }
    }
}

/// A failed attempt, as a retrier sees it.
public struct RetryContext: Sendable {
    /// The request of the attempt that failed (after adaptation and redirects).
    public var request: Request
    /// The response, when the failure is one (a status a serializer or validator refused).
    public var response: Response?
    /// Why the attempt failed.
    public var error: CourierError
    /// Retries already made (0 after the first attempt failed).
    public var retryCount: Int
    /// Whether any byte of this attempt's request reached the socket. Courier owns its transport,
    /// so it knows: when false, the server cannot have seen the request and even a POST can be
    /// sent again safely (RFC 9110 §9.2.2).
    public var requestBytesSent: Bool

    public init(request: Request, response: Response?, error: CourierError, retryCount: Int, requestBytesSent: Bool) {
        self.request = request
        self.response = response
        self.error = error
        self.retryCount = retryCount
        self.requestBytesSent = requestBytesSent
    }
}
