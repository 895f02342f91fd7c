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
/// After each response head the monitor holds the events that follow until the command says
/// where that response's body goes (``route(_:)``): through the stream, or straight into the
/// output from this queue (``DirectBody``), which saves a thread hand-over per body piece on a
/// plain download. Events keep their order either way.
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

    /// Where the current response's events go; touched only on ``queue``.
    private enum Route {
        case stream
        /// Waiting for ``route(_:)``: the events since the response head, in order.
        case holding([TransferEvent])
        case direct(DirectBody)
    }

    /// The route, touched only on ``queue``: the monitor's methods run there, and
    /// ``route(_:for:)`` runs there through `queue.sync`.
    private final class Routing: @unchecked Sendable {
        var current = Route.stream
    }

    private let routing = Routing()

    init(har: HARRecorder?) {
        self.har = har
        (events, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
    }

    func task(_ task: SessionTask, didStartAttempt attempt: Int, request: Request) {
        har?.task(task, didStartAttempt: attempt, request: request)
        yield(.attempt(attempt, request))
    }

    func task(_ task: SessionTask, didFollowRedirect response: Response, to request: Request) {
        har?.task(task, didFollowRedirect: response, to: request)
        yield(.redirect(response, request))
    }

    func task(_ task: SessionTask, didSendRequestHead head: HTTPRequestHead, metrics: HTTPClientMetrics) {
        yield(.sentHead(head, metrics))
    }

    func task(_ task: SessionTask, didReceiveResponse response: Response) {
        har?.task(task, didReceiveResponse: response)
        // While the previous response's route is still open (a retry answered first), this one
        // waits behind it and gets a route of its own (see `route(_:for:)`).
        if !hold(.response(response)) {
            continuation.yield(.response(response))
            routing.current = .holding([])
        }
    }

    func task(_ task: SessionTask, didReceiveData data: Data) {
        switch routing.current {
        case .stream:
            handOn(data, of: task)
        case .holding:
            _ = hold(.data(data))
        case .direct(let body):
            body.write(data, of: task)
        }
    }

    /// The command has seen the response head: its body goes to `direct`, or through the stream
    /// when nil. What arrived meanwhile follows the same way, first. Called off ``queue``.
    func route(_ direct: DirectBody?, for task: SessionTask) {
        queue.sync {
            guard case .holding(let held) = routing.current else { return }
            routing.current = direct.map { .direct($0) } ?? .stream
            for (index, event) in held.enumerated() {
                switch event {
                case .data(let data):
                    if let direct { direct.write(data, of: task) } else { handOn(data, of: task) }
                case .response:
                    // A later response (a retry's) waits for a route of its own.
                    continuation.yield(event)
                    routing.current = .holding(Array(held[(index + 1)...]))
                    return
                case .completed:
                    continuation.yield(event)
                    routing.current = .stream
                default:
                    continuation.yield(event)
                }
            }
        }
    }

    /// Hands a body piece to the command through the stream, pausing the task past the high water.
    private func handOn(_ data: Data, of task: SessionTask) {
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
        yield(.retry(delay, error))
    }

    func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        yield(.metrics(metrics))
    }

    func taskCompleted(_ completion: TaskCompletion) {
        har?.taskCompleted(completion)
        yield(.completed(completion))
        // The next transfer starts on the stream.
        if case .direct = routing.current { routing.current = .stream }
    }

    /// An event after the response head: held while the body's route is open, else handed on.
    private func yield(_ event: TransferEvent) {
        if !hold(event) { continuation.yield(event) }
    }

    /// Keeps `event` while the body's route is open; false when it is not.
    private func hold(_ event: TransferEvent) -> Bool {
        guard case .holding(var held) = routing.current else { return false }
        // The route gives up its array first, so the append does not copy it.
        routing.current = .stream
        held.append(event)
        routing.current = .holding(held)
        return true
    }

    func finish() { continuation.finish() }
}

/// A response body written into the output from the monitor's queue (see
/// ``TransferMonitor/route(_:for:)``). Touched on that queue only until the transfer completes;
/// the command reads it after `.completed`, which the queue hands on after its last write.
final class DirectBody: @unchecked Sendable {
    // @unchecked: written on the monitor's serial queue while the body arrives, read by the
    // command only after the completion event, which that queue hands on later.
    let output: OutputFile
    private(set) var bytes: Int64 = 0
    /// Set when a write failed: the task was cancelled (curl's 23).
    private(set) var failed = false

    init(output: OutputFile) { self.output = output }

    func write(_ data: Data, of task: SessionTask) {
        guard !failed else { return }
        bytes += Int64(data.count)
        data.withUnsafeBytes { output.write($0) }
        if output.failure != nil {
            failed = true
            task.cancel()
        }
    }
}
