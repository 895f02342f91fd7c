// URLSession driver for the loopback comparison (`Client/run.py`): swift-corelibs-foundation's
// FoundationNetworking, which runs every transfer through libcurl's multi interface.
//
//   URLSessionBench --url URL --requests N --concurrency C [--decode-gzip]
//
// A delegate-based data task per request (the delegate sees each received `Data` and only counts
// it, so no body is buffered); C tasks are kept in flight, each completion starting the next.
// `httpMaximumConnectionsPerHost` = C, so C = 1 is sequential on one reused connection.
// FoundationNetworking always asks libcurl for automatic decompression, so gzip bodies arrive
// decoded with or without `--decode-gzip`.
//
// TLS: FoundationNetworking on Linux has no per-session trust setting (no server-trust challenge,
// and its CA-file environment variable is read on Android only), so `--insecure` and `--ca` are
// refused. run.py runs this driver in a private mount namespace where the system CA bundle path is
// the benchmark's CA instead.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ClientBenchSupport
import Dispatch
import Foundation
import Synchronization

let options = DriverOptions.parseOrExit()
if options.insecure || options.caFile != nil {
    writeStandardError(
        "URLSessionBench: --insecure/--ca are not supported by FoundationNetworking on Linux; "
            + "put the CA into the system bundle (run.py does this in a private mount namespace)\n")
    exit(2)
}
guard let url = URL(string: options.url) else {
    writeStandardError("URLSessionBench: bad URL \(options.url)\n")
    exit(2)
}

/// Counts bytes and outcomes and keeps `concurrency` tasks in flight. Sendable: its only mutable
/// state is inside the `Mutex`.
final class Counter: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var started = 0
        var finished = 0
        var bytes = 0
        var errors = 0
        var firstError: String?
    }
    let state = Mutex(State())
    let total: Int
    let url: URL
    let done = DispatchSemaphore(value: 0)

    init(total: Int, url: URL) {
        self.total = total
        self.url = url
    }

    /// Starts the next request if any remain. Called once per worker at start and on each completion.
    func startNext(on session: URLSession) {
        let shouldStart = state.withLock { state -> Bool in
            guard state.started < total else { return false }
            state.started += 1
            return true
        }
        if shouldStart {
            session.dataTask(with: URLRequest(url: url)).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        let allDone = state.withLock { state -> Bool in
            if error != nil || status != 200 {
                state.errors += 1
                if state.firstError == nil { state.firstError = "status \(status), error \(String(describing: error))" }
            }
            state.finished += 1
            return state.finished == total
        }
        if allDone { done.signal() } else { startNext(on: session) }
    }
}

let configuration = URLSessionConfiguration.ephemeral
configuration.httpMaximumConnectionsPerHost = options.concurrency
configuration.timeoutIntervalForRequest = 120
configuration.timeoutIntervalForResource = 600
configuration.urlCache = nil
configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
if options.decodeGzip {
    configuration.httpAdditionalHeaders = ["Accept-Encoding": "gzip"]
}
let counter = Counter(total: options.requests, url: url)
let delegateQueue = OperationQueue()
delegateQueue.maxConcurrentOperationCount = 1
let session = URLSession(configuration: configuration, delegate: counter, delegateQueue: delegateQueue)

let start = ContinuousClock.now
for _ in 0..<options.concurrency {
    counter.startNext(on: session)
}
counter.done.wait()
let seconds = secondsSince(start)
session.invalidateAndCancel()

let result = counter.state.withLock { $0 }
if let firstError = result.firstError { writeStandardError("URLSessionBench: \(firstError)\n") }
DriverReport(requests: result.finished, bytes: result.bytes, seconds: seconds, errors: result.errors).emit()
