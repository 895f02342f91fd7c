import CCourierZlib
import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Like ``withSession(configure:tls:completionQueue:_:)`` for tests that invalidate the session
/// themselves: afterwards the session is invalidated if it is not yet, and the harness waits for
/// the `sessionInvalidated` event (seen by an observer added first, so tests may replace hooks).
func withSelfInvalidatingSession(
    configure: (inout SessionConfiguration) -> Void = { _ in },
    completionQueue: DispatchQueue? = nil,
    _ body: (SessionManager, ScriptedServer) throws -> Void
) throws {
    try FileDescriptors.exclusively {
        try FileDescriptors.expectNoLeakedDescriptors {
            var configuration = SessionConfiguration()
            configuration.client.eventLoopThreads = 2
            configure(&configuration)
            let manager = try SessionManager(configuration: configuration, completionQueue: completionQueue)
            let invalidated = TestEvent()
            manager.addObserver { event in
                if case .sessionInvalidated = event { invalidated.signal() }
            }
            let server = try ScriptedServer()
            defer {
                manager.invalidate(cancelingTasks: true)
                #expect(invalidated.wait(timeout: .seconds(20)), "the session did not become invalid")
                server.shutdown()
            }
            try body(manager, server)
        }
    }
}

/// Gzip (`windowBits` 15 + 16) or zlib-wrapped deflate of `input`, at run time with zlib.
func zlibCompress(_ input: [UInt8], gzip: Bool = true) -> [UInt8] {
    var stream = z_stream()
    let windowBits: Int32 = gzip ? 15 + 16 : 15
    let rc = deflateInit2_(&stream, 6, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    precondition(rc == Z_OK, "deflateInit2 failed: \(rc)")
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
    var input = input
    let produced = input.withUnsafeMutableBufferPointer { source in
        output.withUnsafeMutableBufferPointer { destination in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            stream.next_out = destination.baseAddress
            stream.avail_out = uInt(destination.count)
            let result = deflate(&stream, Z_FINISH)
            precondition(result == Z_STREAM_END, "deflate did not finish: \(result)")
            return destination.count - Int(stream.avail_out)
        }
    }
    return Array(output.prefix(produced))
}

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
