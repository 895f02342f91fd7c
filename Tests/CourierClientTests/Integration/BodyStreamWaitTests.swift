#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

/// Counts what a `PacedStream` was asked, across the copies the connection makes.
final class PaceLog: Sendable {
    private let counts = Mutex((pieces: 0, empties: 0))
    /// Signalled at every empty piece.
    let emptied = DispatchSemaphore(value: 0)
    func piece() { counts.withLock { $0.pieces += 1 } }
    func empty() {
        counts.withLock { $0.empties += 1 }
        emptied.signal()
    }
    var pieces: Int { counts.withLock { $0.pieces } }
    var empties: Int { counts.withLock { $0.empties } }
}

/// Gives one piece of `PatternStream` bytes, then has nothing until `pause` has passed
/// (returning empty pieces with `waitAfterEmptyPiece`), like a rate limiter.
struct PacedStream: HTTPClientBodyStream {
    var inner: PatternStream
    let pause: TimeAmount
    let log: PaceLog
    var readyAt = Deadline.distantPast

    mutating func next() throws -> ByteBuffer? {
        let now = Deadline.now()
        guard now >= readyAt else {
            log.empty()
            return ByteBuffer()
        }
        guard let piece = try inner.next() else { return nil }
        log.piece()
        readyAt = now + pause
        return piece
    }

    var waitAfterEmptyPiece: TimeAmount? { readyAt.remaining() }
}

/// `HTTPClientBodyStream.waitAfterEmptyPiece`: a stream with nothing to give yet makes the
/// connection wait on a loop timer instead of asking again at once.
@Suite(.serialized) struct BodyStreamWaitTests {
    @Test func emptyPieceWithAWaitPausesTheBodyWithoutSpinning() throws {
        try withClientAndServer(serving: RequestBodyIntegrationTests.echoServer()) { client, server in
            let count = 10 * 1000
            let pause = TimeAmount.milliseconds(30)
            let log = PaceLog()
            let start = ContinuousClock.now
            let result = run(client, try RequestBodyIntegrationTests.post("\(server.baseURL)/upload", .stream(length: Int64(count)) {
                PacedStream(inner: PatternStream(count: count, pieceSize: 1000), pause: pause, log: log)
            }))
            let elapsed = ContinuousClock.now - start
            #expect(result.error == nil, "\(String(describing: result.error))")
            let request = try #require(server.requests.first)
            #expect(request.body == PatternStream.bytes(count))
            #expect(request.header("Content-Length") == "\(count)")
            #expect(log.pieces == 10)
            // Each pause is waited out on a timer (never early), so after each piece the stream is
            // asked about once too soon, not thousands of times.
            #expect(log.empties >= 9 && log.empties <= 20, "asked \(log.empties) times while empty")
            #expect(elapsed >= .milliseconds(9 * 30))
        }
    }

    @Test func emptyPieceWithoutAWaitIsAskedAgainAtOnce() throws {
        // The default (`nil`) keeps the old behaviour: empty pieces are skipped.
        struct Gappy: HTTPClientBodyStream {
            var inner = PatternStream(count: 5000, pieceSize: 500)
            var gap = false
            mutating func next() throws -> ByteBuffer? {
                gap.toggle()
                return gap ? ByteBuffer() : try inner.next()
            }
        }
        try withClientAndServer(serving: RequestBodyIntegrationTests.echoServer()) { client, server in
            let result = run(client, try RequestBodyIntegrationTests.post("\(server.baseURL)/upload", .stream(length: 5000) { Gappy() }))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(server.requests.first?.body == PatternStream.bytes(5000))
        }
    }

    @Test func cancelWhileWaitingEndsTheRequestPromptly() throws {
        try withClientAndServer(serving: RequestBodyIntegrationTests.echoServer()) { client, server in
            let log = PaceLog()
            let delegate = RecordingDelegate()
            // Sends one piece, then waits 30 s: the cancel must not wait for the timer.
            let request = try RequestBodyIntegrationTests.post("\(server.baseURL)/upload", .stream(length: 2000) {
                PacedStream(inner: PatternStream(count: 2000, pieceSize: 1000), pause: .seconds(30), log: log)
            })
            let start = ContinuousClock.now
            let execution = client.execute(request, delegate: delegate)
            // Once the stream has given its first piece and is waiting, cancel.
            #expect(log.emptied.wait(timeout: .now() + .seconds(10)) == .success)
            #expect(log.pieces == 1)
            execution.cancel()
            #expect(delegate.wait(seconds: 10))
            #expect(delegate.error?.code == .cancelled, "\(String(describing: delegate.error))")
            #expect(ContinuousClock.now - start < .seconds(10))
            #expect(server.requests.isEmpty)
        }
    }
}
