import Dispatch
import FoundationEssentials

/// Watches every lifecycle point of a session's tasks (Alamofire's `EventMonitor`): give
/// monitors to a session in ``SessionConfiguration/eventMonitors``. Every method has an empty
/// default, so a monitor implements only what it needs.
///
/// Each monitor's methods run on its own ``queue``, one at a time and in the order the events
/// happened to each task; a monitor never runs on an event loop. The session hands events over
/// in batches (one queued block drains whatever arrived since the last), so a monitor costs a
/// lock and an append per event rather than a queue hop.
///
/// The points, in the order one task meets them: created, resumed (suspended, resumed again),
/// for each attempt adapted (or failed to adapt) and started, each request head sent (the
/// attempt's, then each redirect hop's), redirects followed, a 401/407 challenge, each response head, body data, body bytes sent, download bytes written, a
/// retry decision after a failed attempt, the download's file finished, a response offered to the
/// cache, the metrics, and the completion. Cancelled is reported when ``SessionTask/cancel()``
/// takes effect. Session invalidated comes last of all.
public protocol EventMonitor: Sendable {
    /// Where this monitor's methods run; read once, when the session is made. The default is
    /// the session's completion queue, where its hooks run and its completions are delivered:
    /// events raised there reach the monitor with no queue hop, and the others join the queue's
    /// work (measured on W2: a do-nothing monitor on a queue of its own cost 15 µs of CPU per
    /// request, mostly waking that queue's thread). A slow monitor there delays completions, and
    /// a monitor given to several sessions runs on each one's queue: give such a monitor a
    /// queue of its own.
    var queue: DispatchQueue { get }

    /// A task was made (suspended; it starts when resumed).
    func taskCreated(_ task: SessionTask)
    /// The task was resumed: started, or reading again after ``SessionTask/suspend()``.
    func taskResumed(_ task: SessionTask)
    func taskSuspended(_ task: SessionTask)
    /// ``SessionTask/cancel()`` took effect (the task completes with a cancellation error).
    func taskCancelled(_ task: SessionTask)

    /// The task's interceptor adapted the request of the next attempt (``RequestAdapter``).
    func task(_ task: SessionTask, didAdapt request: Request, to adapted: Request)
    /// The interceptor's adapter failed; the task fails with `error`.
    func task(_ task: SessionTask, didFailToAdapt request: Request, error: CourierError)
    /// An attempt (`attempt`, from 1) was handed to the transport with `request`: the first
    /// request, a retry, or an answer to a challenge.
    func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request)
    /// The transport followed a redirect (RFC 9110 §15.4): `response` is the 3xx, `request` the
    /// one made now.
    func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request)
    /// The server asked for credentials with a 401 or 407 (RFC 9110 §11.6).
    func task(_ task: SessionTask, didReceiveChallenge challenge: AuthenticationChallenge)
    /// A response head arrived (every one the task decides about: a challenge or an error
    /// status that is retried, as well as the final one; not the 3xx the transport follows).
    func task(_ task: SessionTask, didReceiveResponse response: Response)
    /// A request head went out (each attempt's, and each redirect hop's), as written: request
    /// line and fields, with what the transport added (`Host`, RFC 9112 §3.2; framing, RFC 9112
    /// §6). `metrics` is the transaction so far: whether the connection was reused, its address,
    /// the resolve, connect and TLS times; its response times are not set yet.
    func task(_ task: SessionTask, didSendRequestHead head: HTTPRequestHead, metrics: HTTPClientMetrics)
    /// Body bytes of a data or upload task's response arrived (decoded).
    func task(_ task: SessionTask, didReceiveData data: Data)
    /// Request body bytes went out: this time, so far, expected (-1: unknown). Coalesced like
    /// progress.
    func task(_ task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// Download bytes were written: this time, so far, expected (-1: unknown). Coalesced like
    /// progress.
    func task(_ task: SessionTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
    /// The retrier decided about a failed attempt: retry after `delay` seconds, or nil for no
    /// retry (the failure stands). `error` is the attempt's failure.
    func task(_ task: SessionTask, didDecideRetry delay: Double?, after error: CourierError)
    /// A download's body is complete in its temporary file, before it is moved.
    func task(_ task: SessionTask, didFinishDownloadingTo location: URL)
    /// A response is offered to the session's cache (before the will-cache hook decides).
    func task(_ task: SessionTask, willCacheResponse response: CachedResponse)
    /// The task's metrics are complete: one transaction per request made.
    func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics)
    /// The task completed, with what it produced (its serialized value or error).
    func taskCompleted(_ completion: TaskCompletion)
    /// The session was invalidated and every task has ended: the last event.
    func sessionInvalidated(_ error: CourierError?)
}

extension EventMonitor {
    public var queue: DispatchQueue { EventMonitorQueue.shared }

    public func taskCreated(_ task: SessionTask) {}
    public func taskResumed(_ task: SessionTask) {}
    public func taskSuspended(_ task: SessionTask) {}
    public func taskCancelled(_ task: SessionTask) {}
    public func task(_ task: SessionTask, didAdapt request: Request, to adapted: Request) {}
    public func task(_ task: SessionTask, didFailToAdapt request: Request, error: CourierError) {}
    public func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request) {}
    public func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request) {}
    public func task(_ task: SessionTask, didReceiveChallenge challenge: AuthenticationChallenge) {}
    public func task(_ task: SessionTask, didReceiveResponse response: Response) {}
    public func task(_ task: SessionTask, didSendRequestHead head: HTTPRequestHead, metrics: HTTPClientMetrics) {}
    public func task(_ task: SessionTask, didReceiveData data: Data) {}
    public func task(_ task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    public func task(_ task: SessionTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    public func task(_ task: SessionTask, didDecideRetry delay: Double?, after error: CourierError) {}
    public func task(_ task: SessionTask, didFinishDownloadingTo location: URL) {}
    public func task(_ task: SessionTask, willCacheResponse response: CachedResponse) {}
    public func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics) {}
    public func taskCompleted(_ completion: TaskCompletion) {}
    public func sessionInvalidated(_ error: CourierError?) {}
}

/// The queue of monitors that name none (``EventMonitor/queue``): a marker that each session
/// reads as its own completion queue; nothing runs on it.
enum EventMonitorQueue {
    static let shared = DispatchQueue(label: "courier.event-monitors.session-completion-queue")
}
