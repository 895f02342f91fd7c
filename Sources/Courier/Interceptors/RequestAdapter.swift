import FoundationEssentials

/// Changes a request before each of its attempts is sent (Alamofire's `RequestAdapter`): adds a
/// token, signs it, or fails it. It may suspend (fetch a token) — the attempt waits.
///
/// A thrown ``CourierError`` fails the task as it is; any other error fails it with
/// ``CourierError/Code/requestAdaptationFailed`` in the `adapt` phase, naming the adapter and
/// carrying the error as the underlying error. The adapted request goes through the same
/// checks as any other (RFC 9110 §5.5 field values, §4.2 URLs): an adapter cannot inject.
public protocol RequestAdapter: Sendable {
    /// The request to send for this attempt. `context` says which task and which attempt.
    func adapt(_ request: Request, context: AdaptationContext) async throws -> Request
}

/// What an adapter knows about the attempt it adapts.
public struct AdaptationContext: Sendable {
    /// The task's identifier (``SessionTask/taskIdentifier``).
    public var taskIdentifier: Int
    /// Retries made before this attempt (0 for the first).
    public var retryCount: Int

    public init(taskIdentifier: Int, retryCount: Int) {
        self.taskIdentifier = taskIdentifier
        self.retryCount = retryCount
    }
}
