import Courier

/// curl's `--retry N` on the library's ``RetryPolicy``: the policy decides which failures are
/// transient (timeouts, 408, 429, 500, 502, 503, 504, a connection lost before any byte was
/// sent); `--retry-delay` fixes the wait, `--retry-max-time` stops retrying once that long has
/// passed since the transfer started, and `--retry-all-errors` retries every failure.
struct CurlRetry: RequestInterceptor {
    let policy: RetryPolicy
    let limit: Int
    let fixedDelay: Double?
    let retriesAllErrors: Bool
    /// `--retry-connrefused`: a refused connection counts as transient.
    let retriesRefused: Bool
    /// When retrying stops (`--retry-max-time`), on the monotonic clock.
    let deadline: ContinuousClock.Instant?

    init(options: CurlOptions, policy: RetryPolicy) {
        self.policy = policy
        self.limit = options.retry
        self.fixedDelay = options.retryDelay
        self.retriesAllErrors = options.retryAllErrors
        self.retriesRefused = options.retryConnectionRefused
        self.deadline = options.retryMaximumTime.map { ContinuousClock.now + .milliseconds(Int64($0 * 1000)) }
    }

    func retry(_ failure: RetryContext) async -> RetryDecision {
        guard failure.retryCount < limit, !failure.error.isCancelled else { return .doNotRetry }
        if let deadline, ContinuousClock.now >= deadline { return .doNotRetry }
        let refused = (failure.error.underlying as? ClientError)?.code == .connectionFailed
        // curl does not count a refused connection as transient unless told to.
        if refused && !retriesRefused && !retriesAllErrors { return .doNotRetry }
        if retriesAllErrors || (retriesRefused && refused) { return .retryWithDelay(fixedDelay ?? policy.backoff(retryCount: failure.retryCount)) }
        let decision = await policy.retry(failure)
        if let fixedDelay, decision.retries { return .retryWithDelay(fixedDelay) }
        return decision
    }
}
