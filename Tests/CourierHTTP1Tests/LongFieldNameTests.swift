import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

/// Field names long enough for the scanner's four-bytes-at-a-time name loop and its byte loop
/// after it, with one notable byte at every position: the edges of the letters, digits and `-`
/// (`0`, `9`, `A`, `Z`, `a`, `z` and their neighbours), the other `tchar`s, the colon,
/// whitespace, controls and obs-text. Same rules as the single-byte "field-name bytes" test, fed
/// the same three ways, and every byte value at each of the first 17 positions. (A sixteen-byte
/// vector pass over names was tried twice and measured: typical names are too short for it to
/// pay. The second try, all lane arithmetic, cost 38 instructions a name against the loops' 49:
/// 91 a response, within callgrind's run-to-run spread.)
@Suite("Long field names")
struct LongFieldNameTests {
    static let bytes: [UInt8] = [
        0x00, 0x09, 0x0A, 0x0D, 0x20, 0x21, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x39, 0x3A, 0x3B, 0x40, 0x41,
        0x5A, 0x5B, 0x5E, 0x5F, 0x60, 0x61, 0x7A, 0x7B, 0x7C, 0x7E, 0x7F, 0x80, 0xC1, 0xDA, 0xFF,
    ]

    @Test("one notable byte at every position of a 40-byte name", arguments: bytes, 0..<40)
    func notableByte(_ b: UInt8, _ position: Int) {
        Self.expectNameRules(b, at: position)
    }

    /// Every byte value where the four-byte loop's first groups and a 16-byte window would read.
    @Test("every byte at each of the first 17 positions", arguments: 0..<17)
    func everyByteNearTheStart(_ position: Int) {
        for b in CharacterClassTests.allBytes { Self.expectNameRules(b, at: position) }
    }

    static func expectNameRules(_ b: UInt8, at position: Int) {
        let (log, name, offset) = LongFieldValueTests.parse(
            b, at: position, in: "n", after: "HTTP/1.1 200 OK\r\nX", before: "Y: v\r\nContent-Length: 0\r\n\r\n")
        if CharacterClassTests.tchar.contains(b) {
            #expect(log.errors.isEmpty, "\(log)")
            #expect(log.lines.contains("field \"X\(Fixture.escape(name))Y\" \"v\""), "\(log)")
        } else if b == UInt8(ascii: ":") {
            let value = Array(name[(position + 1)...]) + Array("Y: v".utf8)
            #expect(log.errors.isEmpty, "\(log)")
            #expect(log.lines.contains("field \"X\(Fixture.escape(Array(name[..<position])))\" \"\(Fixture.escape(value))\""), "\(log)")
        } else if b == UInt8(ascii: "\n") {
            #expect(log.errors == [HTTPParserError(.bareLF, offset: offset)], "\(log)")
        } else {
            // Whitespace too: the name ends there and no colon follows it.
            #expect(log.errors == [HTTPParserError(.invalidFieldName, offset: offset)], "\(log)")
        }
    }
}
