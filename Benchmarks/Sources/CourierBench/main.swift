// Courier's driver for the loopback client comparison (Client/README.md): the same command line
// and JSON line as every other driver (ClientBenchSupport). C workers each keep one request in
// flight; a worker starts its next request from the delegate's `didFinish`, on the event loop,
// so a sequential run never leaves the loop thread between requests.
import ClientBenchSupport
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTLS
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

let options = DriverOptions.parseOrExit()

var configuration = HTTPClientConfiguration()
// The runner pins the client to one core: one loop thread, like wrk -t1.
configuration.eventLoopThreads = 1
configuration.maximumConnectionsPerHost = options.concurrency
configuration.decompression = options.decodeGzip
// COURIER_BUSY_POLL_US=N: the loop polls N µs before sleeping (off unless set; the runner
// records the setting with the results).
if let text = getenv("COURIER_BUSY_POLL_US").map({ String(cString: $0) }), let micros = Int64(text), micros > 0 {
    configuration.busyPoll = .microseconds(micros)
}
// COURIER_TLS_RESUMPTION=0: every TLS handshake is a full one (the new-connections workload runs
// Courier with and without resumption).
if let text = getenv("COURIER_TLS_RESUMPTION").map({ String(cString: $0) }), text == "0" {
    configuration.tlsSessionResumption = false
}
// COURIER_CONNECTION_CLOSE=1: every request sends `Connection: close`, so each one makes a new
// connection (and, over TLS, a handshake).
let connectionClose = getenv("COURIER_CONNECTION_CLOSE").map { String(cString: $0) == "1" } ?? false
if let ca = options.caFile {
    configuration.tls.trustRoots = [.file(ca)]
} else if options.insecure {
    configuration.tls.verification = .none
}

let client: HTTPClient
let request: HTTPClientRequest
do {
    client = try HTTPClient(configuration: configuration)
    var made = try HTTPClientRequest(method: .GET, url: options.url)
    if connectionClose { try made.headers.append(name: "Connection", value: "close") }
    request = made
} catch {
    writeStandardError("CourierBench: \(error)\n")
    exit(1)
}

/// Totals over all workers, read once every worker is done.
let totals = Mutex((requests: 0, bytes: 0, errors: 0, handshakes: 0, resumed: 0))
let finished = DispatchSemaphore(value: 0)

/// One worker: `remaining` requests, one at a time.
final class Worker: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the client calls a delegate one call at a time; the counters are only
    // touched from those calls.
    private var remaining: Int
    private var requests = 0
    private var bytes = 0
    private var errors = 0
    private var handshakes = 0
    private var resumed = 0
    private var statusOK = false

    init(requests: Int) { remaining = requests }

    func start() {
        remaining -= 1
        client.execute(request, delegate: self)
    }

    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {
        statusOK = head.status == 200
    }

    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        bytes += part.readableBytes
        return .more
    }

    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        requests += 1
        if !statusOK { errors += 1 }
        if metrics.tlsStart != nil {
            handshakes += 1
            if metrics.tlsSessionReused { resumed += 1 }
        }
        next()
    }

    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        requests += 1
        errors += 1
        if errors <= 3 { writeStandardError("CourierBench: \(error)\n") }
        next()
    }

    private func next() {
        if remaining > 0 {
            start()
            return
        }
        totals.withLock {
            $0.requests += requests; $0.bytes += bytes; $0.errors += errors
            $0.handshakes += handshakes; $0.resumed += resumed
        }
        finished.signal()
    }
}

let workers = (0..<options.concurrency).map { Worker(requests: options.share(ofWorker: $0)) }
let start = Deadline.now()
for worker in workers { worker.start() }
for _ in workers { finished.wait() }
let seconds = Double((Deadline.now() - start).nanoseconds) / 1e9
client.shutdown()
let result = totals.withLock { $0 }
if result.handshakes > 0 {
    // Read by Client/run.py for the new-connections workload.
    writeStandardError("CourierBench: \(result.resumed) of \(result.handshakes) handshakes resumed\n")
}
print(DriverReport(requests: result.requests, bytes: result.bytes, seconds: seconds, errors: result.errors).json)
