import FoundationEssentials

/// Waits out being offline: when a request could not resolve its host or connect while
/// ``ReachabilityManager`` reports no route (``ReachabilityStatus/notReachable``), the retry
/// waits until the path is reported up, for at most ``timeout`` seconds, then retries at once.
/// Nothing reached the server, so any method is safe to resend (RFC 9110 §9.2.2).
///
/// Failures while the path is up (or its status unknown: monitoring not started) are not this
/// policy's: it answers ``RetryDecision/doNotRetry`` and, inside an ``Interceptor``, the next
/// retrier decides. The task's deadline still bounds the wait.
public struct OfflineRetryPolicy: RequestInterceptor {
    /// The longest wait for the path to come up, in seconds.
    public var timeout: Double
    /// Retries at most this many times.
    public var retryLimit: Int
    private let status: @Sendable () -> ReachabilityStatus
    private let updates: @Sendable () -> AsyncStream<ReachabilityStatus>

    /// Waits on `reachability`, which must be monitoring (``ReachabilityManager/startMonitoring()``).
    public init(reachability: ReachabilityManager = .shared, timeout: Double = 30, retryLimit: Int = 1) {
        self.init(timeout: timeout, retryLimit: retryLimit, status: { reachability.status }, updates: { reachability.statusUpdates() })
    }

    /// Waits on any source of statuses (tests).
    init(
        timeout: Double, retryLimit: Int, status: @escaping @Sendable () -> ReachabilityStatus,
        updates: @escaping @Sendable () -> AsyncStream<ReachabilityStatus>
    ) {
        self.timeout = timeout
        self.retryLimit = retryLimit
        self.status = status
        self.updates = updates
    }

    public func retry(_ failure: RetryContext) async -> RetryDecision {
        guard failure.retryCount < retryLimit, failure.error.code == .transport, !failure.requestBytesSent,
              failure.error.phase == .resolve || failure.error.phase == .connect,
              status() == .notReachable else { return .doNotRetry }
        return await pathCameUp() ? .retry : .doNotRetry
    }

    /// Whether the path is reported up within ``timeout``.
    private func pathCameUp() async -> Bool {
        let updates = updates()
        let timeout = max(0, timeout.isFinite ? timeout : 0)
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await status in updates where status.isReachable { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

extension OfflineRetryPolicy: AdaptsNothing {}
