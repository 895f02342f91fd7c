import Courier
import CourierCore
import Dispatch
import Synchronization

/// One loop thread's record, and the spare the driver swaps in at each interval.
final class RecordSlot: @unchecked Sendable {
    // @unchecked: `record` is touched only on its loop's thread; `spare` only by the driver,
    // between two swaps, and the swap runs on the loop (`submitAndWait` orders them).
    // Unchecked exclusivity for the same reason, and `record` is never held `inout` across a
    // call out: the run-time checks cost about 100 instructions a request.
    @exclusivity(unchecked) var record: BenchRecord
    @exclusivity(unchecked) var spare: BenchRecord

    init(digits: Int) {
        record = BenchRecord(digits: digits)
        spare = BenchRecord(digits: digits)
    }
}

/// What the workers of one run share: the client, the request, the per-loop records, when to
/// stop, and how many workers are still going.
final class BenchRun: Sendable {
    let client: HTTPClient
    let request: HTTPClientRequest
    let loops: [EventLoop]
    let slots: [RecordSlot]
    /// Per loop, the workers whose next request starts from a job.
    private let startQueues: [BenchStartQueue]
    /// No request is sent that is due at or after this time (monotonic nanoseconds).
    let stopAt: UInt64
    let reportErrors: Bool
    private let running: Atomic<Int>
    private let done = DispatchSemaphore(value: 0)
    private let firstErrors = Mutex<[String]>([])

    init(client: HTTPClient, request: HTTPClientRequest, digits: Int, workers: Int, stopAt: UInt64, reportErrors: Bool) {
        self.client = client
        self.request = request
        self.loops = client.eventLoopGroup.loops
        self.slots = loops.map { _ in RecordSlot(digits: digits) }
        self.startQueues = loops.map { BenchStartQueue(loop: $0) }
        self.stopAt = stopAt
        self.reportErrors = reportErrors
        self.running = Atomic(workers)
    }

    /// The caller's loop (delegate calls and timers run on one).
    var currentLoop: EventLoop? { loops.first { $0.inEventLoop } }

    /// The start queue of `loop`, one of the client's.
    func startQueue(on loop: EventLoop) -> BenchStartQueue {
        for index in loops.indices where loops[index] === loop { return startQueues[index] }
        preconditionFailure("a worker started off the client's loops")
    }

    /// The record of the caller's loop thread.
    var slot: RecordSlot {
        for index in loops.indices where loops[index].inEventLoop { return slots[index] }
        preconditionFailure("a worker recorded off the client's loops")
    }

    func workerFinished() {
        if running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.signal() }
    }

    /// Waits until every worker finished or `timeout` passed; true when finished.
    func waitForWorkers(timeout: DispatchTime) -> Bool {
        done.wait(timeout: timeout) == .success
    }

    /// Keeps the first few distinct error descriptions, for the report.
    func noteError(_ error: ClientError) {
        firstErrors.withLock { list in
            let text = error.description
            if list.count < 5 && !list.contains(text) { list.append(text) }
        }
    }

    var errorSamples: [String] { firstErrors.withLock { $0 } }

    /// Takes what every loop recorded since the last call, adding it into `interval` (which it
    /// resets first).
    func collect(into interval: inout BenchRecord) {
        interval.reset()
        for index in loops.indices {
            let slot = slots[index]
            loops[index].submitAndWait { swap(&slot.record, &slot.spare) }
            interval.add(slot.spare)
            slot.spare.reset()
        }
    }
}
