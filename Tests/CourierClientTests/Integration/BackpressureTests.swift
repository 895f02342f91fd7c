#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Synchronization
import Testing

/// A delegate that pauses after the first body part and signals each part.
final class PausingDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the client calls it one call at a time; the test reads `parts` and `bytes`
    // through the mutex, and the rest only after `ended` was signalled.
    let state = Mutex((parts: 0, bytes: 0))
    private(set) var body: [UInt8] = []
    private(set) var error: ClientError?
    private(set) var finished = false
    let firstPart = TestEvent()
    let secondPart = TestEvent()
    let ended = TestEvent()
    private var paused = false

    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {}

    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        body += part.readableBytesArray()
        let parts = state.withLock { state -> Int in
            state.parts += 1
            state.bytes += part.readableBytes
            return state.parts
        }
        if parts == 1 {
            firstPart.signal()
            return .pause
        }
        secondPart.signal()
        return .more
    }

    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        finished = true
        ended.signal()
    }

    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        self.error = error
        ended.signal()
    }
}

/// `.pause` from `didReceiveBodyPart` stops delivery until `resumeReading()`.
@Suite(.serialized) struct BackpressureTests {
    static let size = 8 * 1024 * 1024

    /// A recognisable pattern, so order and completeness can be checked byte for byte.
    static let payload: [UInt8] = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }

    enum Framing: CaseIterable, Sendable { case contentLength, chunked, untilClose }

    @Test(arguments: Framing.allCases, [false, true]) func pauseUntilResume(framing: Framing, tls: Bool) throws {
        try withClientAndServer(configure: { $0.tls = testTLS }, tls: tls ? ServerTLS() : nil) { client, server in
            let payload = Self.payload
            server.route("/big") { _, connection in
                switch framing {
                case .chunked:
                    try connection.sendChunkedHead()
                    var offset = 0
                    while offset < payload.count {
                        let end = min(payload.count, offset + 256 * 1024)
                        try connection.sendChunk(Array(payload[offset..<end]))
                        offset = end
                    }
                    try connection.endChunks()
                case .contentLength:
                    try connection.respond(status: 200, body: payload)
                case .untilClose:
                    // RFC 9112 §6.3 ¶8: no framing, the body ends with the connection (and the
                    // EOF may well arrive while the client is paused).
                    try connection.sendHead(status: 200, headers: [("Connection", "close")])
                    try connection.send(payload)
                    connection.close()
                }
            }
            let delegate = PausingDelegate()
            let execution = client.execute(try get("\(server.baseURL)/big"), delegate: delegate)
            #expect(delegate.firstPart.wait())
            // Paused: no further part may arrive. (Waiting for something that must not happen
            // needs a bound; 300 ms is plenty for a loopback socket to deliver more.)
            #expect(!delegate.secondPart.wait(timeout: .milliseconds(300)))
            settle(client)
            #expect(delegate.state.withLock { $0.parts } == 1)
            #expect(!delegate.ended.isSignaled)
            execution.resumeReading()
            #expect(delegate.ended.wait(timeout: .seconds(20)))
            #expect(delegate.error == nil, "\(String(describing: delegate.error))")
            #expect(delegate.finished)
            #expect(delegate.state.withLock { $0.bytes } == Self.size)
            #expect(delegate.body == payload)
            #expect(delegate.state.withLock { $0.parts } > 1)
            // The connection is still good after a paused response (unless the body ended it).
            let next = run(client, try get("\(server.baseURL)/big"))
            #expect(next.body.count == Self.size)
            #expect(next.metrics?.reusedConnection == (framing != .untilClose))
        }
    }

    /// While paused, the end of the response (FIN or RST) may already be waiting on the socket.
    /// The loop must not spin on that readiness until the delegate resumes: it stays idle.
    @Test(arguments: [false, true]) func pausedConnectionWithPeerGoneDoesNotSpin(reset: Bool) throws {
        try withClientAndServer { client, server in
            // Small enough for the socket buffers to hold it all, so the FIN (or RST) arrives while the
            // client is paused.
            let payload = Array(Self.payload.prefix(64 * 1024))
            let sent = TestEvent()
            server.route("/gone") { _, connection in
                try connection.sendHead(status: 200, headers: [("Connection", "close")])
                try connection.send(payload)
                sent.signal()
                if reset { connection.reset() } else { connection.close() }
            }
            let delegate = PausingDelegate()
            let execution = client.execute(try get("\(server.baseURL)/gone"), delegate: delegate)
            #expect(delegate.firstPart.wait())
            #expect(sent.wait())
            #expect(server.waitForAllConnectionsClosed(timeout: .seconds(5)))
            let before = loopCPUTime(client)
            #expect(!delegate.secondPart.wait(timeout: .milliseconds(300)))
            let used = loopCPUTime(client) - before
            #expect(used < .milliseconds(100), "the loops used \(used) of CPU in 300 ms while paused")
            execution.resumeReading()
            #expect(delegate.ended.wait(timeout: .seconds(10)))
            if reset {
                // The RST may destroy unread data: the body ends early or completely.
                #expect(delegate.finished || delegate.error != nil)
            } else {
                #expect(delegate.error == nil, "\(String(describing: delegate.error))")
                #expect(delegate.body == payload)
            }
            settle(client)
            #expect(client.openConnectionCount == 0)
        }
    }

    /// When reading resumes, the whole rest of the body is already waiting and nothing more will
    /// arrive: more than one turn's four reads take (at most 8 + 16 + 32 + 64 KiB after the
    /// first part), so the connection must come back for the rest without new bytes to wake it
    /// (level-triggered, the selector reports what is still waiting; an edge-triggered
    /// registration, tried in the thirteenth performance pass, needed a job of its own for it).
    /// A Unix-domain socket: the server's writes go straight into the client's receive queue, so
    /// the whole body is there before the client resumes (over TCP the window would hold part
    /// of it back).
    @Test func aPausedBodyAlreadyWholeInTheSocketIsReadToTheEndAfterResuming() throws {
        try withClient { client in
            let path = ScratchDirectory.base + "/courier-test-\(getpid())-edge.sock"
            let server = try ScriptedServer(address: .unix(path))
            defer { server.shutdown() }
            let payload = Array(Self.payload.prefix(160 * 1024))
            let sent = TestEvent()
            server.route("/whole") { _, connection in
                try connection.respond(status: 200, body: payload)
                sent.signal()
            }
            let socketPath = try #require(server.unixPath)
            let delegate = PausingDelegate()
            let execution = client.execute(try get("http+unix://\(percentEncodedHost(socketPath))/whole"), delegate: delegate)
            #expect(delegate.firstPart.wait())
            #expect(sent.wait(timeout: .seconds(10)), "the socket's buffers could not hold the body")
            let waiting = payload.count - delegate.state.withLock { $0.bytes }
            #expect(waiting > 120 * 1024, "only \(waiting) bytes were left for after the pause")
            execution.resumeReading()
            #expect(delegate.ended.wait(timeout: .seconds(10)))
            #expect(delegate.error == nil, "\(String(describing: delegate.error))")
            let whole = delegate.body == payload
            #expect(whole, "\(delegate.body.count) of \(payload.count) bytes, or not in order")
        }
    }

    /// Resuming while not paused, or twice, is harmless.
    @Test func resumeWithoutPause() throws {
        try withClientAndServer { client, server in
            server.route("/x") { _, connection in try connection.respond(status: 200, body: "x") }
            let (execution, delegate) = start(client, try get("\(server.baseURL)/x"))
            execution.resumeReading()
            execution.resumeReading()
            #expect(delegate.wait())
            execution.resumeReading()
            settle(client)
            #expect(delegate.events == [.headSent, .head(200), .body(1), .finished])
        }
    }
}
