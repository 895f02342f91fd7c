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

    /// A 40-byte run of `filler` with `b` at `position`, between `prefix` and `suffix`, parsed
    /// whole, split at every byte and one byte at a time (the same log each way): the log, the
    /// run, and the stream offset of the notable byte.
    static func parse(
        _ b: UInt8, at position: Int, in filler: Character, after prefix: String, before suffix: String
    ) -> (log: EventLog, run: [UInt8], offset: Int) {
        var run = [UInt8](repeating: filler.asciiValue!, count: 40)
        run[position] = b
        let input = Array(prefix.utf8) + run + Array(suffix.utf8)
        var fixture = Fixture(name: "long line")
        fixture.input = input
        let log = expectSameForEveryFeeding(input) { runResponseParser(fixture, $0) }
        return (log, run, prefix.utf8.count + position)
    }

    @Test("one notable byte at every position of a 40-byte value", arguments: bytes, 0..<40)
    func notableByte(_ b: UInt8, _ position: Int) {
        let (log, value, offset) = Self.parse(
            b, at: position, in: "a", after: "HTTP/1.1 200 OK\r\nA: x", before: "y\r\nContent-Length: 0\r\n\r\n")
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
