@testable import Courier
import CourierCore
import FoundationEssentials
import Testing

/// `RequestBody.throttled(bytesPerSecond:)`: any body through the multipart token bucket, its
/// bytes and length unchanged, an empty piece with a wait where the bucket is dry.
@Suite struct ThrottledBodyTests {
    /// Every byte of `body`'s stream, asking again at once after an empty piece (the test does
    /// not wait the bucket out: the rates used here never run it dry, see the first test).
    private func drain(_ body: RequestBody) throws -> [UInt8] {
        guard case .stream(_, let makeStream) = body else { Issue.record("not a stream: \(body)"); return [] }
        var stream = makeStream()
        var bytes: [UInt8] = []
        while let piece = try stream.next() { bytes += piece.readableBytesArray() }
        return bytes
    }

    @Test func dataIsPacedWithAWaitInsteadOfASleep() throws {
        let data = Data((0..<10_000).map { MultipartStreamTests.patternByte($0) })
        let body = RequestBody.data(data).throttled(bytesPerSecond: 4000)
        #expect(body.length == 10_000)
        guard case .stream(let length, let makeStream) = body else {
            Issue.record("not a stream")
            return
        }
        #expect(length == 10_000)
        var stream = makeStream()
        // A quarter of a second's worth at once, then nothing and a wait of about 250 ms.
        let first = try #require(try stream.next())
        #expect(first.readableBytesArray() == Array(data.prefix(1000)))
        let clock = ContinuousClock()
        let start = clock.now
        let second = try #require(try stream.next())
        #expect(clock.now - start < .milliseconds(200), "returned at once, no sleep")
        #expect(second.readableBytes == 0)
        let wait = try #require(stream.waitAfterEmptyPiece)
        #expect(wait > .milliseconds(150) && wait <= .milliseconds(250))
    }

    @Test func aFileKeepsItsBytesAndLength() throws {
        let path = try MultipartStreamTests.makePatternFile(count: 5000)
        let body = RequestBody.file(URL(fileURLWithPath: path)).throttled(bytesPerSecond: 1 << 20)
        #expect(body.length == 5000)
        #expect(try drain(body) == (0..<5000).map { MultipartStreamTests.patternByte($0) })
    }

    @Test func aStreamOfKnownLengthIsPacedAndOneOfUnknownLengthIsLeftAsItIs() throws {
        struct Pieces: HTTPClientBodyStream {
            var left = 3
            mutating func next() throws -> ByteBuffer? {
                guard left > 0 else { return nil }
                left -= 1
                return ByteBuffer(string: "abc")
            }
        }
        let known = RequestBody.stream(length: 9) { Pieces() }.throttled(bytesPerSecond: 1 << 20)
        #expect(known.length == 9)
        #expect(try drain(known) == Array("abcabcabc".utf8))
        let unknown = RequestBody.stream(length: nil) { Pieces() }.throttled(bytesPerSecond: 1 << 20)
        guard case .stream(nil, _) = unknown else {
            Issue.record("an unknown length became known")
            return
        }
        #expect(try drain(unknown) == Array("abcabcabc".utf8))
    }
}
