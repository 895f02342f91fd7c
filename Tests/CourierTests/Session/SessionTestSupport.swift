import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Gzip or zlib-wrapped deflate of `input` (CourierTestSupport's zlib helper).
func zlibCompress(_ input: [UInt8], gzip: Bool = true) -> [UInt8] { TestCompression.compress(input, gzip: gzip) }

/// Bytes that do not compress well (a SplitMix-style generator), so that half of a gzip stream
/// decodes to a real part of the body.
func noisyBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8]()
    bytes.reserveCapacity(count)
    while bytes.count < count {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        withUnsafeBytes(of: z) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
    }
    return bytes
}

/// Waits, checking every few milliseconds, until `condition` holds. Returns false on timeout.
/// For state that has no event of its own (e.g. a task's progress while the completion queue
/// is suspended).
func waitUntil(timeout: Duration = .seconds(20), _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + timeout
    let never = TestEvent()
    while clock.now < end {
        if condition() { return true }
        never.wait(timeout: .milliseconds(5))
    }
    return condition()
}

/// Runs a download task to its end.
func runDownload(
    _ manager: SessionManager, _ request: Request, options: DownloadOptions = [.createIntermediateDirectories, .removePreviousFile],
    sourceLocation: SourceLocation = #_sourceLocation, destination: (@Sendable (URL, Response) -> URL)? = nil,
    progress: ProgressHandler? = nil
) throws -> DownloadResponse {
    let outcome = Outcome<DownloadResponse>()
    manager.downloadTask(with: request, options: options, progress: progress, destination: destination) { outcome.set($0) }.resume()
    return try #require(outcome.wait(seconds: 30), "the download did not complete", sourceLocation: sourceLocation)
}

/// Runs a task made by `make` (given its completion handler) to its end.
func run<Value: Sendable>(
    sourceLocation: SourceLocation = #_sourceLocation, _ make: (@escaping @Sendable (Value) -> Void) -> SessionTask
) throws -> Value {
    let outcome = Outcome<Value>()
    make { outcome.set($0) }.resume()
    return try #require(outcome.wait(seconds: 30), "the task did not complete", sourceLocation: sourceLocation)
}

/// The file's bytes, or nil when it cannot be read.
func fileBytes(_ url: URL) -> [UInt8]? { TestFiles.bytes(at: url.path) }

func fileExists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

/// The names in a directory (empty when it cannot be listed).
func directoryEntries(_ directory: ScratchDirectory) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
}

/// A scratch directory as a URL.
extension ScratchDirectory {
    var url: URL { URL(fileURLWithPath: path, isDirectory: true) }
}

/// Runs tasks on a serial dispatch queue of their own. Suites run in parallel and their
/// synchronous tests block the few threads of the cooperative pool while they wait; a task that
/// reads an `events()` stream must not depend on those threads being free.
final class QueueTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "courier.tests.stream-reader")

    init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Reads `stream` to its end on a thread outside the cooperative pool, calling `handle` for each
/// event; `handle` returns false to stop early. Returns an event signalled when reading stops.
@discardableResult
func readEvents(_ stream: AsyncStream<SessionEvent>, _ handle: @escaping @Sendable (SessionEvent) -> Bool) -> TestEvent {
    let done = TestEvent()
    Task(executorPreference: QueueTaskExecutor()) {
        for await event in stream {
            if !handle(event) { break }
        }
        done.signal()
    }
    return done
}
