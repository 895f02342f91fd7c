// Streams one large body (W3's 1 GiB `/big`) through CourierClient's two response APIs side by
// side, alternating, in one process: the delegate (`didReceiveBodyPart`, bytes counted and
// dropped on the loop) and the async one (`for try await part in response.body`). Prints MiB/s
// of each, their ratio, and the process's RSS growth over its idle size (sampled while the async
// body streams). Usage: CourierStreamBench URL [ROUNDS]
import CourierClient
import CourierCore
import CourierHTTP1
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Resident set size in KiB, from /proc/self/statm (its second field, in pages).
func residentKiB() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    guard fgets(&line, 256, file) != nil else { return 0 }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let fields = text.split(separator: " ")
    guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: CourierStreamBench URL [ROUNDS]")
    exit(2)
}
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
var configuration = HTTPClientConfiguration()
configuration.eventLoopThreads = 1
let client = try HTTPClient(configuration: configuration)
let request = try HTTPClientRequest(method: .GET, url: arguments[1])

/// The delegate API: bytes counted on the loop.
final class Counter: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: called one call at a time by the client; read after `done`.
    var bytes = 0
    var error: ClientError?
    let done = DispatchSemaphore(value: 0)
    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {}
    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        bytes += part.readableBytes
        return .more
    }
    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) { done.signal() }
    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) { self.error = error; done.signal() }
}

func runDelegate() -> (bytes: Int, seconds: Double) {
    let counter = Counter()
    let start = Deadline.now()
    client.execute(request, delegate: counter)
    counter.done.wait()
    let seconds = Double((Deadline.now() - start).nanoseconds) / 1e9
    if let error = counter.error { print("delegate run failed: \(error)"); exit(1) }
    return (counter.bytes, seconds)
}

let peakRSS = Atomic<Int>(0)

func runAsync() -> (bytes: Int, seconds: Double) {
    let result = Mutex<(Int, Double)?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let start = Deadline.now()
        var bytes = 0
        var parts = 0
        do {
            let response = try await client.execute(request)
            for try await part in response.body {
                bytes += part.readableBytes
                parts += 1
                if parts % 512 == 0 { peakRSS.max(residentKiB()) }
            }
        } catch {
            print("async run failed: \(error)")
            exit(1)
        }
        let seconds = Double((Deadline.now() - start).nanoseconds) / 1e9
        result.withLock { $0 = (bytes, seconds) }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

extension Atomic where Value == Int {
    func max(_ value: Int) {
        var current = load(ordering: .relaxed)
        while value > current {
            let (exchanged, original) = compareExchange(expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// `value` rounded to 1/`scale` (no Foundation here).
func rounded(_ value: Double, _ scale: Double) -> Double { (value * scale).rounded() / scale }

func mib(_ bytes: Int, _ seconds: Double) -> Double { Double(bytes) / 1_048_576 / seconds }

// Warm-up: one body through each API (page cache, connection, allocator).
_ = runDelegate()
_ = runAsync()
let idle = residentKiB()
peakRSS.store(idle, ordering: .relaxed)
var delegateRates: [Double] = []
var asyncRates: [Double] = []
for round in 1...rounds {
    let d = runDelegate()
    let a = runAsync()
    delegateRates.append(mib(d.bytes, d.seconds))
    asyncRates.append(mib(a.bytes, a.seconds))
    let line = "round \(round): delegate \(Int(mib(d.bytes, d.seconds))) MiB/s, async \(Int(mib(a.bytes, a.seconds))) MiB/s"
    print(line + " (\(d.bytes) and \(a.bytes) bytes)")
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let peak = peakRSS.load(ordering: .relaxed)
let delegateMedian = median(delegateRates)
let asyncMedian = median(asyncRates)
let ratio = asyncMedian / delegateMedian
let growthMiB = Double(peak - idle) / 1024
print("median: delegate \(Int(delegateMedian)) MiB/s, async \(Int(asyncMedian)) MiB/s, ratio \(rounded(ratio, 1000)); RSS idle \(idle) KiB, peak while streaming async \(peak) KiB (+\(rounded(growthMiB, 10)) MiB)")
client.shutdown()
