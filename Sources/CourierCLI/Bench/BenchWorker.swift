import Courier

/// One connection's worth of load: a single request in flight at a time, the next one started
/// from the previous one's last delegate call (or from a timer at a constant rate), on the event
/// loop, so the loop thread never hands off between requests. The worker is its own delegate and
/// is handed to `execute` again for every request, and each request runs in the execution of the
/// request before last (`execute(_:delegate:reusing:)`): nothing is allocated per request.
final class BenchWorker: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the client calls a delegate one call at a time (docs of
    // HTTPClientResponseDelegate), and the timer that starts the next request is armed only
    // between requests, so every field is touched by one thread at a time.
    // Unchecked exclusivity for the same reason (one call at a time, nothing held `inout`
    // across a call out): the run-time checks cost a call per access on every request.
    private let run: BenchRun
    @exclusivity(unchecked) private var schedule: RequestSchedule
    @exclusivity(unchecked) private var remaining: Int
    @exclusivity(unchecked) private var status = 0
    @exclusivity(unchecked) private var fire: (() -> Void)?
    /// The execution of the request in flight, and of the one before it: the next request runs
    /// in the latter (the former is still on the stack while its `didFinish` runs).
    @exclusivity(unchecked) private var current: HTTPRequestExecution?
    @exclusivity(unchecked) private var spare: HTTPRequestExecution?

    init(run: BenchRun, schedule: RequestSchedule, requests: Int) {
        self.run = run
        self.schedule = schedule
        self.remaining = requests
    }

    /// Starts (or continues) this worker; called on an event loop.
    /// Starts the next request now or arms its timer. `now`: the time, when the caller just
    /// read it (the end of the last response), to save reading the clock again.
    func next(now: UInt64 = Deadline.now().uptimeNanoseconds) {
        guard remaining > 0 else { return finish() }
        let sendAt = schedule.nextSend(now: now)
        guard sendAt < run.stopAt else { return finish() }
        if sendAt > now, let loop = run.currentLoop {
            if fire == nil { fire = { [unowned self] in self.send() } }
            if let fire { loop.scheduleTimer(at: Deadline(uptimeNanoseconds: sendAt), fire) }
        } else {
            send()
        }
    }

    private func send() {
        remaining -= 1
        status = 0
        var next: HTTPRequestExecution? = run.client.execute(run.request, delegate: self, reusing: &spare)
        // Swapped, not copied: `spare` is nil here, and a copy would retain and release.
        swap(&current, &next)
        swap(&spare, &next)
    }

    private func finish() {
        fire = nil
        // They hold this worker as their delegate.
        current = nil
        spare = nil
        run.workerFinished()
    }

    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {
        status = head.status
    }

    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        .more
    }

    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        let end = (metrics.responseEnd ?? Deadline.now()).uptimeNanoseconds
        let latency = schedule.complete(at: end)
        run.slot.record.recordResponse(status: status, latency: latency, metrics: metrics)
        next(now: end)
    }

    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        let end = (metrics.responseEnd ?? Deadline.now()).uptimeNanoseconds
        _ = schedule.complete(at: end)
        run.slot.record.recordFailure(error, metrics: metrics)
        if run.reportErrors { run.noteError(error) }
        next(now: end)
    }
}
