import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

/// Field values long enough for the scanner's vector and word paths (16 and 8 bytes at a time, with
/// an overlapping last load), with one notable byte at every position. Same rules as the
/// single-byte "field-value bytes" test, fed the same three ways.
@Suite("Long field values")
struct LongFieldValueTests {
    static let bytes: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0xFF]

    @Test("one notable byte at every position of a 40-byte value", arguments: bytes, 0..<40)
    func notableByte(_ b: UInt8, _ position: Int) {
        var value = [UInt8](repeating: UInt8(ascii: "a"), count: 40)
        value[position] = b
        let prefix = Array("HTTP/1.1 200 OK\r\nA: x".utf8)
        let input = prefix + value + Array("y\r\nContent-Length: 0\r\n\r\n".utf8)
        var fixture = Fixture(name: "long value")
        fixture.input = input
        let log = expectSameForEveryFeeding(input) { runResponseParser(fixture, $0) }
        let offset = prefix.count + position
        if CharacterClassTests.isFieldContent(b) {
            #expect(log.errors.isEmpty, "\(log)")
            #expect(log.lines.contains("field \"A\" \"x\(Fixture.escape(value))y\""), "\(log)")
        } else if b == UInt8(ascii: "\n") {
            #expect(log.errors == [HTTPParserError(.bareLF, offset: offset)], "\(log)")
        } else {
            #expect(log.errors == [HTTPParserError(.invalidFieldValue, offset: offset)], "\(log)")
        }
    }
}
