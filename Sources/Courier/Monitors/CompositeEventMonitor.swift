import Dispatch
import FoundationEssentials

/// Several monitors as one (Alamofire's `CompositeEventMonitor`): each event goes to every
/// member, in the order given, on the composite's ``queue`` (the members' own queues are not
/// used: give members to ``SessionConfiguration/eventMonitors`` directly for that).
public struct CompositeEventMonitor: EventMonitor {
    public let monitors: [any EventMonitor]
    public let queue: DispatchQueue

    public init(_ monitors: [any EventMonitor], queue: DispatchQueue = DispatchQueue(label: "courier.composite-monitor")) {
        self.monitors = monitors
        self.queue = queue
    }

    private func each(_ call: (any EventMonitor) -> Void) {
        for monitor in monitors { call(monitor) }
    }

    public func taskCreated(_ task: SessionTask) { each { $0.taskCreated(task) } }
    public func taskResumed(_ task: SessionTask) { each { $0.taskResumed(task) } }
    public func taskSuspended(_ task: SessionTask) { each { $0.taskSuspended(task) } }
    public func taskCancelled(_ task: SessionTask) { each { $0.taskCancelled(task) } }
    public func task(_ task: SessionTask, didAdapt request: Request, to adapted: Request) {
        each { $0.task(task, didAdapt: request, to: adapted) }
    }
    public func task(_ task: SessionTask, didFailToAdapt request: Request, error: CourierError) {
        each { $0.task(task, didFailToAdapt: request, error: error) }
    }
    public func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request) {
        each { $0.task(task, didStartAttempt: attempt, request: request) }
    }
    public func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request) {
        each { $0.task(task, didFollowRedirect: response, to: request) }
    }
    public func task(_ task: SessionTask, didReceiveChallenge challenge: AuthenticationChallenge) {
        each { $0.task(task, didReceiveChallenge: challenge) }
    }
    public func task(_ task: SessionTask, didReceiveResponse response: Response) { each { $0.task(task, didReceiveResponse: response) } }
    public func task(_ task: SessionTask, didSendRequestHead head: HTTPRequestHead, metrics: HTTPClientMetrics) {
        each { $0.task(task, didSendRequestHead: head, metrics: metrics) }
    }
    public func task(_ task: SessionTask, didReceiveData data: Data) { each { $0.task(task, didReceiveData: data) } }
    public func task(_ task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        each { $0.task(task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend) }
    }
    public func task(_ task: SessionTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        each {
            $0.task(task, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten, totalBytesExpectedToWrite: totalBytesExpectedToWrite)
        }
    }
    public func task(_ task: SessionTask, didDecideRetry delay: Double?, after error: CourierError) {
        each { $0.task(task, didDecideRetry: delay, after: error) }
    }
    public func task(_ task: SessionTask, didFinishDownloadingTo location: URL) { each { $0.task(task, didFinishDownloadingTo: location) } }
    public func task(_ task: SessionTask, willCacheResponse response: CachedResponse) { each { $0.task(task, willCacheResponse: response) } }
    public func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics) { each { $0.task(task, didFinishCollecting: metrics) } }
    public func taskCompleted(_ completion: TaskCompletion) { each { $0.taskCompleted(completion) } }
    public func sessionInvalidated(_ error: CourierError?) { each { $0.sessionInvalidated(error) } }
}
