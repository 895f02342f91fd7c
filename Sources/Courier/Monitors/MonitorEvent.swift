import FoundationEssentials

/// One lifecycle point as the session reports it to its monitors (``EventMonitor``): held in a
/// monitor's buffer until its queue runs it. Cases with large payloads (requests, responses,
/// metrics) are boxed: an event is copied into the buffer, out of it and destroyed, and copying
/// a box is one retain where copying a `Request` is a dozen (measured: the inline enum's copies
/// and destruction were most of a do-nothing monitor's cost).
enum MonitorEvent: Sendable {
    case created(SessionTask)
    case resumed(SessionTask)
    case suspended(SessionTask)
    case cancelled(SessionTask)
    indirect case adapted(SessionTask, Request, Request)
    indirect case adaptationFailed(SessionTask, Request, CourierError)
    indirect case attemptStarted(SessionTask, Int, Request)
    indirect case redirected(SessionTask, Response, Request)
    indirect case challenged(SessionTask, AuthenticationChallenge)
    indirect case sentHead(SessionTask, HTTPRequestHead, HTTPClientMetrics)
    indirect case response(SessionTask, Response)
    case data(SessionTask, Data)
    case sentBody(SessionTask, Int64, Int64, Int64)
    case wroteData(SessionTask, Int64, Int64, Int64)
    indirect case retryDecided(SessionTask, Double?, CourierError)
    case downloaded(SessionTask, URL)
    indirect case willCache(SessionTask, CachedResponse)
    indirect case metrics(SessionTask, TaskMetrics)
    indirect case completed(TaskCompletion)
    indirect case invalidated(CourierError?)

    /// The event without its payload: what a monitor is asked whether it wants before the
    /// payload (a copy of body bytes, say) is made.
    enum Kind: Sendable {
        case created, resumed, suspended, cancelled, adapted, adaptationFailed, attemptStarted, redirected, challenged, sentHead
        case response, data, sentBody, wroteData, retryDecided, downloaded, willCache, metrics, completed, invalidated
    }

    /// Calls the monitor's method for this event.
    func deliver(to monitor: some EventMonitor) {
        switch self {
        case .created(let task): monitor.taskCreated(task)
        case .resumed(let task): monitor.taskResumed(task)
        case .suspended(let task): monitor.taskSuspended(task)
        case .cancelled(let task): monitor.taskCancelled(task)
        case .adapted(let task, let request, let adapted): monitor.task(task, didAdapt: request, to: adapted)
        case .adaptationFailed(let task, let request, let error): monitor.task(task, didFailToAdapt: request, error: error)
        case .attemptStarted(let task, let attempt, let request): monitor.task(task, didStartAttempt: attempt, request: request)
        case .redirected(let task, let response, let request): monitor.task(task, didFollowRedirect: response, to: request)
        case .challenged(let task, let challenge): monitor.task(task, didReceiveChallenge: challenge)
        case .sentHead(let task, let head, let metrics): monitor.task(task, didSendRequestHead: head, metrics: metrics)
        case .response(let task, let response): monitor.task(task, didReceiveResponse: response)
        case .data(let task, let data): monitor.task(task, didReceiveData: data)
        case .sentBody(let task, let sent, let total, let expected):
            monitor.task(task, didSendBodyData: sent, totalBytesSent: total, totalBytesExpectedToSend: expected)
        case .wroteData(let task, let written, let total, let expected):
            monitor.task(task, didWriteData: written, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
        case .retryDecided(let task, let delay, let error): monitor.task(task, didDecideRetry: delay, after: error)
        case .downloaded(let task, let location): monitor.task(task, didFinishDownloadingTo: location)
        case .willCache(let task, let response): monitor.task(task, willCacheResponse: response)
        case .metrics(let task, let metrics): monitor.task(task, didFinishCollecting: metrics)
        case .completed(let completion): monitor.taskCompleted(completion)
        case .invalidated(let error): monitor.sessionInvalidated(error)
        }
    }
}
