import Courier
import Dispatch

/// What the session tells the command about a transfer, in the order it happened.
enum TransferEvent: Sendable {
    case attempt(Int, Request)
    case redirect(Response, Request)
    case response(Response)
    case data(Data)
    case retry(Double?, CourierError)
    case metrics(TaskMetrics)
    case completed(TaskCompletion)
}

/// An ``EventMonitor`` that hands every event of the session's tasks to one `AsyncStream`, on a
/// queue of its own, so the command writes heads, body bytes and `-v` lines as they happen.
///
/// `--har`'s recorder is fed from here, before each event is handed on, so a transfer the
/// command has seen complete is in the log.
final class TransferMonitor: EventMonitor {
    let queue = DispatchQueue(label: "courier.cli.transfer-monitor")
    let events: AsyncStream<TransferEvent>
    let har: HARRecorder?
    private let continuation: AsyncStream<TransferEvent>.Continuation

    init(har: HARRecorder?) {
        self.har = har
        (events, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
    }

    func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request) {
        har?.task(task, didStartAttempt: attempt, request: request)
        continuation.yield(.attempt(attempt, request))
    }

    func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request) {
        har?.task(task, didFollowRedirect: response, to: request)
        continuation.yield(.redirect(response, request))
    }

    func task(_ task: SessionTask, didReceiveResponse response: Response) {
        har?.task(task, didReceiveResponse: response)
        continuation.yield(.response(response))
    }

    func task(_ task: SessionTask, didReceiveData data: Data) {
        continuation.yield(.data(data))
    }

    func task(_ task: SessionTask, didDecideRetry delay: Double?, after error: CourierError) {
        continuation.yield(.retry(delay, error))
    }

    func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        continuation.yield(.metrics(metrics))
    }

    func taskCompleted(_ completion: TaskCompletion) {
        har?.taskCompleted(completion)
        continuation.yield(.completed(completion))
    }

    func finish() { continuation.finish() }
}
