import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// The response-head memory the connections of one loop share (`LoopHeadMemory`), driven
/// through state machines without sockets. Boxes are followed with weak references: a box that
/// was freed reads nil, so a new box at a freed one's address cannot pass for a reused one.
@Suite("HTTP1ConnectionStateMachine: response-head memory shared by a loop's connections")
struct LoopHeadMemoryTests {
    private static func harness(sharing memory: LoopHeadMemory) -> ConnectionHarness {
        var h = ConnectionHarness()
        h.machine.headMemory = memory
        return h
    }

    private static func response(_ tag: String, body: String = "ok") -> String {
        "HTTP/1.1 200 OK\r\nX-Tag: \(tag)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// The head of `actions` (the first `forwardHead`).
    private static func head(_ actions: [ConnAction]) -> HTTPClientResponseHead? {
        for case .forwardHead(let head, _) in actions { return head }
        return nil
    }

    @Test func aHeadLetGoIsRefilledByTheNextHeadOfAnotherConnection() throws {
        let memory = LoopHeadMemory()
        var a = Self.harness(sharing: memory)
        var b = Self.harness(sharing: memory)
        weak var firstBox: HTTPClientResponseHead.Storage?
        do {
            _ = a.start()
            let actions = a.receive(Self.response("a"))
            #expect(summary(actions) == ["head 200", "body ok", "end keepAlive"])
            let head = try #require(Self.head(actions))
            #expect(head.headers[first: "X-Tag"] == "a")
            firstBox = head.storage
        }
        // The consumer let go of the head: its box went to the loop, not away.
        #expect(firstBox != nil)
        _ = b.start()
        let actions = b.receive(Self.response("b"))
        #expect(summary(actions) == ["head 200", "body ok", "end keepAlive"])
        let head = try #require(Self.head(actions))
        #expect(head.storage === firstBox)
        #expect(head.headers[first: "X-Tag"] == "b")
        #expect(head.status == 200)
    }

    @Test func aHeadTheConsumerKeepsIsNeverOverwritten() throws {
        let memory = LoopHeadMemory()
        var a = Self.harness(sharing: memory)
        var b = Self.harness(sharing: memory)
        _ = a.start()
        let kept = try #require(Self.head(a.receive(Self.response("kept-by-the-consumer"))))
        _ = b.start()
        let next = try #require(Self.head(b.receive(Self.response("next"))))
        #expect(next.storage !== kept.storage)
        #expect(kept.headers[first: "X-Tag"] == "kept-by-the-consumer")
        #expect(next.headers[first: "X-Tag"] == "next")
        // And again on the first connection, whose own last head is still held.
        _ = a.start()
        let third = try #require(Self.head(a.receive(Self.response("third"))))
        #expect(third.storage !== kept.storage)
        #expect(kept.headers[first: "X-Tag"] == "kept-by-the-consumer")
        #expect(third.headers[first: "X-Tag"] == "third")
    }

    /// More responses in flight at once than the loop keeps slots for: the connections past
    /// the loop's room keep their own, so the next round makes no box at all.
    @Test func overlappingResponsesBeyondTheLoopsRoomMakeNoNewBoxes() throws {
        let memory = LoopHeadMemory()
        let count = LoopHeadMemory.capacity + 2
        var connections = (0..<count).map { _ in Self.harness(sharing: memory) }
        var firstRound: [Weak] = []
        for round in 0..<2 {
            var boxes: [Weak] = []
            // Every head arrives before any body ends; the second round starts with the
            // connections that kept their own slot, which they use rather than take the loop's.
            for i in round == 0 ? Array(connections.indices) : connections.indices.reversed() {
                _ = connections[i].start()
                let head = try #require(Self.head(connections[i].receive("HTTP/1.1 200 OK\r\nX-Tag: \(round)-\(i)\r\nContent-Length: 2\r\n\r\n")))
                #expect(head.headers[first: "X-Tag"] == "\(round)-\(i)")
                boxes.append(Weak(head.storage))
            }
            #expect(Set(boxes.map { ObjectIdentifier($0.box!) }).count == count)
            for i in connections.indices {
                #expect(summary(connections[i].receive("ok")) == ["body ok", "end keepAlive"])
            }
            if round == 0 {
                firstRound = boxes
            } else {
                // Every box of the second round is one of the first's, still alive.
                #expect(firstRound.allSatisfy { $0.box != nil })
                for box in boxes { #expect(firstRound.contains { $0.box === box.box }) }
            }
        }
    }

    /// A machine with no loop's recycler (the public initializer) keeps refilling its own box.
    @Test func withoutALoopAMachineRefillsItsOwnBox() throws {
        var h = ConnectionHarness()
        weak var firstBox: HTTPClientResponseHead.Storage?
        do {
            _ = h.start()
            firstBox = try #require(Self.head(h.receive(Self.response("1")))).storage
        }
        #expect(firstBox != nil)
        _ = h.start()
        let head = try #require(Self.head(h.receive(Self.response("2"))))
        #expect(head.storage === firstBox)
        #expect(head.headers[first: "X-Tag"] == "2")
    }

    private struct Weak {
        weak var box: HTTPClientResponseHead.Storage?
        init(_ box: HTTPClientResponseHead.Storage) { self.box = box }
    }
}

/// The request head a connection sends twice in a row from one source is sent by the loop's
/// other connections from the loop's copy; anything else is encoded as before.
@Suite("HTTP1ConnectionStateMachine: a repeated request head shared by a loop's connections")
struct RepeatedRequestHeadTests {
    private final class Source: Sendable {}

    private static func harness(sharing memory: LoopHeadMemory) -> ConnectionHarness {
        var h = ConnectionHarness()
        h.machine.headMemory = memory
        return h
    }

    /// The bytes a `write` action carries, and where they are.
    private static func written(_ action: ConnAction) -> (text: String, address: UnsafeRawPointer?)? {
        guard case .write(let bytes, _) = action else { return nil }
        return (String(decoding: bytes.readableBytesArray(), as: UTF8.self), bytes.withUnsafeReadableBytes { UnsafeRawPointer($0.baseAddress) })
    }

    /// Runs one request with `source` on `h` and completes its response.
    private static func exchange(
        _ h: inout ConnectionHarness, _ source: Source, body: HTTP1ConnectionStateMachine.RequestBodyKind = .none,
        keepable: Bool = true
    ) throws -> (text: String, address: UnsafeRawPointer?) {
        let sent = try #require(written(h.start(body: body, source: source, sourceIsKeepable: keepable)))
        if case .knownLength = body { _ = h.part("hello"); _ = h.end() }
        #expect(summary(h.receive("HTTP/1.1 204 No Content\r\n\r\n")) == ["head 204", "end keepAlive"])
        return sent
    }

    @Test func aHeadSentTwiceFromOneSourceIsSentFromTheLoopsCopy() throws {
        let memory = LoopHeadMemory()
        let source = Source()
        var a = Self.harness(sharing: memory)
        var b = Self.harness(sharing: memory)
        let expected = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"
        let first = try Self.exchange(&a, source)
        #expect(first.text == expected)
        // Sent once: not yet the loop's.
        #expect(memory.repeatedRequest == nil)
        let second = try Self.exchange(&a, source)
        #expect(second.text == expected)
        #expect(memory.repeatedRequest?.source === source)
        // Another connection sends the loop's copy: the same bytes, at the same address.
        let other = try Self.exchange(&b, source)
        #expect(other.text == expected)
        #expect(other.address == second.address)
        #expect(b.machine.requestBytesSent == Int64(expected.utf8.count))
    }

    @Test func anotherSourceOrFramingIsEncodedAfresh() throws {
        let memory = LoopHeadMemory()
        let source = Source()
        var a = Self.harness(sharing: memory)
        var b = Self.harness(sharing: memory)
        _ = try Self.exchange(&a, source)
        let shared = try Self.exchange(&a, source)
        #expect(memory.repeatedRequest != nil)
        // The same head from another source: this connection's own encoding.
        let fromOtherSource = try Self.exchange(&b, Source())
        #expect(fromOtherSource.text == "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(fromOtherSource.address != shared.address)
        // The same source with a body: another framing, so another head.
        var c = Self.harness(sharing: memory)
        let withBody = try Self.exchange(&c, source, body: .knownLength(5))
        #expect(withBody.text == "GET / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\n")
    }

    /// A head with a body is never kept by the loop, however often it is sent: its source (the
    /// request's box) holds the body, and the memory lasts as long as the pool.
    @Test func aHeadWithABodyIsNeverTheLoops() throws {
        let memory = LoopHeadMemory()
        let source = Source()
        var a = Self.harness(sharing: memory)
        let first = try Self.exchange(&a, source, body: .knownLength(5))
        let second = try Self.exchange(&a, source, body: .knownLength(5))
        #expect(second.text == "GET / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\n")
        // Still this connection's own copy, sent again without encoding.
        #expect(second.address == first.address)
        #expect(memory.repeatedRequest == nil)
    }

    /// A source the caller does not let be kept (a request with a redirect handler or a trust
    /// evaluator, which could hold the client) is never the loop's either.
    @Test func aSourceTheCallerDoesNotLetBeKeptIsNeverTheLoops() throws {
        let memory = LoopHeadMemory()
        let source = Source()
        var a = Self.harness(sharing: memory)
        let first = try Self.exchange(&a, source, keepable: false)
        let second = try Self.exchange(&a, source, keepable: false)
        #expect(second.text == "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(second.address == first.address, "still this connection's own copy")
        #expect(memory.repeatedRequest == nil)
    }

    /// A connection of another pool key (another route) has its own memory, so a repeated head
    /// of one route is never sent over another.
    @Test func eachPoolKeyHasItsOwnMemoryPerLoop() {
        let entry = ConnectionPool.Entry(
            key: PoolKey(origin: HTTPOrigin(scheme: .http, host: "example.com", port: 80), tls: nil, proxy: nil),
            machine: ConnectionPoolStateMachine(), loops: 3)
        #expect(entry.headMemories.count == 3)
        #expect(Set(entry.headMemories.map(ObjectIdentifier.init)).count == 3)
    }
}
