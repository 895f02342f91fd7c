import Dispatch
import FoundationEssentials

/// A monitor made of optional closures, one per ``EventMonitor`` method (Alamofire's
/// `ClosureEventMonitor`): set the ones you need, before giving it to a session.
public struct ClosureEventMonitor: EventMonitor {
    public let queue: DispatchQueue

    public var onTaskCreated: (@Sendable (SessionTask) -> Void)?
    public var onTaskResumed: (@Sendable (SessionTask) -> Void)?
    public var onTaskSuspended: (@Sendable (SessionTask) -> Void)?
    public var onTaskCancelled: (@Sendable (SessionTask) -> Void)?
    public var onAdapted: (@Sendable (SessionTask, Request, Request) -> Void)?
    public var onAdaptationFailed: (@Sendable (SessionTask, Request, CourierError) -> Void)?
    public var onAttemptStarted: (@Sendable (SessionTask, Int, Request) -> Void)?
    public var onRedirectFollowed: (@Sendable (SessionTask, Response, Request) -> Void)?
    public var onChallenge: (@Sendable (SessionTask, AuthenticationChallenge) -> Void)?
    public var onResponse: (@Sendable (SessionTask, Response) -> Void)?
    public var onRequestHeadSent: (@Sendable (SessionTask, HTTPRequestHead, HTTPClientMetrics) -> Void)?
    public var onData: (@Sendable (SessionTask, Data) -> Void)?
    /// Bytes this time, total so far, total expected (-1: unknown).
    public var onBodySent: (@Sendable (SessionTask, Int64, Int64, Int64) -> Void)?
    /// Bytes this time, total so far, total expected (-1: unknown).
    public var onDataWritten: (@Sendable (SessionTask, Int64, Int64, Int64) -> Void)?
    /// The delay before the next attempt (nil: no retry) and the failed attempt's error.
    public var onRetryDecided: (@Sendable (SessionTask, Double?, CourierError) -> Void)?
    public var onDownloadFinished: (@Sendable (SessionTask, URL) -> Void)?
    public var onWillCache: (@Sendable (SessionTask, CachedResponse) -> Void)?
    public var onMetrics: (@Sendable (SessionTask, TaskMetrics) -> Void)?
    public var onTaskCompleted: (@Sendable (TaskCompletion) -> Void)?
    public var onSessionInvalidated: (@Sendable (CourierError?) -> Void)?

    public init(queue: DispatchQueue = DispatchQueue(label: "courier.closure-monitor")) {
        self.queue = queue
    }

    public func taskCreated(_ task: SessionTask) { onTaskCreated?(task) }
    public func taskResumed(_ task: SessionTask) { onTaskResumed?(task) }
    public func taskSuspended(_ task: SessionTask) { onTaskSuspended?(task) }
    public func taskCancelled(_ task: SessionTask) { onTaskCancelled?(task) }
    public func task(_ task: SessionTask, didAdapt request: Request, to adapted: Request) { onAdapted?(task, request, adapted) }
    public func task(_ task: SessionTask, didFailToAdapt request: Request, error: CourierError) {
        onAdaptationFailed?(task, request, error)
    }
    public func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request) { onAttemptStarted?(task, attempt, request) }
    public func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request) {
        onRedirectFollowed?(task, response, request)
    }
    public func task(_ task: SessionTask, didReceiveChallenge challenge: AuthenticationChallenge) { onChallenge?(task, challenge) }
    public func task(_ task: SessionTask, didReceiveResponse response: Response) { onResponse?(task, response) }
    public func task(_ task: SessionTask, didSendRequestHead head: HTTPRequestHead, metrics: HTTPClientMetrics) {
        onRequestHeadSent?(task, head, metrics)
    }
    public func task(_ task: SessionTask, didReceiveData data: Data) { onData?(task, data) }
    public func task(_ task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        onBodySent?(task, bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }
    public func task(_ task: SessionTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        onDataWritten?(task, bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)
    }
    public func task(_ task: SessionTask, didDecideRetry delay: Double?, after error: CourierError) { onRetryDecided?(task, delay, error) }
    public func task(_ task: SessionTask, didFinishDownloadingTo location: URL) { onDownloadFinished?(task, location) }
    public func task(_ task: SessionTask, willCacheResponse response: CachedResponse) { onWillCache?(task, response) }
    public func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics) { onMetrics?(task, metrics) }
    public func taskCompleted(_ completion: TaskCompletion) { onTaskCompleted?(completion) }
    public func sessionInvalidated(_ error: CourierError?) { onSessionInvalidated?(error) }
}
