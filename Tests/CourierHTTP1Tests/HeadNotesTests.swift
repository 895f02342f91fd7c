import CourierCore
import CourierHTTP1
import Testing

/// What the parser notes about a response head besides framing: whether a `Content-Encoding`
/// field is present (RFC 9110 §8.4), and the reason phrase as text, where the standard phrases
/// of the common codes are returned as literals. Every input is fed whole, split in two at every
/// byte and one byte at a time.
@Suite("Response head notes")
struct HeadNotesTests {
    struct Note: Equatable, CustomStringConvertible {
        var status: Int
        var hasContentEncoding: Bool
        var reason: String
        var otherReasonBytes: [UInt8]?
        var description: String { "\(status) ce=\(hasContentEncoding) \"\(reason)\" \(otherReasonBytes.map { "\($0)" } ?? "-")" }
    }

    static func notes(_ text: String) -> [Note] {
        notes(Array(text.utf8))
    }

    static func notes(_ input: [UInt8]) -> [Note] {
        expectSameForEveryFeeding(input) { pieces in
            var parser = HTTPResponseParser()
            var buffer = ByteBuffer()
            var found: [Note] = []
            func note(_ head: HTTPResponseHead) {
                let reason = head.reasonText
                found.append(Note(status: head.status, hasContentEncoding: head.hasContentEncoding,
                                  reason: reason.text, otherReasonBytes: reason.otherBytes))
            }
            do {
                for piece in pieces {
                    buffer.writeBytes(piece)
                    while case let event = try parser.next(&buffer), event != .needMoreData {
                        switch event {
                        case .head(let head), .informational(let head), .switchingProtocols(let head): note(head)
                        default: break
                        }
                    }
                }
            } catch {
                Issue.record("\(error)")
            }
            return found
        }
    }

    @Test("Content-Encoding is noted in any letter case, and no other name of its length is")
    func contentEncodingIsNoted() {
        for (name, expected) in [
            ("Content-Encoding", true), ("content-encoding", true), ("CONTENT-ENCODING", true), ("cOnTeNt-EnCoDiNg", true),
            // Sixteen bytes, sharing its first or last eight.
            ("Content-Language", false), ("Content-Location", false), ("X-Other-Encoding", false),
            ("Content-Encodinh", false), ("Content_Encoding", false),
            // One byte short or long.
            ("Content-Encodin", false), ("Content-Encodings", false),
        ] {
            let notes = Self.notes("HTTP/1.1 200 OK\r\nServer: x\r\n\(name): gzip\r\nContent-Length: 0\r\n\r\n")
            #expect(notes.map(\.hasContentEncoding) == [expected], "\(name)")
        }
        #expect(Self.notes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").map(\.hasContentEncoding) == [false])
        // An empty value, and the field last, after other fields.
        #expect(Self.notes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Encoding:\r\n\r\n").map(\.hasContentEncoding) == [true])
    }

    @Test("each head of a response has its own note: an interim head's field does not carry over")
    func eachHeadIsNotedOnItsOwn() {
        let notes = Self.notes(
            "HTTP/1.1 103 Early Hints\r\nContent-Encoding: gzip\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(notes.map(\.hasContentEncoding) == [true, false, true, false])
    }

    @Test("a standard reason phrase reads as that phrase, and any other as its bytes decoded")
    func reasons() {
        func reason(_ statusLine: [UInt8]) -> Note? {
            Self.notes(statusLine + Array("\r\nContent-Length: 0\r\n\r\n".utf8)).first
        }
        func reason(_ statusLine: String) -> Note? { reason(Array(statusLine.utf8)) }
        for (status, phrase) in [
            (200, "OK"), (201, "Created"), (204, "No Content"), (206, "Partial Content"), (301, "Moved Permanently"),
            (302, "Found"), (304, "Not Modified"), (400, "Bad Request"), (404, "Not Found"),
        ] {
            #expect(reason("HTTP/1.1 \(status) \(phrase)") == Note(status: status, hasContentEncoding: false, reason: phrase))
            // Another case, one byte less or more, and another code's phrase are read as sent.
            #expect(reason("HTTP/1.1 \(status) \(phrase.lowercased())")?.reason == phrase.lowercased())
            #expect(reason("HTTP/1.1 \(status) \(phrase.dropLast())")?.reason == String(phrase.dropLast()))
            #expect(reason("HTTP/1.1 \(status) \(phrase)!")?.reason == phrase + "!")
            #expect(reason("HTTP/1.1 500 \(phrase)")?.reason == phrase)
        }
        #expect(reason("HTTP/1.1 200 ")?.reason == "")
        #expect(reason("HTTP/1.1 200")?.reason == "")
        #expect(reason("HTTP/1.1 200 All good")?.reason == "All good")
        #expect(reason("HTTP/1.1 200 Très bien") == Note(status: 200, hasContentEncoding: false, reason: "Très bien"))
        // obs-text that is not UTF-8: ISO-8859-1 text, and the exact bytes beside it.
        let latin1 = Array("HTTP/1.1 200 O".utf8) + [0xCB]
        #expect(reason(latin1) == Note(status: 200, hasContentEncoding: false, reason: "OË", otherReasonBytes: [0x4F, 0xCB]))
    }
}
