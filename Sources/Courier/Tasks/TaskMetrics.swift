import CourierClient
import FoundationEssentials

/// What a task measured (`NSURLSessionTaskMetrics`): one transaction per request made —
/// redirects, authentication retries and the retrier's retries each add one — with DNS, connect, TLS, request and
/// response timestamps, byte counts, reuse, addresses and the TLS version and cipher.
public struct TaskMetrics: Sendable {
    public var transactionMetrics: [HTTPClientMetrics]
    /// When the task was resumed for the first time and when it completed.
    public var taskStart: Date
    public var taskEnd: Date
    /// Redirects followed.
    public var redirectCount: Int
    /// Attempts made again because the task's retrier decided so (``RequestRetrier``); each
    /// attempt has its transactions.
    public var retryCount: Int = 0
    /// Requests the task handed to the transport itself: its first, each retry and each answer
    /// to a challenge (the redirects the transport follows within one are in
    /// ``redirectCount``). 0 when the task ended before its first attempt.
    public var attemptCount: Int = 0
    /// Where the response came from: the network, the session's cache without a request
    /// (``transactionMetrics`` then is empty), or the cache after a `304 Not Modified`
    /// (RFC 9111 §4.3.4; the 304's transaction is in ``transactionMetrics``).
    public var responseSource: ResponseSource = .network

    /// The task's duration in seconds.
    public var duration: Double { taskEnd.timeIntervalSince(taskStart) }
}
