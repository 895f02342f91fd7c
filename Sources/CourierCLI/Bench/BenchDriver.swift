import Courier
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// What a run measured.
struct BenchResult {
    var record: BenchRecord
    /// From the first request to the last response, in seconds.
    var seconds: Double
    var errorSamples: [String]
}

/// Runs a ``BenchPlan``: starts one worker per connection on the client's loops, collects the
/// loops' records every interval (the histogram log's lines and the live status line), and adds
/// them up once every worker is done.
enum BenchDriver {
    static func run(_ plan: BenchPlan) throws(BenchError) -> BenchResult {
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: plan.configuration)
        } catch {
            throw .setup("cannot start the event loops: \(error)")
        }
        defer { client.shutdown() }
        // One loop per thread, each on a core of its own where there are enough (a failure to
        // pin, in a container that forbids it, leaves the loops where the scheduler puts them).
        if plan.pin { _ = try? client.eventLoopGroup.pinLoopsToCPUs() }
        let workers = plan.requests.map { min($0, plan.connections) } ?? plan.connections
        let startTime = TextFormat.epochSeconds()
        let start = Deadline.now().uptimeNanoseconds
        let stopAt = plan.duration.map { start &+ $0 } ?? UInt64.max
        let run = BenchRun(client: client, request: plan.request, digits: plan.digits, workers: workers, stopAt: stopAt, reportErrors: true)
        let log = try plan.hdrLog.map { path throws(BenchError) in
            try HDRIntervalLog(path: path, startTime: startTime, comment: "courier bench \(plan.url)")
        }
        defer { log?.close() }
        let live = isatty(2) == 1

        // Per connection: one request every `connections / rate` seconds, the connections'
        // first requests spread over one interval.
        let perConnection = plan.rate.map { UInt64(1e9 * Double(plan.connections) / $0) }
        // Held here until the end: between requests (a constant rate's timer) nothing else
        // holds a worker.
        var started: [BenchWorker] = []
        // Above this many connections per loop thread the executions no longer fit the cache
        // twice over (BenchWorker's comment).
        let startsFromJob = workers > 64 * run.loops.count
        for index in 0..<workers {
            let mode: RequestSchedule.Mode = perConnection.map { .constantRate(interval: max($0, 1)) } ?? .closedLoop
            let offset = perConnection.map { $0 / UInt64(workers) * UInt64(index) } ?? 0
            let requests = plan.requests.map { BenchPlan.share(of: $0, worker: index, workers: workers) } ?? Int.max
            let worker = BenchWorker(
                run: run, schedule: RequestSchedule(mode: mode, start: start &+ offset), requests: requests, startsFromJob: startsFromJob
            )
            started.append(worker)
            run.loops[index % run.loops.count].execute { worker.next() }
        }

        var total = BenchRecord(digits: plan.digits)
        var interval = BenchRecord(digits: plan.digits)
        var intervalStart = start
        var finished = false
        while !finished {
            finished = run.waitForWorkers(timeout: .now() + .nanoseconds(Int(clamping: plan.interval)))
            let now = Deadline.now().uptimeNanoseconds
            run.collect(into: &interval)
            total.add(interval)
            let elapsed = Double(now &- start) / 1e9
            log?.append(start: Double(intervalStart &- start) / 1e9, length: Double(now &- intervalStart) / 1e9, histogram: interval.latency)
            if live && !finished {
                let rate = Double(interval.requests) / (Double(now &- intervalStart) / 1e9)
                Output.err("\r\u{1B}[K  \(TextFormat.fixed(elapsed, 1))s  \(total.requests) requests  \(TextFormat.fixed(rate, 0)) req/s  p99 \(TextFormat.duration(nanoseconds: Double(interval.latency.value(atPercentile: 99))))  errors \(total.failures)")
            }
            intervalStart = now
        }
        withExtendedLifetime(started) {}
        if live { Output.err("\r\u{1B}[K") }
        let seconds = Double(intervalStart &- start) / 1e9
        return BenchResult(record: total, seconds: seconds, errorSamples: run.errorSamples)
    }
}
