import CourierClient
import CourierCore

/// The transport's delegate for one attempt (one HTTP request) of a task. It forwards to the
/// task with its attempt number, so that callbacks from an attempt the task has moved past
/// (after a cancel) are ignored. Called on event loops, one call at a time.
final class AttemptDelegate: HTTPClientResponseDelegate {
    let task: SessionTask
    let attempt: Int

    init(task: SessionTask, attempt: Int) {
        self.task = task
        self.attempt = attempt
    }

    func didSendRequestBody(_ client: HTTPRequestExecution, total: Int64) {
        task.sentBody(total: total, attempt: attempt)
    }

    func didRedirect(_ client: HTTPRequestExecution, response: HTTPClientResponseHead, to next: HTTPClientRequest, metrics: HTTPClientMetrics) {
        task.redirected(to: next, metrics: metrics, attempt: attempt, transport: client)
    }

    func didReceiveHead(_ client: HTTPRequestExecution, _ head: HTTPClientResponseHead) {
        task.receivedHead(head, attempt: attempt, transport: client)
    }

    func didReceiveBodyPart(_ client: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        task.receivedBody(part, attempt: attempt, transport: client)
    }

    func didFinish(_ client: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        task.transportFinished(metrics: metrics, attempt: attempt)
    }

    func didFail(_ client: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        task.transportFailed(error, metrics: metrics, attempt: attempt)
    }
}
