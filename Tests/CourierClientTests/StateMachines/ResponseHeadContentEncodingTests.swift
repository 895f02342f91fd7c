import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// The client's response head carries the parser's note that no `Content-Encoding` field is
/// present (RFC 9110 §8.4), so the execution skips searching the names for one. The note must
/// never claim an absence that is not true.
@Suite("HTTPClientResponseHead: the Content-Encoding note")
struct ResponseHeadContentEncodingTests {
    static func head(_ response: String) -> HTTPClientResponseHead? {
        var h = ConnectionHarness()
        _ = h.start()
        guard case .forwardHead(let head, _)? = h.receive(response).first else { return nil }
        return head
    }

    @Test("a parsed head without the field says so; with it, or made by hand, it does not")
    func noteFollowsTheFields() throws {
        let without = try #require(Self.head("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-A: b\r\n\r\n"))
        #expect(without.contentEncodingAbsent)
        #expect(!without.headers.contains("Content-Encoding"))

        let with = try #require(Self.head("HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\nContent-Length: 0\r\n\r\n"))
        #expect(!with.contentEncodingAbsent)
        #expect(with.headers.values(for: "Content-Encoding") == ["gzip"])

        let byHand = HTTPClientResponseHead(
            version: .http1_1, status: 200, reason: "OK", headers: ["X-A": "b"], framing: .contentLength(0), isKeepAlive: true)
        #expect(!byHand.contentEncodingAbsent)
    }

    @Test("changing the fields drops the note, whichever way they are changed")
    func changingTheFieldsDropsTheNote() throws {
        let parsed = try #require(Self.head("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        var appended = parsed
        try appended.headers.append(name: "Content-Encoding", value: "gzip")
        #expect(!appended.contentEncodingAbsent)
        #expect(appended.headers.contains("Content-Encoding"))

        var replaced = parsed
        replaced.headers = ["Content-Encoding": "br"]
        #expect(!replaced.contentEncodingAbsent)

        // Other members leave it as it was.
        var other = parsed
        other.undecodedContentCodings = ["br"]
        other.isKeepAlive = false
        #expect(other.contentEncodingAbsent)
    }

    @Test("the note takes no part in equality or hashing")
    func noteIsNotPartOfEquality() throws {
        let parsed = try #require(Self.head("HTTP/1.1 200 OK\r\nX-A: b\r\nContent-Length: 0\r\n\r\n"))
        let byHand = HTTPClientResponseHead(
            version: parsed.version, status: parsed.status, reason: parsed.reason, headers: parsed.headers,
            framing: parsed.framing, isKeepAlive: parsed.isKeepAlive)
        #expect(parsed.contentEncodingAbsent && !byHand.contentEncodingAbsent)
        #expect(parsed == byHand)
        #expect(parsed.hashValue == byHand.hashValue)
        var changed = byHand
        changed.status = 201
        #expect(parsed != changed)
        changed = byHand
        changed.undecodedContentCodings = ["gzip"]
        #expect(parsed != changed)
        changed = byHand
        changed.reasonBytes = [0x4F, 0xCB]
        #expect(parsed != changed)
    }
}
