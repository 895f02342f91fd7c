import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Synchronization
import Testing

/// Request bodies from an `AsyncSequence` (`HTTPClientRequestBody.sequence`, issue 10 §4): a
/// task of their own feeds a bounded pipe, the connection is woken when a piece arrives.
@Suite(.serialized) struct RequestBodySequenceTests {
    /// An `AsyncStream` of the given pieces, each after `delay` (a slow producer) if given.
    static func pieces(_ pieces: [[UInt8]], delay: Duration? = nil, failAfter: Int? = nil) -> AsyncThrowingStream<ByteBuffer, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                for (index, piece) in pieces.enumerated() {
                    if let failAfter, index == failAfter {
                        continuation.finish(throwing: TestFailure("the producer failed"))
                        return
                    }
                    if let delay { try? await Task.sleep(for: delay) }
                    continuation.yield(ByteBuffer(bytes: piece))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    static func post(_ server: ScriptedServer, _ path: String, _ body: HTTPClientRequestBody) throws -> HTTPClientRequest {
        try HTTPClientRequest(method: .POST, url: "\(server.baseURL)\(path)", body: body)
    }

    @Test func withoutALengthTheBodyIsChunked() throws {
        try withClientAndServer { client, server in
            server.route("/up") { request, connection in try connection.respond(body: request.body) }
            let parts: [[UInt8]] = [Array("one ".utf8), Array("two ".utf8), Array("three".utf8)]
            let delegate = run(client, try Self.post(server, "/up", .sequence { Self.pieces(parts) }))
            #expect(delegate.error == nil, "\(String(describing: delegate.error))")
            #expect(delegate.bodyString == "one two three")
            let recorded = try #require(server.requests.first)
            #expect(recorded.wasChunked)
            #expect(recorded.body == Array("one two three".utf8))
        }
    }

    @Test func withALengthTheBodyHasContentLength() throws {
        try withClientAndServer { client, server in
            server.route("/up") { request, connection in try connection.respond(body: request.body) }
            let parts: [[UInt8]] = [Array("hello ".utf8), Array("world".utf8)]
            let delegate = run(client, try Self.post(server, "/up", .sequence(length: 11) { Self.pieces(parts) }))
            #expect(delegate.error == nil, "\(String(describing: delegate.error))")
            let recorded = try #require(server.requests.first)
            #expect(!recorded.wasChunked)
            #expect(recorded.headers.first { $0.name.lowercased() == "content-length" }?.value == "11")
            #expect(recorded.body == Array("hello world".utf8))
            #expect(delegate.events.contains(.bodySent(11)))
        }
    }

    @Test func byteCollectionsWork() throws {
        try withClientAndServer { client, server in
            server.route("/up") { request, connection in try connection.respond(body: request.body) }
            let stream = AsyncStream<[UInt8]> { continuation in
                continuation.yield([1, 2, 3])
                continuation.yield([4])
                continuation.finish()
            }
            let delegate = run(client, try Self.post(server, "/up", .sequence(bytes: { stream })))
            #expect(delegate.error == nil)
            #expect(server.requests.first?.body == [1, 2, 3, 4])
        }
    }

    /// The pipe runs empty between pieces: the connection must be woken by each arrival.
    @Test func aSlowProducerWakesTheConnection() throws {
        // `Task.sleep` makes Dispatch open its timer descriptor on first use: before the count.
        _ = AsyncCall { () async throws(Never) in try? await Task.sleep(for: .milliseconds(1)) }.wait()
        try withClientAndServer { client, server in
            server.route("/up") { request, connection in try connection.respond(body: request.body) }
            let parts = (0..<8).map { [UInt8](repeating: UInt8($0), count: 1000) }
            let delegate = run(client, try Self.post(server, "/up", .sequence { Self.pieces(parts, delay: .milliseconds(5)) }))
            #expect(delegate.error == nil, "\(String(describing: delegate.error))")
            #expect(server.requests.first?.body == parts.flatMap { $0 })
        }
    }

    /// Far more than the pipe holds: the producer waits for the socket.
    @Test func aLargeBodyGoesThroughTheBoundedPipe() throws {
        try withClientAndServer { client, server in
            server.route("/up") { request, connection in try connection.respond(body: "\(request.body.count)") }
            let payload = PatternStream.bytes(8 * 1024 * 1024)
            let parts = stride(from: 0, to: payload.count, by: 64 * 1024).map { Array(payload[$0..<min(payload.count, $0 + 64 * 1024)]) }
            let delegate = run(client, try Self.post(server, "/up", .sequence(length: Int64(payload.count)) { Self.pieces(parts) }), seconds: 60)
            #expect(delegate.error == nil, "\(String(describing: delegate.error))")
            #expect(delegate.bodyString == "\(payload.count)")
            #expect(server.requests.first?.body == payload)
        }
    }

    @Test func aThrowingProducerFailsTheRequestInTheSendPhase() throws {
        try withClientAndServer { client, server in
            server.route("/up") { request, connection in try connection.respond(body: "unexpected") }
            let parts: [[UInt8]] = [Array("start".utf8), Array("never".utf8)]
            let delegate = run(client, try Self.post(server, "/up", .sequence { Self.pieces(parts, failAfter: 1) }))
            let error = try #require(delegate.error)
            #expect(error.code == .invalidRequest)
            #expect(error.phase == .send)
            #expect("\(error)".contains("the producer failed"))
            expectAllConnectionsClosed(client, server)
        }
    }

    @Test(arguments: [5, 20]) func aLengthOtherThanDeclaredFailsCleanly(produced: Int) throws {
        try withClientAndServer { client, server in
            server.route("/up") { request, connection in try connection.respond(body: "unexpected") }
            let parts = [[UInt8](repeating: 9, count: produced)]
            let delegate = run(client, try Self.post(server, "/up", .sequence(length: 10) { Self.pieces(parts) }))
            let error = try #require(delegate.error)
            #expect(error.code == .bodyLengthMismatch)
            #expect(error.phase == .send)
            expectAllConnectionsClosed(client, server)
        }
    }

    @Test func cancellingWhileProducingStopsTheProducer() throws {
        try withClientAndServer { client, server in
            let received = Hold()
            server.route("/up", body: .manual) { _, connection in try received.wait(connection) }
            let producerStopped = TestEvent()
            let sentFirst = TestEvent()
            let body = HTTPClientRequestBody.sequence {
                AsyncStream<ByteBuffer> { continuation in
                    continuation.yield(ByteBuffer(string: "first"))
                    sentFirst.signal()
                    // No more pieces and no end: the connection waits for a wake-up.
                    continuation.onTermination = { _ in producerStopped.signal() }
                }
            }
            let (execution, delegate) = start(client, try Self.post(server, "/up", body))
            #expect(sentFirst.wait(timeout: .seconds(20)))
            #expect(received.arrived.wait())
            execution.cancel()
            #expect(delegate.wait())
            #expect(delegate.error?.code == .cancelled)
            #expect(producerStopped.wait(timeout: .seconds(20)), "the producer's task was not cancelled")
            received.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    /// A 307 sends the body again: `makeSequence` is called once per attempt.
    @Test func aRedirectReplaysTheSequence() throws {
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in try connection.respond(status: 307, headers: [("Location", "/to")], body: "") }
            server.route("/to") { request, connection in try connection.respond(body: request.body) }
            let made = Atomic<Int>(0)
            let body = HTTPClientRequestBody.sequence(length: 7) {
                made.add(1, ordering: .relaxed)
                return Self.pieces([Array("payload".utf8)])
            }
            let delegate = run(client, try Self.post(server, "/from", body))
            #expect(delegate.error == nil, "\(String(describing: delegate.error))")
            #expect(delegate.bodyString == "payload")
            #expect(made.load(ordering: .relaxed) == 2)
            #expect(server.requests.map(\.body) == [Array("payload".utf8), Array("payload".utf8)])
        }
    }
}
