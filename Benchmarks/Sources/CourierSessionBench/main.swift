// The Courier *session layer's* driver for the loopback client comparison (Client/README.md): the
// same command line and JSON line as every other driver, through `SessionManager` data tasks —
// what an AFNetworking-style caller pays on top of the transport (CourierBench): the task
// registry, progress, serialization off the loops and completions on the completion queue.
// C workers each keep one task in flight and start the next from the completion handler.
import ClientBenchSupport
import Courier
import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

let options = DriverOptions.parseOrExit()

var configuration = SessionConfiguration()
configuration.client.eventLoopThreads = 1
configuration.client.maximumConnectionsPerHost = options.concurrency
configuration.client.decompression = options.decodeGzip
if let ca = options.caFile {
    configuration.client.tls.trustRoots = [.file(ca)]
} else if options.insecure {
    configuration.client.tls.verification = .none
}

/// An interceptor that changes nothing: its adapter still runs before every attempt.
struct DoNothingInterceptor: RequestInterceptor {}
/// A monitor that implements nothing: every event still reaches it.
struct DoNothingMonitor: EventMonitor {}

// COURIER_SESSION_EXTRA: what a do-nothing extra costs per request, side by side with none.
let extra = getenv("COURIER_SESSION_EXTRA").map { String(cString: $0) }
var urlString = options.url
switch extra {
case "interceptor": configuration.interceptor = DoNothingInterceptor()
case "policy": configuration.interceptor = RetryPolicy()  // a retrier only: no adaptation step
case "monitor": configuration.eventMonitors = [DoNothingMonitor()]
case "nostate", "state", "state-nomatch":
    // What a full cookie jar and a full cache cost on requests that still go to the network:
    // both variants fetch a response the cache may not store (Cache-Control: no-store).
    urlString = urlString.replacing("/small", with: "/small-nostore")
    configuration.httpCookieStorage = nil
    if extra == "state" || extra == "state-nomatch" {
        // state-nomatch: the same 1,000 cookies, none of them for the benchmark's host (the
        // lookup alone, no Cookie field sent).
        configuration.httpCookieStorage = StateFixtures.cookieJar(for: urlString, matching: extra == "state")
        configuration.responseCache = StateFixtures.responseCache(for: urlString)
    }
default: break
}

let manager: SessionManager
do {
    manager = try SessionManager(configuration: configuration)
} catch {
    writeStandardError("CourierSessionBench: \(error)\n")
    exit(1)
}
guard let url = URL(string: urlString) else {
    writeStandardError("CourierSessionBench: bad URL \(options.url)\n")
    exit(1)
}
let request = Request(url: url)

/// Totals over all workers, read once every worker is done.
let totals = Mutex((requests: 0, bytes: 0, errors: 0))
let finished = DispatchSemaphore(value: 0)

/// One worker: `remaining` tasks, one at a time. Its counters are touched only from its own
/// completion handlers, which run one after another (each starts the next task).
final class Worker: @unchecked Sendable {
    private var remaining: Int
    private var requests = 0
    private var bytes = 0
    private var errors = 0

    init(requests: Int) { remaining = requests }

    func start() {
        remaining -= 1
        manager.dataTask(with: request) { [self] response in
            requests += 1
            if let data = response.value, response.response?.statusCode == 200 {
                bytes += data.count
            } else {
                errors += 1
                if errors <= 3 { writeStandardError("CourierSessionBench: \(String(describing: response.error))\n") }
            }
            next()
        }.resume()
    }

    private func next() {
        if remaining > 0 {
            start()
            return
        }
        totals.withLock { $0.requests += requests; $0.bytes += bytes; $0.errors += errors }
        finished.signal()
    }
}

if let mode = getenv("COURIER_SESSION_MODE"), String(cString: mode) == "async" {
    // `courier-async`: each worker is a Swift task awaiting `HTTPSessionManager.send` in a loop.
    let report = runAsyncWorkers(configuration: configuration, url: url, options: options)
    print(report.json)
    exit(0)
}

let workers = (0..<options.concurrency).map { Worker(requests: options.share(ofWorker: $0)) }
let start = DispatchTime.now()
for worker in workers { worker.start() }
for _ in workers { finished.wait() }
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
let invalid = DispatchSemaphore(value: 0)
manager.updateHooks { $0.sessionDidBecomeInvalid = { _ in invalid.signal() } }
manager.invalidate(cancelingTasks: true)
invalid.wait()
let result = totals.withLock { $0 }
print(DriverReport(requests: result.requests, bytes: result.bytes, seconds: seconds, errors: result.errors).json)
