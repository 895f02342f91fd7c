import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

/// Character classes checked over all 256 byte values, against oracles written from the RFC text
/// rather than from the parser's tables. Every input is fed three ways.
@Suite("Character classes over all byte values")
struct CharacterClassTests {
    /// RFC 9110 §5.6.2: tchar.
    static let tchar = Set(Array("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8))
    /// RFC 9110 §5.5: field-vchar / SP / HTAB (obs-text is 0x80-0xFF).
    static func isFieldContent(_ b: UInt8) -> Bool { b == 0x09 || b == 0x20 || (0x21...0x7E).contains(b) || b >= 0x80 }
    static let hexDigits = Set(Array("0123456789abcdefABCDEF".utf8))
    static let allBytes = (0...255).map { UInt8($0) }

    func parse(_ input: [UInt8], _ configure: (inout Fixture) -> Void = { _ in }) -> EventLog {
        var fixture = Fixture(name: "byte")
        configure(&fixture)
        fixture.input = input
        return expectSameForEveryFeeding(input) { runResponseParser(fixture, $0) }
    }

    @Test("field-name bytes", arguments: allBytes)
    func fieldNameByte(_ b: UInt8) {
        let input = Array("HTTP/1.1 200 OK\r\nX".utf8) + [b] + Array("Y: v\r\nContent-Length: 0\r\n\r\n".utf8)
        let log = parse(input)
        if Self.tchar.contains(b) {
            #expect(log.errors.isEmpty)
            #expect(log.lines.contains("field \"X\(Fixture.escape([b]))Y\" \"v\""))
        } else if b == UInt8(ascii: ":") {
            #expect(log.lines.contains("field \"X\" \"Y: v\""))
        } else if b == UInt8(ascii: "\n") {
            #expect(log.errors.map(\.code) == [.bareLF])
        } else {
            #expect(log.errors == [HTTPParserError(.invalidFieldName, offset: 18)], "\(log)")
        }
    }

    @Test("field-value bytes", arguments: allBytes)
    func fieldValueByte(_ b: UInt8) {
        let input = Array("HTTP/1.1 200 OK\r\nA: x".utf8) + [b] + Array("y\r\nContent-Length: 0\r\n\r\n".utf8)
        let log = parse(input)
        if Self.isFieldContent(b) {
            #expect(log.errors.isEmpty)
            #expect(log.lines.contains("field \"A\" \"x\(Fixture.escape([b]))y\""))
        } else if b == UInt8(ascii: "\n") {
            #expect(log.errors == [HTTPParserError(.bareLF, offset: 21)])
        } else {
            #expect(log.errors == [HTTPParserError(.invalidFieldValue, offset: 21)], "\(log)")
        }
    }

    @Test("reason-phrase bytes", arguments: allBytes)
    func reasonByte(_ b: UInt8) {
        let input = Array("HTTP/1.1 200 O".utf8) + [b] + Array("K\r\nContent-Length: 0\r\n\r\n".utf8)
        let log = parse(input)
        if Self.isFieldContent(b) {
            #expect(log.errors.isEmpty)
        } else if b == UInt8(ascii: "\n") {
            #expect(log.errors == [HTTPParserError(.bareLF, offset: 14)])
        } else {
            #expect(log.errors == [HTTPParserError(.invalidReasonPhrase, offset: 14)], "\(log)")
        }
    }

    @Test("status-code bytes", arguments: allBytes)
    func statusByte(_ b: UInt8) {
        let input = Array("HTTP/1.1 2".utf8) + [b] + Array("4 OK\r\n\r\n".utf8)
        let log = parse(input)
        if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) {
            #expect(log.errors.isEmpty)
            #expect(log.lines.first?.hasPrefix("head 1.1 2\(Character(Unicode.Scalar(b)))4 ") == true)
        } else {
            // A bare LF here ends a line that is already invalid: the status code is cut short,
            // and that (not the line ending) is the first offending byte.
            #expect(log.errors == [HTTPParserError(.invalidStatusCode, offset: 10)], "\(log)")
        }
    }

    @Test("chunk-size bytes", arguments: allBytes)
    func chunkSizeByte(_ b: UInt8) {
        let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let value = Self.hexDigits.contains(b) ? Int(String(UnicodeScalar(b)), radix: 16)! : 0
        let input = head + [b] + Array("\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "z"), count: value)
            + Array((value > 0 ? "\r\n0\r\n\r\n" : "\r\n").utf8)
        let log = parse(input)
        if Self.hexDigits.contains(b) {
            #expect(log.errors.isEmpty, "\(log)")
            #expect(log.lines.last == "end")
        } else {
            // A size line needs at least one digit, so even a bare LF is a bad size here.
            #expect(log.errors == [HTTPParserError(.invalidChunkSize, offset: head.count)], "\(log)")
        }
    }

    @Test("method bytes", arguments: allBytes)
    func methodByte(_ b: UInt8) {
        let input = Array("G".utf8) + [b] + Array("T / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        var fixture = Fixture(name: "method")
        fixture.input = input
        let log = expectSameForEveryFeeding(input) { runRequestParser(fixture, $0) }
        if Self.tchar.contains(b) {
            #expect(log.errors.isEmpty, "\(log)")
        } else {
            // A bare LF is judged as the byte of the line it ends (the first offending byte).
            #expect(log.errors.map(\.code) == [b == 0x20 ? .invalidVersion : .invalidMethod], "\(log)")
        }
    }

    @Test("request-target bytes", arguments: allBytes)
    func targetByte(_ b: UInt8) {
        let input = Array("GET /a".utf8) + [b] + Array("b HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        var fixture = Fixture(name: "target")
        fixture.input = input
        let log = expectSameForEveryFeeding(input) { runRequestParser(fixture, $0) }
        if b > 0x20 && b != 0x7F {
            #expect(log.errors.isEmpty, "\(log)")
        } else if b == 0x20 {
            #expect(log.errors.map(\.code) == [.invalidVersion])
        } else {
            // A bare LF included: the line it would end is already invalid at that byte.
            #expect(log.errors == [HTTPParserError(.invalidRequestTarget, offset: 6)], "\(log)")
        }
    }
}
