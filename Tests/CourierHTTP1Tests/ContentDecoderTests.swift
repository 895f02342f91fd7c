import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

// Compressed bodies come from Fixtures/compressed (see make.py there). Small inputs (under
// ~4 KiB) go through `expectSameForEveryFeeding`: whole, split at every byte, and bytewise. The
// big ones (the 2 MiB text and the 10 MiB bombs) would make the split-at-every-byte feeding
// O(n²) in inflate work, so they are fed whole, in 64-byte pieces and, where cheap, bytewise.

/// A compressed fixture's bytes.
func compressedFixture(_ name: String) -> [UInt8] {
    let path = fixturesDirectory + "/compressed/" + name
    guard let bytes = readFileBytes(path) else {
        Issue.record("cannot read fixture \(path)")
        return []
    }
    return bytes
}

/// The 2 MiB text of make.py's `lines()`, rebuilt here to compare the decoded output with.
func linesText(size: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(size + 64)
    var i = 0
    while out.count < size {
        out += "Line \(i / 3): the quick brown fox jumps over the lazy dog.\n".utf8
        i += 1
    }
    return Array(out.prefix(size))
}

/// Cuts `input` into pieces of `size` bytes (the last may be shorter).
func chunks(_ input: [UInt8], of size: Int) -> [[UInt8]] {
    stride(from: 0, to: input.count, by: size).map { Array(input[$0..<Swift.min($0 + size, input.count)]) }
}

/// What decoding a body came to.
struct DecodeOutcome: Equatable, CustomStringConvertible {
    enum Stage: Equatable { case decode, finish }
    /// The whole decoded output when decoding succeeded; nil when it failed (the partial output
    /// before a failure depends on how the input was split, and is checked separately).
    var output: [UInt8]?
    var failure: ContentDecodingError.Reason?
    /// Whether the failure came from `decode` or from `finish`.
    var stage: Stage?

    static func success(_ output: [UInt8]) -> DecodeOutcome { DecodeOutcome(output: output) }
    static func failure(_ reason: ContentDecodingError.Reason, in stage: Stage) -> DecodeOutcome {
        DecodeOutcome(output: nil, failure: reason, stage: stage)
    }

    var description: String {
        if let output { return "success(\(output.count) bytes)" }
        return "failure(\(failure.map { "\($0)" } ?? "?") in \(stage.map { "\($0)" } ?? "?"))"
    }
}

/// Feeds `pieces` to `decoder` through the sink API, then finishes. `partial` receives the
/// output delivered before a failure.
func runDecoder(
    _ decoder: ContentDecoder, _ pieces: [[UInt8]], partial: ((_ delivered: [UInt8]) -> Void)? = nil
) -> DecodeOutcome {
    var output: [UInt8] = []
    var stage = DecodeOutcome.Stage.decode
    do {
        for piece in pieces {
            try piece.withUnsafeBytes { bytes in try decoder.decode(bytes) { output += $0 } }
        }
        stage = .finish
        try decoder.finish()
    } catch let error as ContentDecodingError {
        partial?(output)
        return .failure(error.reason, in: stage)
    } catch {
        Issue.record("unexpected error \(error)")
        return .failure(.zlibFailure, in: stage)
    }
    return .success(output)
}

/// Decodes with a fresh decoder.
func decodeBody(
    _ codings: [ContentCoding], limits: ContentDecoderLimits = .default, _ pieces: [[UInt8]],
    partial: ((_ delivered: [UInt8]) -> Void)? = nil
) -> DecodeOutcome {
    runDecoder(ContentDecoder(codings: codings, limits: limits), pieces, partial: partial)
}

/// Decodes with a fresh decoder through the ByteBuffer API.
func decodeBuffers(_ codings: [ContentCoding], _ pieces: [[UInt8]]) -> DecodeOutcome {
    let decoder = ContentDecoder(codings: codings)
    var output = ByteBuffer()
    var stage = DecodeOutcome.Stage.decode
    do {
        for piece in pieces {
            // Put junk before the readable bytes so only the readable region must be decoded.
            var input = ByteBuffer(string: "junk")
            input.writeBytes(piece)
            input.moveReaderIndex(forwardBy: 4)
            try decoder.decode(input, into: &output)
        }
        stage = .finish
        try decoder.finish()
    } catch {
        return .failure(error.reason, in: stage)
    }
    return .success(output.readableBytesArray())
}

@Suite("Content decoding")
struct ContentDecoderTests {
    static let text = compressedFixture("text.txt")

    // MARK: - Formats

    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var codings: [ContentCoding]
        var repeats = 1
        var testDescription: String { "\(file) as \(codings.map(\.rawValue).joined(separator: ", "))" }
    }

    static let formats: [Case] = [
        Case(file: "text.gz", codings: [.gzip]),
        Case(file: "text.zlib", codings: [.deflate]),
        Case(file: "text.deflate", codings: [.deflate]),  // raw deflate, detected from the first bytes
        Case(file: "text-members.gz", codings: [.gzip]),  // two gzip members, one after the other
        Case(file: "text.gz.gz", codings: [.gzip, .gzip]),
        Case(file: "text.zlib.gz", codings: [.deflate, .gzip]),  // deflate applied first, then gzip
        Case(file: "text-x100.gz", codings: [.gzip], repeats: 100),  // 125 KiB out of 1.6 KiB
    ]

    @Test("decodes every feeding to the original text", arguments: formats)
    func decodesFormat(_ c: Case) {
        let input = compressedFixture(c.file)
        #expect(input.count > 0 && input.count < 4096)
        let expected = Array([[UInt8]](repeating: Self.text, count: c.repeats).joined())
        let outcome = expectSameForEveryFeeding(input) { decodeBody(c.codings, $0) }
        #expect(outcome == .success(expected))
    }

    @Test("the ByteBuffer API decodes only the readable bytes", arguments: formats)
    func decodesThroughBuffers(_ c: Case) {
        let input = compressedFixture(c.file)
        let expected = Array([[UInt8]](repeating: Self.text, count: c.repeats).joined())
        let outcome = expectSameForEveryFeeding(input) { decodeBuffers(c.codings, $0) }
        #expect(outcome == .success(expected))
    }

    @Test func rawAndZlibDeflateAreToldApartByTheirFirstBytes() {
        // The detection must be independent of how the first two bytes arrive: the split@1
        // feeding hands them over in separate calls.
        let zlib = compressedFixture("text.zlib")
        let raw = compressedFixture("text.deflate")
        #expect(zlib[0] & 0x0F == 8 && (UInt16(zlib[0]) << 8 | UInt16(zlib[1])) % 31 == 0)
        #expect((UInt16(raw[0]) << 8 | UInt16(raw[1])) % 31 != 0)
        for input in [zlib, raw] {
            let outcome = expectSameForEveryFeeding(input) { decodeBody([.deflate], $0) }
            #expect(outcome == .success(Self.text))
        }
    }

    @Test func stackedCodingsAreUndoneLastFirst() {
        // The same body with its codings named in the wrong order must not decode: the gzip
        // bytes reach the deflate layer first.
        let input = compressedFixture("text.zlib.gz")
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip, .deflate], $0) }
        #expect(outcome == .failure(.corruptStream, in: .decode))
    }

    @Test func countersReportBytesInAndOut() throws {
        for c in Self.formats {
            let input = compressedFixture(c.file)
            let decoder = ContentDecoder(codings: c.codings)
            #expect(runDecoder(decoder, [input]).output?.count == Self.text.count * c.repeats)
            #expect(decoder.bytesIn == UInt64(input.count), "\(c.file)")
            #expect(decoder.bytesOut == UInt64(Self.text.count * c.repeats), "\(c.file)")
        }
    }

    @Test func outputArrivesInBoundedPieces() {
        // 375 KiB of output from one call (three gzip members of 125 KiB): it must come in
        // pieces of at most the inflater's 256 KiB output buffer.
        let member = compressedFixture("text-x100.gz")
        let input = member + member + member
        let decoder = ContentDecoder(coding: .gzip)
        var sizes: [Int] = []
        var output: [UInt8] = []
        input.withUnsafeBytes { bytes in
            #expect(throws: Never.self) {
                try decoder.decode(bytes) { piece in
                    sizes.append(piece.count)
                    output += piece
                }
            }
        }
        #expect(throws: Never.self) { try decoder.finish() }
        #expect(sizes.count > 1)
        #expect(sizes.allSatisfy { $0 > 0 && $0 <= 256 * 1024 })
        #expect(output == Array([[UInt8]](repeating: Self.text, count: 300).joined()))
    }

    // MARK: - Empty bodies

    @Test(arguments: [[ContentCoding.gzip], [.deflate], [.gzip, .gzip], [.deflate, .gzip]])
    func emptyBodyIsEmpty(_ codings: [ContentCoding]) {
        let outcome = expectSameForEveryFeeding([]) { decodeBody(codings, $0) }
        #expect(outcome == .success([]))
        // And through empty pieces, which must count as no input.
        #expect(decodeBody(codings, [[], [], []]) == .success([]))
    }

    @Test func gzipOfNothingIsEmpty() {
        let input = compressedFixture("empty.gz")
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip], $0) }
        #expect(outcome == .success([]))
    }

    // MARK: - Truncation

    static let truncatable: [Case] = [
        Case(file: "text.gz", codings: [.gzip]),
        Case(file: "text.zlib", codings: [.deflate]),
        Case(file: "text.deflate", codings: [.deflate]),
        Case(file: "text-members.gz", codings: [.gzip]),
        Case(file: "text.gz.gz", codings: [.gzip, .gzip]),
    ]

    @Test("a body cut short fails in finish()", arguments: truncatable)
    func truncatedStream(_ c: Case) {
        let input = compressedFixture(c.file)
        // Inside the header, just after it, in the middle, and one byte short of the end.
        for cut in [1, 2, 10, 11, input.count / 2, input.count - 8, input.count - 1] {
            let prefix = Array(input[..<cut])
            let outcome = expectSameForEveryFeeding(prefix) { decodeBody(c.codings, $0) }
            #expect(outcome == .failure(.truncatedStream, in: .finish), "\(c.file) cut at \(cut)")
        }
    }

    @Test func secondGzipMemberCutShortIsTruncated() throws {
        // The first member is complete; the second has only begun.
        let members = compressedFixture("text-members.gz")
        let firstLength = try #require(firstMemberLength(members))
        for extra in [1, 10, 20] {
            let prefix = Array(members[..<(firstLength + extra)])
            let outcome = expectSameForEveryFeeding(prefix) { decodeBody([.gzip], $0) }
            #expect(outcome == .failure(.truncatedStream, in: .finish), "\(extra) bytes of the second member")
        }
        // Exactly the first member is a complete body.
        let first = Array(members[..<firstLength])
        let outcome = expectSameForEveryFeeding(first) { decodeBody([.gzip], $0) }
        #expect(outcome == .success(Array(Self.text[..<1000])))
    }

    /// The length of the first gzip member: the offset of the second member's magic bytes
    /// (make.py splits the text at 1,000 bytes, so the first member ends before the second
    /// `1f 8b 08` header).
    func firstMemberLength(_ bytes: [UInt8]) -> Int? {
        (1..<(bytes.count - 2)).first { bytes[$0] == 0x1f && bytes[$0 + 1] == 0x8b && bytes[$0 + 2] == 0x08 }
    }

    // MARK: - Corruption

    @Test func corruptGzipHeader() {
        var input = compressedFixture("text.gz")
        input[0] = 0x1e  // not the gzip magic
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip], $0) }
        #expect(outcome == .failure(.corruptStream, in: .decode))
    }

    @Test func invalidDeflateBlockType() {
        var input = compressedFixture("text.gz")
        input[10] |= 0b110  // the first block's BTYPE becomes 11, which is reserved
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip], $0) }
        #expect(outcome == .failure(.corruptStream, in: .decode))
    }

    @Test func corruptByteInTheMiddle() {
        var input = compressedFixture("text.gz")
        input[400] ^= 0xFF
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip], $0) }
        #expect(outcome == .failure(.corruptStream, in: .decode))
    }

    @Test func corruptZlibStream() {
        var header = compressedFixture("text.zlib")
        header[0] = 0x0F  // CM = 15 is no zlib header, and raw deflate refuses it as well
        var body = compressedFixture("text.zlib")
        body[300] ^= 0xFF
        for input in [header, body] {
            let outcome = expectSameForEveryFeeding(input) { decodeBody([.deflate], $0) }
            #expect(outcome == .failure(.corruptStream, in: .decode))
        }
    }

    @Test func badGzipCRC() {
        var input = compressedFixture("text.gz")
        input[input.count - 8] ^= 0x01  // the CRC-32 is the trailer's first four bytes
        var delivered: [UInt8] = []
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip], $0) { delivered = $0 } }
        #expect(outcome == .failure(.corruptStream, in: .decode))
        // The data itself was fine and was delivered before the trailer was checked.
        #expect(delivered == Self.text)
    }

    @Test func badGzipLength() {
        var input = compressedFixture("text.gz")
        input[input.count - 1] ^= 0x01  // ISIZE, the trailer's last four bytes
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip], $0) }
        #expect(outcome == .failure(.corruptStream, in: .decode))
    }

    @Test func badZlibAdler32() {
        var input = compressedFixture("text.zlib")
        input[input.count - 1] ^= 0x01
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.deflate], $0) }
        #expect(outcome == .failure(.corruptStream, in: .decode))
    }

    /// Every single-byte corruption after the gzip header (the header's MTIME, XFL and OS bytes
    /// are not checked by gzip) must be refused, never decoded as if it were fine. There are
    /// ~790 variants, so each is fed whole and bytewise only; the targeted tests above take the
    /// split-at-every-byte feeding.
    @Test func everySingleByteCorruptionIsRefused() {
        let original = compressedFixture("text.gz")
        for offset in 10..<original.count {
            var input = original
            input[offset] ^= 0xFF
            let whole = decodeBody([.gzip], [input])
            let bytewise = decodeBody([.gzip], input.map { [$0] })
            #expect(whole == bytewise, "offset \(offset)")
            #expect(whole.output == nil, "offset \(offset) decoded as \(whole)")
            #expect(whole.failure == .corruptStream || whole.failure == .truncatedStream, "offset \(offset)")
        }
    }

    // MARK: - Trailing data

    @Test func trailingGarbageAfterZlib() {
        for file in ["text.zlib", "text.deflate"] {
            for garbage in ["x", "garbage", "\0"] {
                let input = compressedFixture(file) + Array(garbage.utf8)
                let outcome = expectSameForEveryFeeding(input) { decodeBody([.deflate], $0) }
                #expect(outcome == .failure(.trailingData, in: .decode), "\(file) + \(garbage.debugDescription)")
            }
        }
    }

    @Test func secondZlibStreamIsTrailingData() {
        // Unlike gzip, zlib has no members: a second stream after the first is not allowed.
        let once = compressedFixture("text.zlib")
        let outcome = expectSameForEveryFeeding(once + once) { decodeBody([.deflate], $0) }
        #expect(outcome == .failure(.trailingData, in: .decode))
    }

    @Test func garbageAfterGzipIsACorruptMember() {
        // After a gzip member, more bytes are read as the next member, whose header is wrong.
        let input = compressedFixture("text.gz") + Array("garbage".utf8)
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip], $0) }
        #expect(outcome == .failure(.corruptStream, in: .decode))
    }

    // MARK: - Limits

    @Test func decodedSizeLimit() {
        let input = compressedFixture("text.gz")
        var exact = ContentDecoderLimits()
        exact.maxDecodedBytes = UInt64(Self.text.count)
        let fits = expectSameForEveryFeeding(input) { decodeBody([.gzip], limits: exact, $0) }
        #expect(fits == .success(Self.text))

        var tight = ContentDecoderLimits()
        tight.maxDecodedBytes = UInt64(Self.text.count - 1)
        let outcome = expectSameForEveryFeeding(input) { pieces in
            decodeBody([.gzip], limits: tight, pieces) { delivered in
                // Nothing past the limit reaches the caller, and what did is the right prefix.
                #expect(delivered.count <= Self.text.count - 1)
                #expect(delivered == Array(Self.text.prefix(delivered.count)))
            }
        }
        #expect(outcome == .failure(.decodedSizeLimit, in: .decode))
    }

    @Test func decodedSizeLimitCountsTheFinalOutputOfStackedLayers() {
        // The limit is on what the caller receives, not on an intermediate layer's output.
        let input = compressedFixture("text.gz.gz")
        var limits = ContentDecoderLimits()
        limits.maxDecodedBytes = UInt64(Self.text.count)
        let fits = expectSameForEveryFeeding(input) { decodeBody([.gzip, .gzip], limits: limits, $0) }
        #expect(fits == .success(Self.text))
        limits.maxDecodedBytes = 100
        let outcome = expectSameForEveryFeeding(input) { decodeBody([.gzip, .gzip], limits: limits, $0) }
        #expect(outcome == .failure(.decodedSizeLimit, in: .decode))
    }

    @Test func defaultLimits() {
        let limits = ContentDecoderLimits.default
        #expect(limits.maxDecodedBytes == nil)
        #expect(limits.maxRatio == 100)
        #expect(limits.ratioGraceBytes == 1 << 20)
    }

    static let bombFeedings: [(String, @Sendable ([UInt8]) -> [[UInt8]])] = [
        ("whole", { [$0] }),
        ("64-byte pieces", { chunks($0, of: 64) }),
    ]

    @Test func ratioBombIsRefusedWithDefaultLimits() {
        // 10 MiB of zeros in 10 KiB: about 1000:1.
        let input = compressedFixture("zeros-10MiB.gz")
        #expect(input.count > 1000 && input.count < 20_000)
        for (name, feed) in Self.bombFeedings {
            var delivered: [UInt8] = []
            let outcome = decodeBody([.gzip], feed(input)) { delivered = $0 }
            #expect(outcome == .failure(.compressionRatioLimit, in: .decode), "\(name)")
            // Refused soon after the 1 MiB grace, long before the 10 MiB were produced, and
            // nothing but the real (zero) bytes was handed out.
            #expect(delivered.count <= 2 << 20, "\(name): \(delivered.count) bytes delivered")
            #expect(delivered.allSatisfy { $0 == 0 })
        }
    }

    @Test func ratioBombPassesWhenTheRatioIsAllowed() {
        // The same input decodes completely once the ratio limit is out of the way, which shows
        // the failure above is the ratio check and not a fault in the stream.
        let input = compressedFixture("zeros-10MiB.gz")
        var generous = ContentDecoderLimits()
        generous.maxRatio = 10_000
        var noJudging = ContentDecoderLimits()
        noJudging.ratioGraceBytes = 20 << 20
        for limits in [generous, noJudging] {
            for (name, feed) in Self.bombFeedings {
                let outcome = decodeBody([.gzip], limits: limits, feed(input))
                #expect(outcome.failure == nil, "\(name)")
                #expect(outcome.output?.count == 10 << 20, "\(name)")
                #expect(outcome.output?.allSatisfy { $0 == 0 } == true, "\(name)")
            }
        }
    }

    @Test func bombInsideASecondLayerIsRefused() {
        // 126 bytes that gunzip to the 10 KiB bomb, which gunzips to 10 MiB.
        let input = compressedFixture("zeros-10MiB.gz.gz")
        #expect(input.count < 1024)
        // Small enough for every feeding: the decoder stops after about 1 MiB each time.
        let outcome = expectSameForEveryFeeding(input) { pieces in
            decodeBody([.gzip, .gzip], pieces) { delivered in
                #expect(delivered.count <= 2 << 20)
            }
        }
        #expect(outcome == .failure(.compressionRatioLimit, in: .decode))
    }

    @Test func compressibleTextBelowTheRatioPasses() {
        // 2 MiB of text at about 76:1: past the grace size, under the ratio.
        let input = compressedFixture("lines-2MiB.gz")
        let expected = linesText(size: 2 << 20)
        let ratio = Double(expected.count) / Double(input.count)
        #expect(ratio > 50 && ratio < 100, "fixture ratio \(ratio)")
        let feedings: [(String, [[UInt8]])] = [
            ("whole", [input]),
            ("64-byte pieces", chunks(input, of: 64)),
            ("bytewise", input.map { [$0] }),
        ]
        for (name, fed) in feedings {
            #expect(decodeBody([.gzip], fed) == .success(expected), "\(name)")
        }
    }

    @Test func compressibleTextFailsUnderAStricterRatio() {
        // The test above is meaningful: the same text is refused at 50:1.
        let input = compressedFixture("lines-2MiB.gz")
        var strict = ContentDecoderLimits()
        strict.maxRatio = 50
        for (name, feed) in Self.bombFeedings {
            #expect(decodeBody([.gzip], limits: strict, feed(input)) == .failure(.compressionRatioLimit, in: .decode), "\(name)")
        }
    }

    // MARK: - Reuse

    @Test func resetThenReuse() {
        let bodies: [(first: String, second: String, codings: [ContentCoding])] = [
            ("text.gz", "text-members.gz", [.gzip]),
            ("text.zlib", "text.deflate", [.deflate]),  // the wrapper is detected again
            ("text.deflate", "text.zlib", [.deflate]),
            ("text.zlib.gz", "text.zlib.gz", [.deflate, .gzip]),
        ]
        for (first, second, codings) in bodies {
            let input = compressedFixture(second)
            let firstBody = compressedFixture(first)
            let outcome = expectSameForEveryFeeding(input) { pieces in
                let decoder = ContentDecoder(codings: codings)
                #expect(runDecoder(decoder, [firstBody]) == .success(Self.text))
                decoder.reset()
                #expect(decoder.bytesIn == 0 && decoder.bytesOut == 0)
                return runDecoder(decoder, pieces)
            }
            #expect(outcome == .success(Self.text), "\(first) then \(second)")
        }
    }

    @Test func resetAfterAFailureOrHalfway() {
        let good = compressedFixture("text.gz")
        var corrupt = good
        corrupt[10] |= 0b110
        let failedFirst: [[UInt8]] = [corrupt, Array(good[..<300]), Array(good + [0x00])]
        for first in failedFirst {
            let outcome = expectSameForEveryFeeding(good) { pieces in
                let decoder = ContentDecoder(coding: .gzip)
                _ = runDecoder(decoder, [first])
                decoder.reset()
                return runDecoder(decoder, pieces)
            }
            #expect(outcome == .success(Self.text))
        }
    }

    @Test func resetLetsAnEmptyBodyFollowAPartialOne() {
        let good = compressedFixture("text.zlib")
        let decoder = ContentDecoder(coding: .deflate)
        good.withUnsafeBytes { bytes in
            // Only the first byte: the decoder is waiting for the second to pick the wrapper.
            #expect(throws: Never.self) { try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<1])) { _ in } }
        }
        decoder.reset()
        #expect(runDecoder(decoder, []) == .success([]))
    }
}

@Suite("Content-Encoding plan")
struct ContentDecodingPlanTests {
    static let cases: [([String], ContentDecodingPlan)] = [
        ([], .none),
        (["identity"], .none),
        (["identity, identity"], .none),
        ([""], .none),
        ([" , ,"], .none),
        (["gzip"], .decode([.gzip])),
        (["x-gzip"], .decode([.gzip])),
        (["deflate"], .decode([.deflate])),
        (["GZIP"], .decode([.gzip])),
        (["X-Gzip"], .decode([.gzip])),
        (["DeFlAtE"], .decode([.deflate])),
        (["gzip, gzip"], .decode([.gzip, .gzip])),
        (["deflate, gzip"], .decode([.deflate, .gzip])),
        (["gzip,deflate"], .decode([.gzip, .deflate])),
        (["\t gzip \t,  deflate "], .decode([.gzip, .deflate])),
        (["identity, gzip, identity"], .decode([.gzip])),
        (["deflate", "gzip"], .decode([.deflate, .gzip])),  // several field lines, in order
        (["gzip", "identity", "deflate"], .decode([.gzip, .deflate])),
        // Deeper than maximumLayers: nothing is decoded, every layer is named.
        (["gzip, gzip, gzip"], .passThrough(["gzip", "gzip", "gzip"])),
        (["gzip", "deflate", "gzip"], .passThrough(["gzip", "deflate", "gzip"])),
        (["gzip, gzip", "gzip, x-gzip"], .passThrough(["gzip", "gzip", "gzip", "x-gzip"])),
        // Codings Courier cannot undo: named, in the order applied, lowercased, identity left out.
        (["br"], .passThrough(["br"])),
        (["BR"], .passThrough(["br"])),
        (["zstd"], .passThrough(["zstd"])),
        (["compress"], .passThrough(["compress"])),
        (["x-compress"], .passThrough(["x-compress"])),
        (["x-custom"], .passThrough(["x-custom"])),
        (["identity, br, identity"], .passThrough(["br"])),
        // br applied last: its layer is outside gzip's, so neither can be undone.
        (["gzip, br"], .passThrough(["gzip", "br"])),
        // br applied first: undoing gzip alone would hand over bytes no header describes.
        (["br", "gzip"], .passThrough(["br", "gzip"])),
        (["X-GZIP,  Br\t"], .passThrough(["x-gzip", "br"])),
        (["gzip, gzip, gzip, br"], .passThrough(["gzip", "gzip", "gzip", "br"])),
        // Names that are not tokens are still codings nobody undid (the field syntax allows them).
        (["\"br\""], .passThrough(["\"br\""])),
        (["gzip;q=1"], .passThrough(["gzip;q=1"])),
    ]

    @Test(arguments: cases)
    func plan(_ values: [String], _ expected: ContentDecodingPlan) {
        #expect(ContentDecodingPlan(contentEncoding: values) == expected)
        #expect(ContentDecodingPlan(contentEncoding: values).undecodedCodings == {
            if case .passThrough(let names) = expected { names } else { [] }
        }())
    }

    /// With decoding off (decompression turned off) every coding is passed through and named.
    static let decodingOffCases: [([String], ContentDecodingPlan)] = [
        ([], .none),
        (["identity"], .none),
        (["gzip"], .passThrough(["gzip"])),
        (["X-Gzip"], .passThrough(["x-gzip"])),
        (["deflate, gzip"], .passThrough(["deflate", "gzip"])),
        (["br"], .passThrough(["br"])),
        (["identity", "gzip, br"], .passThrough(["gzip", "br"])),
    ]

    @Test(arguments: decodingOffCases)
    func planWithDecodingOff(_ values: [String], _ expected: ContentDecodingPlan) {
        #expect(ContentDecodingPlan(contentEncoding: values, decoding: false) == expected)
    }

    @Test func maximumLayersIsTwo() {
        #expect(ContentDecodingPlan.maximumLayers == 2)
        let atLimit = [String](repeating: "gzip", count: ContentDecodingPlan.maximumLayers)
        #expect(ContentDecodingPlan(contentEncoding: atLimit) == .decode(Array(repeating: .gzip, count: ContentDecodingPlan.maximumLayers)))
        let over = atLimit + ["deflate"]
        #expect(ContentDecodingPlan(contentEncoding: over) == .passThrough(over))
    }

    @Test func planFromParsedHeaders() throws {
        let head = try parseResponseHead(
            "HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nX-Other: gzip\r\ncontent-encoding: GZIP\r\nContent-Length: 0\r\n\r\n")
        #expect(ContentDecodingPlan(headers: head.headers) == .decode([.deflate, .gzip]))
        let plain = try parseResponseHead("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(ContentDecodingPlan(headers: plain.headers) == ContentDecodingPlan.none)
        let brotli = try parseResponseHead("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 0\r\n\r\n")
        #expect(ContentDecodingPlan(headers: brotli.headers) == .passThrough(["br"]))
        #expect(ContentDecodingPlan(headers: brotli.headers).undecodedCodings == ["br"])
        #expect(ContentDecodingPlan(headers: head.headers, decoding: false) == .passThrough(["deflate", "gzip"]))
        #expect(ContentDecodingPlan(headers: HTTPHeaderView()) == ContentDecodingPlan.none)
    }

    @Test func planDecodesAFixtureEndToEnd() throws {
        // The plan's coding list, handed to the decoder as it is, undoes the body.
        guard case .decode(let codings) = ContentDecodingPlan(contentEncoding: ["deflate", "gzip"]) else {
            Issue.record("expected a decode plan")
            return
        }
        let input = compressedFixture("text.zlib.gz")
        let outcome = expectSameForEveryFeeding(input) { decodeBody(codings, $0) }
        #expect(outcome == .success(compressedFixture("text.txt")))
    }
}
