import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// The response-head memory the connections of one loop share (`ResponseHeadRecycler`), driven
/// through state machines without sockets. Boxes are followed with weak references: a box that
/// was freed reads nil, so a new box at a freed one's address cannot pass for a reused one.
@Suite("HTTP1ConnectionStateMachine: response-head memory shared by a loop's connections")
struct ResponseHeadRecyclerTests {
    private static func harness(sharing recycler: ResponseHeadRecycler) -> ConnectionHarness {
        var h = ConnectionHarness()
        h.machine.headRecycler = recycler
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
        let recycler = ResponseHeadRecycler()
        var a = Self.harness(sharing: recycler)
        var b = Self.harness(sharing: recycler)
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
        let recycler = ResponseHeadRecycler()
        var a = Self.harness(sharing: recycler)
        var b = Self.harness(sharing: recycler)
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
        let recycler = ResponseHeadRecycler()
        let count = ResponseHeadRecycler.capacity + 2
        var connections = (0..<count).map { _ in Self.harness(sharing: recycler) }
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
