import CourierClient
import CourierCore
import CourierHTTP1

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

    func didSendRequestBody(_ client: HTTPClientTask, total: Int64) {
        task.sentBody(total: total, attempt: attempt)
    }

    func didReceiveHead(_ client: HTTPClientTask, _ head: HTTPClientResponseHead) {
        task.receivedHead(head, attempt: attempt, transport: client)
    }

    func didReceiveBodyPart(_ client: HTTPClientTask, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        task.receivedBody(part, attempt: attempt, transport: client)
    }

    func didFinish(_ client: HTTPClientTask, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        task.transportFinished(metrics: metrics, attempt: attempt)
    }

    func didFail(_ client: HTTPClientTask, error: ClientError, metrics: HTTPClientMetrics) {
        task.transportFailed(error, metrics: metrics, attempt: attempt)
    }
}
