import CourierClient
import CourierCore

/// The transport's delegate for one attempt (one HTTP request) of a task. It forwards to the
/// task with its attempt number, so that callbacks from an attempt the task has moved past
/// (after a cancel) are ignored. Called on event loops, one call at a time.
final class AttemptDelegate: HTTPClientResponseDelegate {
    let task: SessionTask
    let attempt: Int
    /// The caller's Cookie values along the attempt's redirect chain.
    let cookies: CookieChain?

    init(task: SessionTask, attempt: Int, cookies: CookieChain? = nil) {
        self.task = task
        self.attempt = attempt
        self.cookies = cookies
    }

    func didSendRequestHead(_ execution: HTTPRequestExecution, _ head: HTTPRequestHead) {
        task.sentHead(head, transport: execution, attempt: attempt)
    }

    func didSendRequestBody(_ execution: HTTPRequestExecution, total: Int64) {
        task.sentBody(total: total, attempt: attempt)
    }

    func didRedirect(_ execution: HTTPRequestExecution, response: HTTPClientResponseHead, to next: HTTPClientRequest, metrics: HTTPClientMetrics) {
        task.redirected(from: response, to: next, metrics: metrics, attempt: attempt, transport: execution, callerCookies: cookies?.caller)
    }

    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {
        task.receivedHead(head, attempt: attempt, transport: execution)
    }

    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        task.receivedBody(part, attempt: attempt, transport: execution)
    }

    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        task.transportFinished(metrics: metrics, attempt: attempt)
    }

    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        task.transportFailed(error, metrics: metrics, attempt: attempt)
    }
}
