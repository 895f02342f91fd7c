import CourierCore
import CourierHTTP1
import Testing

/// The parser joins whole chunks that are already in a buffer it owns into one body event, and
/// leaves a shared buffer untouched.
@Suite("Joining chunks in place")
struct ChunkJoiningTests {
    static let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n2\r\nhi\r\n0\r\n\r\n".utf8)

    func bodyEvents(_ buffer: inout ByteBuffer) throws -> [[UInt8]] {
        var parser = HTTPResponseParser()
        var bodies: [[UInt8]] = []
        loop: while true {
            switch try parser.next(&buffer) {
            case .body(let b): bodies.append(b.readableBytesArray())
            case .end: break loop
            case .needMoreData: Issue.record("incomplete"); break loop
            default: continue
            }
        }
        return bodies
    }

    @Test func uniqueBufferGivesOneBodyEvent() throws {
        var buffer = ByteBuffer(bytes: Self.response)
        #expect(try bodyEvents(&buffer) == [Array("abcdefghi".utf8)])
    }

    @Test func sharedBufferGivesOneEventPerChunkAndIsNotWritten() throws {
        var buffer = ByteBuffer(bytes: Self.response)
        let copy = buffer
        #expect(try bodyEvents(&buffer) == [Array("abc".utf8), Array("defg".utf8), Array("hi".utf8)])
        #expect(copy.readableBytesArray() == Self.response)
    }

    @Test func chunkWithExtensionIsNotJoined() throws {
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n1;x=y\r\nb\r\n1\r\nc\r\n0\r\n\r\n")
        #expect(try bodyEvents(&buffer) == [Array("a".utf8), Array("bc".utf8)])
    }
}
