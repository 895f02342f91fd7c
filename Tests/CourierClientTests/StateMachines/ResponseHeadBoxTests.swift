import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// The connection's machine refills the box of its last response head for the next head once
/// nothing else holds it. A head the consumer kept must never change.
@Suite("HTTPClientResponseHead: the connection reuses a head's box")
struct ResponseHeadBoxTests {
    static func respond(_ h: inout ConnectionHarness, _ response: String) -> HTTPClientResponseHead? {
        _ = h.start()
        guard case .forwardHead(let head, _)? = h.receive(response).first else { return nil }
        return head
    }

    static let first = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-First: one\r\n\r\n"
    static let second = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nX-Second: two\r\nX-More: three\r\n\r\n"

    @Test("a head let go of lends its box to the next head, which reads as its own response")
    func aDroppedHeadsBoxIsReused() throws {
        var h = ConnectionHarness()
        var first = try #require(Self.respond(&h, Self.first))
        let box = ObjectIdentifier(first.storage)
        #expect(first.status == 200 && first.headers[first: "X-First"] == "one")
        first = HTTPClientResponseHead(version: .http1_1, status: 1, reason: "", headers: [:], framing: .none, isKeepAlive: false)
        let second = try #require(Self.respond(&h, Self.second))
        #expect(ObjectIdentifier(second.storage) == box)
        #expect(second.status == 404 && second.reason == "Not Found")
        #expect(Array(second.headers.map(\.name)) == ["Content-Length", "X-Second", "X-More"])
        #expect(second.headers[first: "X-First"] == nil)
        #expect(second.contentEncodingAbsent)
        #expect(first.status == 1)
    }

    @Test("a head kept by its consumer keeps its box and its values; the next head gets a new box")
    func aKeptHeadIsLeftAlone() throws {
        var h = ConnectionHarness()
        let first = try #require(Self.respond(&h, Self.first))
        let copy = first
        let second = try #require(Self.respond(&h, Self.second))
        #expect(second.storage !== first.storage)
        #expect(first == copy)
        #expect(first.status == 200 && first.reason == "OK")
        #expect(Array(first.headers.map(\.name)) == ["Content-Length", "X-First"])
        #expect(first.headers[first: "X-First"] == "one")
        #expect(second.status == 404 && second.headers[first: "X-Second"] == "two")
        // Once both are dropped, a third head reuses the second's box.
        let secondBox = ObjectIdentifier(second.storage)
        _ = consume second
        let third = try #require(Self.respond(&h, Self.first))
        #expect(ObjectIdentifier(third.storage) == secondBox)
        #expect(third.status == 200 && third.headers[first: "X-First"] == "one")
        #expect(first.headers[first: "X-First"] == "one")
    }

    @Test("changing a copy of a head copies the box: the other copy and the next head are untouched")
    func changingACopyCopiesTheBox() throws {
        var h = ConnectionHarness()
        let first = try #require(Self.respond(&h, Self.first))
        var changed = first
        changed.status = 299
        try changed.headers.append(name: "X-Added", value: "yes")
        changed.undecodedContentCodings = ["br"]
        #expect(changed.storage !== first.storage)
        #expect(first.status == 200 && !first.headers.contains("X-Added") && first.undecodedContentCodings.isEmpty)
        #expect(first.contentEncodingAbsent && !changed.contentEncodingAbsent)
        #expect(changed.status == 299 && changed.headers[first: "X-Added"] == "yes")
        let second = try #require(Self.respond(&h, Self.second))
        #expect(second.status == 404 && second.undecodedContentCodings.isEmpty)
        #expect(first.status == 200 && changed.status == 299)
    }

    @Test("a head with an obs-text reason keeps its bytes through a refilled box")
    func reasonBytesSurviveReuse() throws {
        var h = ConnectionHarness()
        _ = h.start()
        let latin1: [UInt8] = Array("HTTP/1.1 200 O".utf8) + [0xCB] + Array("\r\nContent-Length: 0\r\n\r\n".utf8)
        guard case .forwardHead(var head, _)? = h.receive(latin1).first else { Issue.record("no head"); return }
        #expect(head.reason == "OË" && head.reasonBytes == [0x4F, 0xCB])
        let box = ObjectIdentifier(head.storage)
        head = HTTPClientResponseHead(version: .http1_1, status: 1, reason: "", headers: [:], framing: .none, isKeepAlive: false)
        let next = try #require(Self.respond(&h, Self.first))
        #expect(ObjectIdentifier(next.storage) == box)
        #expect(next.reason == "OK" && next.reasonBytes == Array("OK".utf8))
        #expect(head.status == 1)
    }
}
