import Courier

/// The workers of one loop whose next request starts from a job (``BenchWorker/startsFromJob``),
/// and the one job that starts them all.
///
/// With hundreds of connections on a loop, a job per worker cost a queued closure per request:
/// the queue's lock, and a retain and release of the closure's context, the worker's own and
/// out of the cache by the time its job ran (about 0.16 µs a request at 256 connections, in
/// perf's samples of the retain). Workers that finish during one turn of the loop now wait here,
/// and one job, queued by the first of them, starts them in order.
final class BenchStartQueue: @unchecked Sendable {
    // @unchecked: touched only on `loop`'s thread (workers on that loop add themselves from
    // their delegate calls, and the job runs there). Unchecked exclusivity for the same reason:
    // nothing holds these `inout` across a call out.
    private let loop: EventLoop
    /// Unretained: the driver holds every worker until all have finished, and a worker waiting
    /// here has not finished (it finishes instead of waiting), so none is gone before its start.
    @exclusivity(unchecked) private var waiting: [Unmanaged<BenchWorker>] = []
    /// The batch being started; swapped with `waiting`, so both keep their storage.
    @exclusivity(unchecked) private var starting: [Unmanaged<BenchWorker>] = []
    @exclusivity(unchecked) private var scheduled = false
    /// Made once. Unowned and unchecked: the run holds this queue, and each worker holds the run,
    /// so the queue outlives every job queued for a waiting worker.
    @exclusivity(unchecked) private var job: (@Sendable () -> Void)?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Starts `worker`'s next request from this loop's next job.
    func add(_ worker: BenchWorker) {
        waiting.append(Unmanaged.passUnretained(worker))
        guard !scheduled else { return }
        scheduled = true
        if job == nil { job = { [unowned(unsafe) self] in self.startWaiting() } }
        if let job { loop.execute(job) }
    }

    private func startWaiting() {
        scheduled = false
        // A worker whose request fails at once adds itself again, to `waiting`, for the next job.
        swap(&waiting, &starting)
        for worker in starting { worker.takeUnretainedValue().startNext() }
        starting.removeAll(keepingCapacity: true)
    }
}
