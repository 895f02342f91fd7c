import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

/// What feeding a chunked body to a ``ChunkedDecoder`` came to.
struct ChunkedOutcome: Equatable, CustomStringConvertible {
    /// The data pieces, concatenated.
    var body: [UInt8] = []
    /// Whether the end event was returned.
    var ended = false
    /// The trailer fields as `name: value` (empty when the end event had none).
    var trailers: [String] = []
    /// `offset` after the last call (left 0 after an error).
    var offset = 0
    /// What was left readable in the buffer after the last call (left empty after an error).
    var leftover: [UInt8] = []
    var error: HTTPParserError? = nil
    /// Whether `offset` always moved by exactly the bytes removed from the buffer, and
    /// `isDone` was true exactly once the end had been returned.
    var bookkeepingHeld = true

    var description: String {
        "body \(Fixture.escape(body)) ended=\(ended) trailers=\(trailers) offset=\(offset) leftover=\(Fixture.escape(leftover)) error=\(error.map { "\($0)" } ?? "none") bookkeeping=\(bookkeepingHeld)"
    }
}

func trailerLines(_ view: HTTPHeaderView) -> [String] {
    view.map { "\($0.name.string): \($0.value.string)" }
}

/// Feeds `pieces` to `decoder`, starting at stream offset `start`, calling `next` until it
/// returns nil after each piece.
func runChunked(_ decoder: inout ChunkedDecoder, _ pieces: [[UInt8]], start: Int = 0) -> ChunkedOutcome {
    var outcome = ChunkedOutcome()
    var buffer = ByteBuffer()
    var offset = start
    var fed = 0
    do {
        for piece in pieces {
            buffer.writeBytes(piece)
            fed += piece.count
            while true {
                let event = try decoder.next(&buffer, offset: &offset)
                if offset - start != fed - buffer.readableBytes { outcome.bookkeepingHeld = false }
                switch event {
                case .needMoreData:
                    break
                case .data(let piece):
                    if outcome.ended { outcome.bookkeepingHeld = false }
                    outcome.body += piece.readableBytesArray()
                    continue
                case .end(let trailers):
                    if outcome.ended { outcome.bookkeepingHeld = false }
                    outcome.ended = true
                    outcome.trailers = trailerLines(trailers)
                    continue
                }
                break
            }
            if decoder.isDone != outcome.ended { outcome.bookkeepingHeld = false }
        }
    } catch {
        // After an error the decoder is spent. How much of the buffer it had removed by then
        // depends on how the input was split (bytes of the failing call stay in the buffer), so
        // only the error and its stream offset are compared.
        outcome.error = error
        return outcome
    }
    outcome.offset = offset
    outcome.leftover = buffer.readableBytesArray()
    return outcome
}

func runChunked(
    _ pieces: [[UInt8]], configuration: HTTPParserConfiguration = .default, start: Int = 0
) -> ChunkedOutcome {
    var decoder = ChunkedDecoder(configuration: configuration)
    return runChunked(&decoder, pieces, start: start)
}

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// The index of the first occurrence of `needle` in `haystack`, to locate expected error offsets.
private func index(of needle: String, in haystack: [UInt8], from: Int = 0) -> Int {
    let n = bytes(needle)
    for i in from...(haystack.count - n.count) where Array(haystack[i..<(i + n.count)]) == n { return i }
    preconditionFailure("\(needle) not in input")
}

/// Encodes `chunks` by hand with the given size-line spelling, for building inputs.
private func chunked(_ chunks: [[UInt8]], sizeLine: (Int) -> String = { String($0, radix: 16) + "\r\n" }) -> [UInt8] {
    var out: [UInt8] = []
    for c in chunks {
        out += bytes(sizeLine(c.count))
        out += c
        out += bytes("\r\n")
    }
    return out
}

@Suite("Chunked decoder")
struct ChunkedDecoderTests {
    // MARK: - Data

    @Test func dataPiecesConcatenate() {
        let input = bytes("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
        #expect(outcome.body == bytes("hello world"))
        #expect(outcome.ended)
        #expect(outcome.trailers.isEmpty)
        #expect(outcome.offset == input.count)
        #expect(outcome.leftover.isEmpty)
        #expect(outcome.error == nil)
        #expect(outcome.bookkeepingHeld)
    }

    @Test func manyChunksOfEverySize() {
        // Chunks of 1 to 70 bytes with varied content: 2,485 data bytes, about 2.8 KiB in all.
        let chunks = (1...70).map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n) } }
        let input = chunked(chunks) + bytes("0\r\n\r\n")
        #expect(input.count < 4096)
        let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
        #expect(outcome.body == Array(chunks.joined()))
        #expect(outcome.ended && outcome.error == nil && outcome.bookkeepingHeld)
        #expect(outcome.offset == input.count)
    }

    @Test func hexSizesInEitherCaseWithLeadingZeros() {
        let all = (0...255).map { UInt8($0) }  // every byte value, CR and LF included
        let high = [UInt8](repeating: 0xFF, count: 255)
        let spellings = [("100", "ff"), ("0100", "FF"), ("0000000000000100", "fF"), ("00100", "0Ff")]
        for (first, second) in spellings {
            let input = bytes(first + "\r\n") + all + bytes("\r\n" + second + "\r\n") + high + bytes("\r\n0000\r\n\r\n")
            let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
            #expect(outcome.body == all + high, "\(first), \(second)")
            #expect(outcome.ended && outcome.error == nil && outcome.bookkeepingHeld, "\(first), \(second)")
        }
    }

    @Test func emptyBody() {
        let input = bytes("0\r\n\r\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
        #expect(outcome.body.isEmpty)
        #expect(outcome.ended && outcome.trailers.isEmpty && outcome.error == nil && outcome.bookkeepingHeld)
        #expect(outcome.offset == 5)
    }

    @Test func dataPiecesSurviveLaterWritesToTheBuffer() {
        var decoder = ChunkedDecoder()
        var buffer = ByteBuffer(string: "5\r\nhello\r\n")
        var offset = 0
        var pieces: [ByteBuffer] = []
        while case let event? = try? decoder.next(&buffer, offset: &offset), event != .needMoreData {
            if case .data(let piece) = event { pieces.append(piece) }
        }
        buffer.writeString("5\r\nWORLD\r\n0\r\n\r\n")
        buffer.withUnsafeMutableReadableBytes { for i in $0.indices { $0[i] = UInt8(ascii: "#") } }
        #expect(pieces.map { $0.readableBytesArray() } == [bytes("hello")])
    }

    // MARK: - Extensions

    @Test func extensionsAreSkipped() {
        let input = bytes(
            "5;name=value\r\nhello\r\n"
                + "3 ; a=b;c\r\nabc\r\n"
                + "2\t;quoted=\"semi;colon \\\" here\"\r\nde\r\n"
                + "1 ;\tx = \"\\\\\" ; y=z\r\nf\r\n"
                + "0;last=yes\r\n\r\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
        #expect(outcome.body == bytes("helloabcdef"))
        #expect(outcome.ended && outcome.error == nil && outcome.bookkeepingHeld)
        #expect(outcome.offset == input.count)
    }

    /// RFC 9112 §7.1.1: `*( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] )`; each
    /// case is refused at its first byte outside that grammar.
    @Test(arguments: [
        ("2;\r\nab\r\n", "2;"),  // an empty extension
        ("2;=x\r\nab\r\n", "2;"),  // no name
        ("2;a=\r\nab\r\n", "2;a="),  // no value
        ("5;a=\"b\r\nhello\r\n", "5;a=\"b"),  // an unterminated quoted string
        ("2;a=\"\\\r\nab\r\n", "2;a=\"\\"),  // a quoted-pair cut by CR
        ("2;a b\r\nab\r\n", "2;a "),  // whitespace inside
        ("2;a=b \r\nab\r\n", "2;a=b "),  // whitespace before the line end
        ("2;a=\"b\"c\r\nab\r\n", "2;a=\"b\""),  // bytes after the quoted string
        ("2;a;;b\r\nab\r\n", "2;a;"),  // an empty extension between two
        ("2;a\u{7F}\r\nab\r\n", "2;a"),  // DEL
        ("2;a=\"\u{1}\"\r\nab\r\n", "2;a=\""),  // a control inside quotes
        ("2;a=(\r\nab\r\n", "2;a="),  // a separator as a token value
    ])
    func extensionGrammarIsChecked(_ text: String, _ before: String) {
        let input = bytes(text)
        let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
        #expect(outcome.error == HTTPParserError(.invalidChunkExtension, offset: before.utf8.count), "\(outcome)")
    }

    @Test func obsTextIsAllowedOnlyInsideQuotes() {
        let inside = bytes("2;a=\"caf") + [0xE9] + bytes("\\") + [0xFF] + bytes("\"\r\nab\r\n0\r\n\r\n")
        let accepted = expectSameForEveryFeeding(inside) { runChunked($0) }
        #expect(accepted.error == nil && accepted.body == bytes("ab") && accepted.ended)
        for outside in [bytes("2;caf") + [0xE9], bytes("2;a=caf") + [0xE9], bytes("2;a=") + [0x80]] {
            let input = outside + bytes("\r\nab\r\n0\r\n\r\n")
            let refused = expectSameForEveryFeeding(input) { runChunked($0) }
            #expect(refused.error == HTTPParserError(.invalidChunkExtension, offset: outside.count - 1))
        }
    }

    @Test func extensionLimitAndControls() {
        var configuration = HTTPParserConfiguration()
        configuration.maxChunkExtensionBytes = 8
        // Eight bytes after the first ";" are the limit; a ninth is one too many.
        let fits = bytes("1;a=b;c=de\r\na\r\n0\r\n\r\n")
        let fitted = expectSameForEveryFeeding(fits) { runChunked($0, configuration: configuration) }
        #expect(fitted.body == bytes("a") && fitted.error == nil)
        let long = bytes("1;a=b;c=def\r\na\r\n0\r\n\r\n")
        let tooLong = expectSameForEveryFeeding(long) { runChunked($0, configuration: configuration) }
        #expect(tooLong.error == HTTPParserError(.chunkExtensionTooLong, offset: index(of: "f", in: long)))
        // The count starts again on every size line.
        let twice = bytes("1;a=b;c=de\r\na\r\n1;a=b;c=de\r\nb\r\n0;a=b;c=de\r\n\r\n")
        let again = expectSameForEveryFeeding(twice) { runChunked($0, configuration: configuration) }
        #expect(again.body == bytes("ab") && again.error == nil)
        let control = bytes("1;a\u{1}b\r\na\r\n0\r\n\r\n")
        let refused = expectSameForEveryFeeding(control) { runChunked($0) }
        #expect(refused.error == HTTPParserError(.invalidChunkExtension, offset: 3))
    }

    // MARK: - Trailers

    @Test func trailersAreReturnedAsAView() {
        let input = bytes("3\r\nabc\r\n0\r\nX-Checksum: 900150983cd24fb0\r\nExpires:   Wed, 21 Oct 2015 07:28:00 GMT  \r\nx-empty:\r\n\r\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
        #expect(outcome.body == bytes("abc"))
        #expect(outcome.trailers == ["X-Checksum: 900150983cd24fb0", "Expires: Wed, 21 Oct 2015 07:28:00 GMT", "x-empty: "])
        #expect(outcome.offset == input.count)
        #expect(outcome.leftover.isEmpty && outcome.error == nil && outcome.bookkeepingHeld)
    }

    @Test func trailerViewLookupAndLifetime() throws {
        var decoder = ChunkedDecoder()
        var buffer = ByteBuffer(string: "0\r\nX-One: 1\r\nx-two: 2\r\nX-ONE: again\r\n\r\nNEXT")
        var offset = 0
        var trailers: HTTPHeaderView?
        while case let event = try decoder.next(&buffer, offset: &offset), event != .needMoreData {
            if case .end(let t) = event { trailers = t }
        }
        let view = try #require(trailers)
        #expect(buffer.readableBytesArray() == bytes("NEXT"))
        // The view shares the read buffer: overwrite and reuse the buffer, the view must not change.
        buffer.withUnsafeMutableReadableBytes { for i in $0.indices { $0[i] = UInt8(ascii: "!") } }
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        buffer.writeString(String(repeating: "Z", count: 200))
        #expect(view.count == 3)
        #expect(view[first: "x-one"] == "1")
        #expect(view.values(for: "X-One") == ["1", "again"])
        #expect(view[first: "X-TWO"] == "2")
        #expect(view.contains("x-two"))
        #expect(!view.contains("x-three"))
        #expect(view[1].name.string == "x-two")
    }

    @Test func trailerObsFoldWhenAllowed() {
        var configuration = HTTPParserConfiguration()
        configuration.allowObsFold = true
        let input = bytes("1\r\nx\r\n0\r\nX-A: one\r\n  two\r\n\tthree\r\nX-B: b\r\n\r\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0, configuration: configuration) }
        // Each CRLF of an obs-fold becomes two SP (RFC 9112 §5.2: "one or more SP"); the
        // continuation lines keep their own leading whitespace.
        #expect(outcome.trailers == ["X-A: one" + "  " + "  two" + "  " + "\tthree", "X-B: b"])
        #expect(outcome.body == bytes("x") && outcome.error == nil && outcome.offset == input.count)
    }

    @Test func trailerViewSurvivesResetAndReuse() throws {
        var decoder = ChunkedDecoder()
        var buffer = ByteBuffer(string: "0\r\nX-First: 1\r\n\r\n")
        var offset = 0
        var first: HTTPHeaderView?
        while case let event = try decoder.next(&buffer, offset: &offset), event != .needMoreData {
            if case .end(let t) = event { first = t }
        }
        decoder.reset()
        buffer.writeString("0\r\nY: 2\r\nZ: 3\r\n\r\n")
        var second: HTTPHeaderView?
        while case let event = try decoder.next(&buffer, offset: &offset), event != .needMoreData {
            if case .end(let t) = event { second = t }
        }
        #expect(try trailerLines(#require(first)) == ["X-First: 1"])
        #expect(try trailerLines(#require(second)) == ["Y: 2", "Z: 3"])
    }

    @Test func trailerErrorsUseTheHeaderRules() {
        let badName = bytes("0\r\nBad Name: x\r\n\r\n")
        #expect(expectSameForEveryFeeding(badName) { runChunked($0) }.error?.code == .invalidFieldName)
        let badValue = bytes("0\r\nX-A: a\u{7F}b\r\n\r\n")
        #expect(expectSameForEveryFeeding(badValue) { runChunked($0) }.error == HTTPParserError(.invalidFieldValue, offset: index(of: "\u{7F}", in: badValue)))
        let fold = bytes("0\r\nX-A: a\r\n b\r\n\r\n")
        #expect(expectSameForEveryFeeding(fold) { runChunked($0) }.error == HTTPParserError(.obsFold, offset: 11))
        var small = HTTPParserConfiguration()
        small.maxHeaderBytes = 16
        let big = bytes("0\r\nX-Long: 0123456789abcdef\r\n\r\n")
        #expect(expectSameForEveryFeeding(big) { runChunked($0, configuration: small) }.error?.code == .headerBlockTooLarge)
    }

    // MARK: - Offsets

    @Test func offsetAdvancesByExactlyTheBytesConsumed() {
        let body = bytes("4\r\nwiki\r\n5;x=y\r\npedia\r\n0\r\nT: v\r\n\r\n")
        let after = bytes("HTTP/1.1 200 OK\r\n")
        for start in [0, 1, 12_345] {
            let outcome = expectSameForEveryFeeding(body + after) { runChunked($0, start: start) }
            #expect(outcome.offset == start + body.count, "start \(start)")
            #expect(outcome.bookkeepingHeld, "start \(start)")
            #expect(outcome.body == bytes("wikipedia"))
            #expect(outcome.trailers == ["T: v"])
        }
    }

    @Test func errorOffsetsCountFromTheGivenStart() {
        let input = bytes("5\r\nhello\r\nz\r\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0, start: 1000) }
        #expect(outcome.error == HTTPParserError(.invalidChunkSize, offset: 1000 + index(of: "z", in: input)))
        #expect(outcome.body == bytes("hello"))
    }

    // MARK: - What follows the body

    @Test func bytesAfterTheEndAreLeftInTheBuffer() {
        let body = bytes("3\r\nabc\r\n0\r\n\r\n")
        let next = bytes("HTTP/1.1 204 No Content\r\n\r\n5\r\nextra")
        let outcome = expectSameForEveryFeeding(body + next) { runChunked($0) }
        #expect(outcome.leftover == next)
        #expect(outcome.offset == body.count)
        #expect(outcome.ended && outcome.error == nil && outcome.bookkeepingHeld)
        #expect(outcome.body == bytes("abc"))
    }

    @Test func bytesAfterTrailersAreLeftInTheBuffer() {
        let body = bytes("0\r\nX-T: 1\r\n\r\n")
        let next = bytes("\r\n\r\nGARBAGE")
        let outcome = expectSameForEveryFeeding(body + next) { runChunked($0) }
        #expect(outcome.leftover == next)
        #expect(outcome.trailers == ["X-T: 1"])
        #expect(outcome.offset == body.count)
    }

    @Test func aDoneDecoderConsumesNothingMore() throws {
        var decoder = ChunkedDecoder()
        var buffer = ByteBuffer(string: "0\r\n\r\n")
        var offset = 0
        #expect(!decoder.isDone)
        while try decoder.next(&buffer, offset: &offset) != .needMoreData {}
        #expect(decoder.isDone)
        buffer.writeString("1\r\nx\r\n0\r\n\r\n")
        let event = try decoder.next(&buffer, offset: &offset)
        #expect(event == .needMoreData)
        #expect(buffer.readableBytesArray() == bytes("1\r\nx\r\n0\r\n\r\n"))
        #expect(offset == 5)
    }

    @Test func isDoneOnlyAfterTheEnd() throws {
        let input = bytes("2\r\nab\r\n0\r\nX: y\r\n\r\n")
        var decoder = ChunkedDecoder()
        var buffer = ByteBuffer()
        var offset = 0
        var ended = false
        for byte in input {
            #expect(!decoder.isDone)
            buffer.writeByte(byte)
            while case let event = try decoder.next(&buffer, offset: &offset), event != .needMoreData {
                if case .end = event { ended = true }
            }
            #expect(decoder.isDone == ended)
        }
        #expect(decoder.isDone)
    }

    // MARK: - Reuse

    @Test func resetAndReuse() {
        let first = bytes("3\r\nabc\r\n0\r\nX-First: 1\r\n\r\n")
        let second = bytes("4\r\nwxyz\r\n0\r\nX-Second: 2\r\n\r\n")
        let reused = expectSameForEveryFeeding(second) { pieces in
            var decoder = ChunkedDecoder()
            let one = runChunked(&decoder, [first])
            #expect(one.body == bytes("abc") && one.trailers == ["X-First: 1"])
            decoder.reset()
            #expect(!decoder.isDone)
            return runChunked(&decoder, pieces)
        }
        #expect(reused == runChunked([second]))
        #expect(reused.trailers == ["X-Second: 2"])
        #expect(reused.body == bytes("wxyz"))
    }

    @Test func resetMidwayForgetsTheOldBody() {
        // Stopped inside data, inside a size line, inside the trailers, and after an error.
        let partials = ["5\r\nhel", "5\r\nhello\r\n1", "0\r\nX-Old: 1\r\nX-Ha", "5\r\nhelloXX"]
        let second = bytes("2\r\nok\r\n0\r\nX-New: 2\r\n\r\n")
        for partial in partials {
            let outcome = expectSameForEveryFeeding(second) { pieces in
                var decoder = ChunkedDecoder()
                _ = runChunked(&decoder, [bytes(partial)])
                decoder.reset()
                return runChunked(&decoder, pieces)
            }
            #expect(outcome == runChunked([second]), "after \(partial.debugDescription)")
        }
    }

    @Test func resetClearsTheBodyLimitCount() {
        var configuration = HTTPParserConfiguration()
        configuration.maxBodyBytes = 5
        let body = bytes("5\r\nhello\r\n0\r\n\r\n")
        let outcome = expectSameForEveryFeeding(body) { pieces in
            var decoder = ChunkedDecoder(configuration: configuration)
            _ = runChunked(&decoder, [body])
            decoder.reset()
            return runChunked(&decoder, pieces)
        }
        #expect(outcome.error == nil && outcome.body == bytes("hello"))
    }

    // MARK: - Limits and errors

    @Test func maxBodyBytes() {
        var configuration = HTTPParserConfiguration()
        configuration.maxBodyBytes = 10
        let exact = bytes("5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n")
        let fits = expectSameForEveryFeeding(exact) { runChunked($0, configuration: configuration) }
        #expect(fits.error == nil && fits.body == bytes("helloworld"))

        let over = bytes("5\r\nhello\r\n6\r\nworld!\r\n0\r\n\r\n")
        let refused = expectSameForEveryFeeding(over) { runChunked($0, configuration: configuration) }
        // Refused on the size line that crosses the limit, before its data is read.
        let lf = index(of: "6\r\n", in: over) + 2
        #expect(refused.error == HTTPParserError(.bodyTooLarge, offset: lf))
        #expect(refused.body == bytes("hello"))

        let single = bytes("b\r\nhello world\r\n0\r\n\r\n")
        let first = expectSameForEveryFeeding(single) { runChunked($0, configuration: configuration) }
        #expect(first.error == HTTPParserError(.bodyTooLarge, offset: 2))
        #expect(first.body.isEmpty)
    }

    @Test func sizeLineErrors() {
        // Each case: the input, the error, and the bytes before the offending one.
        let cases: [(String, HTTPParserError.Code, String)] = [
            ("\r\n", .invalidChunkSize, ""),  // no digits
            ("g\r\n", .invalidChunkSize, ""),
            ("5 5\r\nhello\r\n", .invalidChunkSize, "5 "),  // whitespace inside the size
            ("5 \r\nhello\r\n", .invalidChunkSize, "5 "),  // whitespace, then no extension
            ("5\rx", .missingLF, "5\r"),
            ("5\nhello", .bareLF, "5"),
            ("5\r\nhelloXY", .invalidChunkTerminator, "5\r\nhello"),
            ("5\r\nhello\rX", .invalidChunkTerminator, "5\r\nhello\r"),
            ("5\r\nhello\n", .invalidChunkTerminator, "5\r\nhello"),  // a bare LF after data
            ("5\r\nhello\r\n\r\n", .invalidChunkSize, "5\r\nhello\r\n"),  // an empty size line
            ("0\r\n\n", .bareLF, "0\r\n"),  // a bare LF ending the trailer section
            ("-1\r\n", .invalidChunkSize, ""),
            ("0x5\r\nhello\r\n", .invalidChunkSize, "0"),
            ("12345678901234567\r\n", .chunkSizeTooManyDigits, "1234567890123456"),
        ]
        for (text, code, before) in cases {
            let input = bytes(text)
            let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
            #expect(outcome.error == HTTPParserError(code, offset: before.utf8.count), "\(text.debugDescription)")
        }
    }

    @Test func sizeOverflow() {
        var configuration = HTTPParserConfiguration()
        configuration.maxChunkSizeDigits = 32
        // Sixteen F's fit in 64 bits; a seventeenth digit does not.
        let input = bytes("1" + String(repeating: "0", count: 16) + "\r\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0, configuration: configuration) }
        #expect(outcome.error == HTTPParserError(.chunkSizeOverflow, offset: 16))
        // Leading zeros are digits but not magnitude: they do not overflow.
        let zeros = bytes(String(repeating: "0", count: 30) + "1\r\nz\r\n0\r\n\r\n")
        #expect(expectSameForEveryFeeding(zeros) { runChunked($0, configuration: configuration) }.body == bytes("z"))
    }

    @Test func bareLFWhenAllowed() {
        var configuration = HTTPParserConfiguration()
        configuration.allowBareLF = true
        let input = bytes("5\nhello\n3;x\nabc\n0\nT: 1\n\n")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0, configuration: configuration) }
        #expect(outcome.body == bytes("helloabc"))
        #expect(outcome.trailers == ["T: 1"])
        #expect(outcome.ended && outcome.error == nil && outcome.offset == input.count)
    }

    @Test func chunkFlood() {
        var configuration = HTTPParserConfiguration()
        configuration.chunkFloodThreshold = 4
        configuration.minimumMeanChunkBytes = 3
        // Four 2-byte chunks: a mean of 2 < 3 at the fourth size line.
        let flood = chunked(Array(repeating: bytes("ab"), count: 4)) + bytes("0\r\n\r\n")
        let outcome = expectSameForEveryFeeding(flood) { runChunked($0, configuration: configuration) }
        #expect(outcome.error?.code == .chunkFlood)
        #expect(outcome.body == bytes("ababab"))
        // Four 3-byte chunks meet the mean.
        let fine = chunked(Array(repeating: bytes("abc"), count: 4)) + bytes("0\r\n\r\n")
        let ok = expectSameForEveryFeeding(fine) { runChunked($0, configuration: configuration) }
        #expect(ok.error == nil && ok.body.count == 12)
    }

    @Test func hugeChunkWithLittleDataBufferedWaits() {
        // Sizes of 2^63 and more pass the default limits (16 digits, no body limit). With fewer
        // than two data bytes buffered the decoder must wait for more, whatever the size.
        for size in ["8000000000000000", "fffffffffffffffe", "FFFFFFFFFFFFFFFF", "7FFFFFFFFFFFFFFF"] {
            for data in ["", "a", "ab", "abc"] {
                let input = bytes(size + "\r\n" + data)
                let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
                #expect(outcome.body == bytes(data), "\(size) + \(data.debugDescription)")
                #expect(!outcome.ended && outcome.error == nil && outcome.bookkeepingHeld, "\(size) + \(data.debugDescription)")
                #expect(outcome.offset == input.count && outcome.leftover.isEmpty, "\(size) + \(data.debugDescription)")
            }
        }
    }

    @Test func hugeChunkThroughTheResponseParser() {
        let input = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8000000000000000\r\nx")
        let log = expectSameForEveryFeeding(input) { pieces -> [String] in
            var parser = HTTPResponseParser()
            var buffer = ByteBuffer()
            var lines: [String] = []
            do {
                for piece in pieces {
                    buffer.writeBytes(piece)
                    while case let event = try parser.next(&buffer), event != .needMoreData {
                        switch event {
                        case .head(let h): lines.append("head \(h.status)")
                        case .body(let b): lines.append("body \(Fixture.escape(b.readableBytesArray()))")
                        default: lines.append("other \(event)")
                        }
                    }
                }
            } catch {
                lines.append("error \(error)")
            }
            // Body pieces depend on the feeding; their concatenation does not.
            let body = lines.filter { $0.hasPrefix("body ") }.map { $0.dropFirst(5) }.joined()
            return lines.filter { !$0.hasPrefix("body ") } + ["body \(body)"]
        }
        #expect(log == ["head 200", "body x"])
    }

    @Test func truncatedBodyJustWaits() {
        // The decoder has no end-of-stream call: a cut-off body simply has not ended.
        let input = bytes("5\r\nhello\r\n3\r\nab")
        let outcome = expectSameForEveryFeeding(input) { runChunked($0) }
        #expect(!outcome.ended && outcome.error == nil)
        #expect(outcome.body == bytes("helloab"))
        #expect(outcome.offset == input.count)
        #expect(outcome.bookkeepingHeld)
    }
}
