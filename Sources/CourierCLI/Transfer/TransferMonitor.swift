import Courier
import CourierCore
import Dispatch
import Synchronization

/// What the session tells the command about a transfer, in the order it happened.
enum TransferEvent: Sendable {
    case attempt(Int, Request)
    case redirect(Response, Request)
    case sentHead(HTTPRequestHead, HTTPClientMetrics)
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

    /// Body bytes handed on but not yet written, and the task paused for them: past
    /// ``highWater`` the task stops reading the socket until the command has written all but
    /// ``lowWater`` (backpressure from a slow stdout or disk to the server).
    private let pending = Mutex<(bytes: Int, paused: SessionTask?)>((0, nil))
    static let highWater = 8 << 20
    static let lowWater = 1 << 20

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

    func task(_ task: SessionTask, didSendRequestHead head: HTTPRequestHead, metrics: HTTPClientMetrics) {
        continuation.yield(.sentHead(head, metrics))
    }

    func task(_ task: SessionTask, didReceiveResponse response: Response) {
        har?.task(task, didReceiveResponse: response)
        continuation.yield(.response(response))
    }

    func task(_ task: SessionTask, didReceiveData data: Data) {
        let pause = pending.withLock { state -> Bool in
            state.bytes += data.count
            guard state.bytes > Self.highWater, state.paused == nil else { return false }
            state.paused = task
            return true
        }
        if pause { task.suspend() }
        continuation.yield(.data(data))
    }

    /// The command wrote (or dropped) `count` body bytes it was handed.
    func consumed(_ count: Int) {
        let resume = pending.withLock { state -> SessionTask? in
            state.bytes -= count
            guard state.bytes < Self.lowWater, let task = state.paused else { return nil }
            state.paused = nil
            return task
        }
        resume?.resume()
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
