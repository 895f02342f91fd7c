@testable import Courier
import CourierCore
import FoundationEssentials
import Glibc
import Synchronization
import Testing

/// The body stream: bounded pieces for large files, size checks, stream parts of the wrong
/// length, and the token bucket behind throttling.
@Suite struct MultipartStreamTests {
    static func patternByte(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: i &* 131 &+ i >> 13) }

    /// Writes a file of `count` pattern bytes in 1 MiB blocks (never the whole file in memory).
    static func makePatternFile(count: Int) throws -> String {
        let path = multipartTemporaryPath("large.bin")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CourierError(.fileWriteFailed, detail: "open") }
        defer { close(fd) }
        var offset = 0
        while offset < count {
            let n = min(1 << 20, count - offset)
            let block = (offset..<offset + n).map(patternByte)
            let written = block.withUnsafeBytes { write(fd, $0.baseAddress!, n) }
            guard written == n else { throw CourierError(.fileWriteFailed, detail: "write") }
            offset += n
        }
        return path
    }

    @Test func twentyMebibyteFileIsStreamedInBoundedPieces() throws {
        let count = 20 << 20
        let path = try Self.makePatternFile(count: count)
        defer { unlink(path) }
        let form = try MultipartFixtures.form()
        try form.appendPart(data: Data("before".utf8), name: "a")
        try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "big", fileName: "big.bin", mimeType: "application/octet-stream")
        try form.appendPart(data: Data("after".utf8), name: "b")
        let prefix = [UInt8](("--\(MultipartFixtures.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nbefore"
            + "\r\n--\(MultipartFixtures.boundary)\r\nContent-Disposition: form-data; name=\"big\"; filename=\"big.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n").utf8)
        let suffix = [UInt8](("\r\n--\(MultipartFixtures.boundary)\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nafter"
            + "\r\n--\(MultipartFixtures.boundary)--\r\n").utf8)
        #expect(form.contentLength == Int64(prefix.count + count + suffix.count))

        guard case .stream(let length, let makeStream) = form.makeBody() else { Issue.record("not a stream"); return }
        #expect(length == form.contentLength)
        var stream = makeStream()
        // Checked as it goes: only one piece is held at a time.
        var position = 0
        var mismatches = 0
        var pieces = 0
        while let piece = try stream.next() {
            pieces += 1
            #expect(piece.readableBytes <= MultipartFormData.pieceSize)
            #expect(piece.readableBytes > 0)
            piece.withUnsafeReadableBytes { bytes in
                for (i, byte) in bytes.enumerated() {
                    let at = position + i
                    let expected: UInt8
                    if at < prefix.count { expected = prefix[at] }
                    else if at < prefix.count + count { expected = Self.patternByte(at - prefix.count) }
                    else { expected = suffix[at - prefix.count - count] }
                    if byte != expected { mismatches += 1 }
                }
            }
            position += piece.readableBytes
        }
        #expect(mismatches == 0)
        #expect(Int64(position) == form.contentLength)
        #expect(pieces >= count / MultipartFormData.pieceSize)
    }

    @Test func fileThatShrankAfterAppendFailsTheStream() throws {
        let path = try makeMultipartTemporaryFile([UInt8](repeating: 7, count: 1000))
        defer { unlink(path) }
        let form = try MultipartFixtures.form()
        try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "f")
        let body = form.makeBody()
        truncate(path, 10)
        do {
            _ = try drain(body)
            Issue.record("a shrunk file was sent")
        } catch let error as CourierError {
            #expect(error.code == .bodyFileUnreadable)
            #expect(error.phase == .send)
        }
    }

    @Test func fileThatGrewAfterAppendFailsTheStream() throws {
        let path = try makeMultipartTemporaryFile([UInt8](repeating: 7, count: 1000))
        defer { unlink(path) }
        let form = try MultipartFixtures.form()
        try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "f")
        let body = form.makeBody()
        truncate(path, 5000)
        #expect(throws: CourierError.self) { _ = try drain(body) }
    }

    @Test func fileThatChangedSizeWhileBeingReadFailsTheStream() throws {
        let path = try makeMultipartTemporaryFile([UInt8](repeating: 7, count: 200_000))
        defer { unlink(path) }
        let form = try MultipartFixtures.form()
        try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "f")
        var stream = form.makeStream()
        _ = try stream.next()  // framing and headers
        _ = try stream.next()  // the first 64 KiB of the file
        truncate(path, 100_000)
        #expect(throws: CourierError.self) { while try stream.next() != nil {} }
    }

    @Test func fileRemovedAfterAppendFailsTheStream() throws {
        let path = try makeMultipartTemporaryFile([1, 2, 3])
        let form = try MultipartFixtures.form()
        try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "f")
        unlink(path)
        #expect(throws: CourierError.self) { _ = try drain(form.makeBody()) }
    }

    @Test func streamPartShorterOrLongerThanDeclaredFails() throws {
        for (declared, actual) in [(1000, 999), (1000, 1001), (0, 1)] {
            let form = try MultipartFixtures.form()
            let content = [UInt8](repeating: 0x41, count: actual)
            try form.appendPart(stream: { BytesStream(content) }, length: Int64(declared), name: "s", fileName: "s.bin", mimeType: "application/octet-stream")
            #expect(throws: CourierError.self, "declared \(declared), produced \(actual)") { _ = try drain(form.makeBody()) }
        }
    }

    @Test func largeInnerPiecesAreSplitToThePieceSize() throws {
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        let form = try MultipartFixtures.form()
        try form.appendPart(stream: { BytesStream(content, pieceSize: 150_000) }, length: Int64(content.count), name: "s", fileName: "s", mimeType: "application/octet-stream")
        var stream = form.makeStream()
        let (bytes, largest, _) = try drain(&stream)
        #expect(largest <= MultipartFormData.pieceSize)
        #expect(Int64(bytes.count) == form.contentLength)
        #expect(bytes.count > content.count)
    }

    @Test func streamFactoryIsCalledOncePerBody() throws {
        let calls = Counter()
        let form = try MultipartFixtures.form()
        try form.appendPart(stream: { calls.add(1); return BytesStream([1, 2, 3]) }, length: 3, name: "s", fileName: "s", mimeType: "application/octet-stream")
        let body = form.makeBody()
        #expect(calls.value == 0)
        _ = try drain(body)
        _ = try drain(body)
        #expect(calls.value == 2)
    }

    // MARK: Throttling

    @Test func tokenBucketGrantsAtMostItsCapacityThenAsksToWait() {
        let start = Deadline(uptimeNanoseconds: 1_000_000_000)
        var bucket = MultipartTokenBucket(bytesPerSecond: 4000, pieceSize: 65536, now: start)
        #expect(bucket.capacity == 1000)
        #expect(bucket.request(5000, now: start) == .granted(1000))
        bucket.consume(1000)
        // Empty: 1000 bytes take 250 ms at 4000 B/s.
        #expect(bucket.request(1000, now: start) == .wait(.milliseconds(250)))
        // 100 ms later, 400 tokens: 600 more are needed (150 ms).
        #expect(bucket.request(1000, now: start + .milliseconds(100)) == .wait(.milliseconds(150)))
        #expect(bucket.request(300, now: start + .milliseconds(100)) == .granted(300))
        bucket.consume(300)
        // A long pause refills only up to the capacity.
        #expect(bucket.request(5000, now: start + .seconds(10)) == .granted(1000))
    }

    @Test func tokenBucketCapacityIsBoundedByThePieceSize() {
        #expect(MultipartTokenBucket(bytesPerSecond: 100 << 20, pieceSize: 65536).capacity == 65536)
        #expect(MultipartTokenBucket(bytesPerSecond: 1, pieceSize: 65536).capacity == 1)
    }

    @Test func throttledStreamReturnsEmptyPiecesWithAWaitInsteadOfSleeping() throws {
        let form = try MultipartFixtures.form()
        try form.appendPart(data: Data([UInt8](repeating: 0x42, count: 10_000)), name: "a")
        form.throttle(bytesPerSecond: 4000)
        #expect(form.bytesPerSecond == 4000)
        var stream = form.makeStream()
        let first = try #require(try stream.next())
        #expect(first.readableBytes == 1000)
        #expect(stream.waitAfterEmptyPiece == nil)
        let clock = ContinuousClock()
        let start = clock.now
        let second = try #require(try stream.next())
        // Returned at once (no sleep) with nothing, and a wait of about 250 ms.
        #expect(clock.now - start < .milliseconds(200))
        #expect(second.readableBytes == 0)
        let wait = try #require(stream.waitAfterEmptyPiece)
        #expect(wait > .milliseconds(150) && wait <= .milliseconds(250))
    }

    @Test func afnetworkingStyleThrottleIsARate() throws {
        let form = try MultipartFixtures.form()
        form.throttleBandwidth(packetSize: 16 * 1024, delay: 0.2)
        #expect(form.bytesPerSecond == 81920)
        form.throttle(bytesPerSecond: nil)
        #expect(form.bytesPerSecond == nil)
    }
}
