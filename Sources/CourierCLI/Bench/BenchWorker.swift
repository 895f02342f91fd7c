import Courier

/// One connection's worth of load: a single request in flight at a time, the next one started
/// from the previous one's last delegate call (or by a timer at a constant rate), on the event
/// loop, so the loop thread never hands off between requests. The worker is its own delegate and
/// is handed to `execute` again for every request, and each request runs in an execution that
/// ended before (`execute(_:delegate:reusing:)`): nothing is allocated per request.
///
/// Inside `didFinish` the execution that just ended is still on the stack, so a request started
/// there runs in the one before it: two executions per worker. With many connections per loop
/// (``startsFromJob``) the next request starts instead from a job: `didFinish` joins the loop's
/// ``BenchStartQueue``, whose one job starts every worker that joined. By then the connection
/// has let go of the ended execution, the request runs in it, and each worker keeps one. The
/// executions are the largest part of what a request touches, and at 256 connections the second
/// one per worker put the whole out of the CPU's L2 (Benchmarks/RESULTS.md, "after the twelfth
/// pass"); with few connections everything fits anyway, and the job's ~300 instructions would be
/// a loss.
final class BenchWorker: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the client calls a delegate one call at a time (docs of
    // HTTPClientResponseDelegate), and the job or timer that starts the next request is queued
    // only between requests, so every field is touched by one thread at a time.
    // Unchecked exclusivity for the same reason (one call at a time, nothing held `inout`
    // across a call out): the run-time checks cost a call per access on every request.
    private let run: BenchRun
    /// Whether the next request starts from a queued job rather than inside `didFinish`.
    let startsFromJob: Bool
    @exclusivity(unchecked) private var schedule: RequestSchedule
    @exclusivity(unchecked) private var remaining: Int
    @exclusivity(unchecked) private var status = 0
    /// Starts the next request from a timer (at a constant rate); made once, armed each time.
    @exclusivity(unchecked) private var fire: (@Sendable () -> Void)?
    /// The execution of the request in flight (or of the last one), and of the one before it.
    @exclusivity(unchecked) private var current: HTTPRequestExecution?
    @exclusivity(unchecked) private var spare: HTTPRequestExecution?

    init(run: BenchRun, schedule: RequestSchedule, requests: Int, startsFromJob: Bool) {
        self.run = run
        self.startsFromJob = startsFromJob
        self.schedule = schedule
        self.remaining = requests
    }

    /// Starts (or continues) this worker; called on an event loop, by the driver or from the
    /// last request's final delegate call (`inFinalCall`). Starts the next request now, queues
    /// it, or arms its timer. `now`: the time, when the caller just read it (the end of the last
    /// response), to save reading the clock again.
    func next(now: UInt64 = Deadline.now().uptimeNanoseconds, inFinalCall: Bool = false) {
        guard remaining > 0 else { return finish() }
        let sendAt = schedule.nextSend(now: now)
        guard sendAt < run.stopAt else { return finish() }
        let later = sendAt > now || (inFinalCall && startsFromJob)
        // Queued or armed on the loop of the connection that served the last request.
        guard later, let loop = run.currentLoop else { return send(inFinalCall: inFinalCall) }
        guard sendAt > now else { return run.startQueue(on: loop).add(self) }
        // Unowned and unchecked: the driver holds every worker until all have finished, and a
        // worker finishes only with nothing queued or armed (`finish` runs instead of the next
        // queue or arm), so no job or timer outlives it. Checked, the capture cost an atomic
        // retain and release of the worker on every request.
        if fire == nil { fire = { [unowned(unsafe) self] in self.send(inFinalCall: false) } }
        guard let fire else { return }
        loop.scheduleTimer(at: Deadline(uptimeNanoseconds: sendAt), fire)
    }

    /// Sends the next request now: called by the loop's ``BenchStartQueue``.
    func startNext() {
        send(inFinalCall: false)
    }

    private func send(inFinalCall: Bool) {
        remaining -= 1
        status = 0
        // Outside the final call nothing holds the last execution any more: it becomes the
        // spare the request runs in.
        if !inFinalCall { swap(&current, &spare) }
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
        next(now: end, inFinalCall: true)
    }

    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        let end = (metrics.responseEnd ?? Deadline.now()).uptimeNanoseconds
        _ = schedule.complete(at: end)
        run.slot.record.recordFailure(error, metrics: metrics)
        if run.reportErrors { run.noteError(error) }
        next(now: end, inFinalCall: true)
    }
}
