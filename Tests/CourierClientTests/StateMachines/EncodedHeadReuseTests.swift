import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// The connection machine sends a head with the same bytes as last time as the bytes it encoded
/// then; any difference in bytes — even between strings Swift calls equal — encodes anew.
@Suite("HTTP1ConnectionStateMachine: the same head again")
struct EncodedHeadReuseTests {
    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    /// The bytes of the write `head` starts, after one full cycle of `first` on the same machine.
    static func secondWrite(after first: HTTPRequestHead, _ head: HTTPRequestHead, host: String = "example.com",
                            body: HTTP1ConnectionStateMachine.RequestBodyKind = .none) -> String {
        var h = ConnectionHarness()
        _ = h.start(first)
        _ = h.receive(ok)
        let action = h.machine.startRequest(head: head, host: host, body: body)
        guard case .write(let bytes, _) = action else { return "not a write: \(action)" }
        return String(decoding: bytes.readableBytesArray(), as: UTF8.self)
    }

    @Test func theSameHeadIsSentAsTheSameBytes() throws {
        let head = ConnectionHarness.get("/a", headers: ["Accept": "*/*", "X-Long": String(repeating: "v", count: 40)])
        var h = ConnectionHarness()
        _ = h.start(head)
        _ = h.receive(Self.ok)
        _ = h.start(head)
        let text = String(decoding: h.written, as: UTF8.self)
        let one = "GET /a HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nX-Long: \(String(repeating: "v", count: 40))\r\n\r\n"
        #expect(text == one + one)
        #expect(h.machine.requestBytesSent == Int64(2 * one.utf8.count))
    }

    @Test func aHeadWithOtherBytesIsEncodedAnew() {
        let first = ConnectionHarness.get("/a", headers: ["X-Name": "caf\u{E9}"])
        // Canonically equivalent to the first value (Swift's == says equal), other bytes.
        let decomposed = ConnectionHarness.get("/a", headers: ["X-Name": "cafe\u{301}"])
        #expect(first == decomposed, "the premise: text equality cannot tell them apart")
        // Bytes, not `String.contains`, which compares canonical equivalence too.
        let sent = Array(Self.secondWrite(after: first, decomposed).utf8)
        let expected = Array("X-Name: cafe\u{301}\r\n".utf8)
        #expect(sent.indices.contains { sent[$0...].starts(with: expected) }, "the decomposed value's own bytes go out")

        #expect(Self.secondWrite(after: first, ConnectionHarness.get("/b", headers: ["X-Name": "caf\u{E9}"])).hasPrefix("GET /b "))
        #expect(Self.secondWrite(after: first, ConnectionHarness.get("/a", method: .HEAD, headers: ["X-Name": "caf\u{E9}"])).hasPrefix("HEAD /a "))
        #expect(Self.secondWrite(after: first, ConnectionHarness.get("/a", headers: ["x-name": "caf\u{E9}"])).contains("x-name: "))
        #expect(Self.secondWrite(after: first, ConnectionHarness.get("/a", headers: ["X-Name": "caf\u{E9}", "X-More": "1"])).contains("X-More: 1\r\n"))
        #expect(Self.secondWrite(after: first, first, host: "other.example").contains("Host: other.example\r\n"))
        #expect(Self.secondWrite(after: first, first, body: .knownLength(3)).contains("Content-Length: 3\r\n"))
        var http10 = first
        http10.version = .http1_0
        #expect(Self.secondWrite(after: first, http10).hasPrefix("GET /a HTTP/1.0\r\n"))
    }

    /// What the client passes as `source` (its request's box): a head from the same source is
    /// the caller's word that it is the same head, so its bytes go out without a comparison; from
    /// another source, or with none, the heads are compared as above.
    @Test func aHeadFromTheSameSourceIsTakenAsTheSameHead() {
        final class Source: Sendable {}
        let source = Source()
        let first = ConnectionHarness.get("/a")
        let second = ConnectionHarness.get("/b")
        func secondWrite(
            _ head: HTTPRequestHead, from other: Source?, body: HTTP1ConnectionStateMachine.RequestBodyKind = .none
        ) -> String {
            var h = ConnectionHarness()
            _ = h.start(first, source: source)
            _ = h.receive(Self.ok)
            guard case .write(let bytes, _) = h.start(head, body: body, source: other) else { return "not a write" }
            return String(decoding: bytes.readableBytesArray(), as: UTF8.self)
        }
        #expect(secondWrite(second, from: source).hasPrefix("GET /a "), "the same source: not compared")
        // The same source with a body measured anew (a file that grew): framed as it is now.
        let measured = secondWrite(first, from: source, body: .knownLength(3))
        #expect(measured.hasPrefix("GET /a ") && measured.contains("Content-Length: 3\r\n"))
        #expect(secondWrite(second, from: Source()).hasPrefix("GET /b "))
        #expect(secondWrite(second, from: nil).hasPrefix("GET /b "))
        #expect(secondWrite(first, from: Source()).hasPrefix("GET /a "))
        // Two heads built alike (two boxes) are compared byte for byte and found the same.
        #expect(Self.secondWrite(after: ConnectionHarness.get("/a"), ConnectionHarness.get("/a")).hasPrefix("GET /a "))
    }

    @Test func aHeadAskingToCloseAfterAReusedOneIsObeyed() {
        let close = ConnectionHarness.get("/", headers: ["Connection": "close"])
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get("/"))
        _ = h.receive(Self.ok)
        #expect(h.machine.isReusable)
        _ = h.start(close)
        _ = h.receive(Self.ok)
        #expect(!h.machine.isReusable, "Connection: close sent (RFC 9112 §9.6)")
    }

    @Test func bytesAreComparedNotText() {
        #expect("caf\u{E9}" == "cafe\u{301}")
        #expect(!"caf\u{E9}".hasSameUTF8(as: "cafe\u{301}"))
        #expect("abc".hasSameUTF8(as: "abc"))
        #expect(!"abc".hasSameUTF8(as: "abd"))
        #expect(!"abc".hasSameUTF8(as: "abcd"))
        #expect("".hasSameUTF8(as: ""))
        let long = String(repeating: "x", count: 100)
        #expect(long.hasSameUTF8(as: String(repeating: "x", count: 100)))
        #expect(!long.hasSameUTF8(as: String(repeating: "x", count: 99) + "y"))
        // A bridged-looking non-contiguous source is not possible on Linux; a substring's copy is native.
        #expect(String(long.dropFirst()).hasSameUTF8(as: String(repeating: "x", count: 99)))

        let fields: HTTPFields = ["A": "1", "B": "caf\u{E9}"]
        #expect(fields.hasSameBytes(as: fields))
        #expect(fields.hasSameBytes(as: ["A": "1", "B": "caf\u{E9}"]))
        #expect(!fields.hasSameBytes(as: ["A": "1", "B": "cafe\u{301}"]))
        #expect(!fields.hasSameBytes(as: ["A": "1"]))
        #expect(!fields.hasSameBytes(as: ["a": "1", "B": "caf\u{E9}"]))
    }
}
