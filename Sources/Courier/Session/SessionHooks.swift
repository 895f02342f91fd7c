import FoundationEssentials

/// What to do with a response whose head just arrived (`NSURLSessionResponseDisposition`).
public enum ResponseDisposition: Sendable {
    /// Continue: read the body.
    case allow
    /// Cancel the task; it completes with a cancellation error.
    case cancel
}

/// A closure for every event AFNetworking's `AFURLSessionManager` exposes through its
/// `set…Block:` setters. Each runs on the manager's `completionQueue`. While a hook that decides
/// something (redirect, challenge, response disposition) runs, the task does not read its body.
///
/// The hooks that only observe (data received, body sent, download written, metrics,
/// completion, invalidation) are delivered by the session's one event mechanism, as an
/// ``EventMonitor`` on the completion queue that calls the hook set when the event arrives;
/// the hooks that decide are asked where the task waits for them, and monitors are told of
/// those points too.
public struct SessionHooks: Sendable {
    /// A redirect is about to be followed (`setTaskWillPerformHTTPRedirectionBlock:`): return the
    /// request to make (possibly modified), or nil to stop and complete with the 3xx response.
    public var taskWillPerformHTTPRedirection: (@Sendable (SessionTask, Response, Request) -> Request?)?
    /// The server asked for credentials with a 401 or 407 (`setTaskDidReceiveAuthenticationChallengeBlock:`).
    /// Server trust is judged by the session's ``SecurityPolicy``, not here.
    public var taskDidReceiveAuthenticationChallenge: (@Sendable (SessionTask, AuthenticationChallenge) -> AuthenticationChallengeDisposition)?
    /// A data task's final response head arrived (`setDataTaskDidReceiveResponseBlock:`).
    public var dataTaskDidReceiveResponse: (@Sendable (SessionTask, Response) -> ResponseDisposition)?
    /// Body bytes arrived for a data or upload task (`setDataTaskDidReceiveDataBlock:`).
    public var dataTaskDidReceiveData: (@Sendable (SessionTask, Data) -> Void)?
    /// Request body bytes went out (`setTaskDidSendBodyDataBlock:`): bytes this time, total so far,
    /// total expected (-1 when unknown). Coalesced like progress.
    public var taskDidSendBodyData: (@Sendable (SessionTask, Int64, Int64, Int64) -> Void)?
    /// Download bytes were written (`setDownloadTaskDidWriteDataBlock:`): bytes this time, total so
    /// far, total expected (-1 when unknown). Coalesced like progress.
    public var downloadTaskDidWriteData: (@Sendable (SessionTask, Int64, Int64, Int64) -> Void)?
    /// A download finished into a temporary file (`setDownloadTaskDidFinishDownloadingBlock:`):
    /// return where to move it, or nil to use the task's own destination (or leave it in place).
    public var downloadTaskDidFinishDownloading: (@Sendable (SessionTask, URL) -> URL?)?
    /// A response is about to be stored in the session's cache (`setDataTaskWillCacheResponseBlock:`):
    /// return it (possibly modified) or nil to not store it.
    public var dataTaskWillCacheResponse: (@Sendable (SessionTask, CachedResponse) -> CachedResponse?)?
    /// The task's metrics are complete (`setTaskDidFinishCollectingMetricsBlock:`).
    public var taskDidFinishCollectingMetrics: (@Sendable (SessionTask, TaskMetrics) -> Void)?
    /// The task completed (`setTaskDidCompleteBlock:`), with its error if it failed.
    public var taskDidComplete: (@Sendable (SessionTask, CourierError?) -> Void)?
    /// The session was invalidated and every task has ended (`setSessionDidBecomeInvalidBlock:`).
    public var sessionDidBecomeInvalid: (@Sendable (CourierError?) -> Void)?

    public init() {}
}
