// Fuzzes ChunkedDecoder on its own: the same chunked body fed whole and cut into pieces must give
// the same data, trailers and error (code and offset), and the stream offset it keeps must always
// equal the bytes it consumed.
//
// Input layout:
//   bytes 0–3   parser configuration (HTTPParserConfiguration.fuzzed): limits and leniencies
//   byte  4     feeding mode (low two bits: 1/2/3 cuts or bytewise); bit 2: start the stream
//               offset at 1000 instead of 0 (offsets are relative to where the body starts);
//               bit 3: the split feeding keeps every data slice alive to the end (so chunks are
//               not joined in place) and checks none changed
//   bytes 5–10  three little-endian 16-bit cut selectors
//   bytes 11…   the chunked body (anything after the last chunk's trailers is left unread)
import CourierCore
import CourierHTTP1
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkedDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let configuration = HTTPParserConfiguration.fuzzed(&reader)
    let streamLength = Swift.max(0, size - 11)
    let (feeding, modeBits) = Feeding.read(from: &reader, count: streamLength)
    let startOffset = modeBits & 1 != 0 ? 1000 : 0
    let retain = modeBits & 2 != 0
    let stream = reader.rest()

    let setup = "configuration: \(configuration.fuzzSummary) startOffset=\(startOffset) retain=\(retain)"
    var decoder = ChunkedDecoder(configuration: configuration)
    let whole = decode(
        [stream[...]], decoder: &decoder, startOffset: startOffset, total: stream.count, retain: false, setup: setup)
    let split = decode(
        feeding.pieces(stream), decoder: &decoder, startOffset: startOffset, total: stream.count, retain: retain,
        setup: setup)
    expectSameLog(whole, split, feeding: feeding, input: stream)

    // A body the decoder accepted must hold the data a plain reading of the grammar finds.
    if case .event(let last)? = whole.entries.last, last.hasPrefix("stopped done=true") {
        var data: [UInt8] = []
        for case .body(let bytes) in whole.entries { data += bytes }
        let reference = referenceDecode(stream, allowBareLF: configuration.allowBareLF)
        fuzzCheck(
            reference != nil && reference!.data == data && last == "stopped done=true consumed=\(reference!.consumed)",
            "\(setup)\ninput: \(escaped(stream.prefix(512)))\ndecoder: \(whole)\nreference: "
                + (reference.map { "\($0.data.count) bytes \(escaped($0.data.prefix(256))), consumed \($0.consumed)" } ?? "refused"))
    }
    return 0
}

/// A deliberately simple chunked decoder, for bodies the real one accepted: size lines are read
/// as leading hex digits up to the line end, whatever follows the digits must be chunk extensions
/// (checked by ``isChunkExtensionList``, written apart from the decoder), data is taken by size,
/// trailer lines are skipped up to the empty line. Returns the data and the bytes used, or nil
/// when the body is not complete chunked coding.
private func referenceDecode(_ s: [UInt8], allowBareLF: Bool) -> (data: [UInt8], consumed: Int)? {
    func line(from start: Int) -> (contentEnd: Int, next: Int)? {
        guard let lf = s[start...].firstIndex(of: 0x0A) else { return nil }
        if lf > start && s[lf - 1] == 0x0D { return (lf - 1, lf + 1) }
        return allowBareLF ? (lf, lf + 1) : nil
    }
    var data: [UInt8] = []
    var i = 0
    while true {
        guard let (end, next) = line(from: i) else { return nil }
        var size: UInt64 = 0
        var digits = 0
        for b in s[i..<end] {
            guard let v = UInt8(String(UnicodeScalar(b)), radix: 16) else { break }
            guard size >> 60 == 0 else { return nil }
            size = size << 4 | UInt64(v)
            digits += 1
        }
        guard digits > 0, isChunkExtensionList(s[(i + digits)..<end]) else { return nil }
        i = next
        if size == 0 {
            while true {
                guard let (end, next) = line(from: i) else { return nil }
                if end == i { return (data, next) }
                i = next
            }
        }
        guard size <= UInt64(s.count - i) else { return nil }
        data += s[i..<(i + Int(size))]
        i += Int(size)
        if i + 1 < s.count && s[i] == 0x0D && s[i + 1] == 0x0A {
            i += 2
        } else if allowBareLF && i < s.count && s[i] == 0x0A {
            i += 1
        } else {
            return nil
        }
    }
}

/// Resets `decoder` (so its reuse is tested too), feeds `pieces`, and returns the normalised log.
private func decode(
    _ pieces: [ArraySlice<UInt8>], decoder: inout ChunkedDecoder, startOffset: Int, total: Int, retain: Bool,
    setup: String
) -> EventLog {
    decoder.reset()
    let configuration = decoder.configuration
    var buffer = ByteBuffer()
    var offset = startOffset
    var fed = 0
    var log = EventLog()
    var dataBytes: UInt64 = 0
    var events = 0
    var held: [(ByteBuffer, [UInt8])] = []

    func checkOffset(_ context: String) {
        fuzzCheck(
            offset >= startOffset && offset - startOffset <= total,
            "\(setup)\n\(context): offset \(offset) outside \(startOffset)...\(startOffset + total)")
        fuzzCheck(
            offset - startOffset + buffer.readableBytes == fed,
            "\(setup)\n\(context): consumed \(offset - startOffset) + buffered \(buffer.readableBytes) != fed \(fed)")
    }

    do throws(HTTPParserError) {
        for (index, piece) in pieces.enumerated() {
            buffer.writeBytes(piece)
            fed += piece.count
            while true {
                let event = try decoder.next(&buffer, offset: &offset)
                if case .needMoreData = event { break }
                events += 1
                fuzzCheck(events <= total + 1, "\(setup)\nmore than \(total + 1) events from \(total) bytes")
                checkOffset("piece \(index)")
                switch event {
                case .data(let bytes):
                    fuzzCheck(bytes.readableBytes > 0, "\(setup)\nempty data event")
                    fuzzCheck(!decoder.isDone, "\(setup)\ndata after the end")
                    dataBytes += UInt64(bytes.readableBytes)
                    if let max = configuration.maxBodyBytes {
                        fuzzCheck(dataBytes <= max, "\(setup)\n\(dataBytes) data bytes, limit \(max)")
                    }
                    log.body(bytes)
                    if retain { held.append((bytes, bytes.readableBytesArray())) }
                case .end(let trailers):
                    fuzzCheck(decoder.isDone, "\(setup)\nend event but not done")
                    if trailers.isEmpty {
                        log.add("end")
                    } else {
                        checkFieldSection(trailers, maxFieldCount: configuration.maxFieldCount, what: "\(setup)\ntrailers")
                        log.add("end trailers=\(render(trailers))")
                    }
                case .needMoreData:
                    break
                }
            }
            checkOffset("piece \(index) drained")
        }
        // Once done, the decoder reads nothing more.
        if decoder.isDone {
            let left = buffer.readableBytes
            let again = try decoder.next(&buffer, offset: &offset)
            fuzzCheck(again == .needMoreData && buffer.readableBytes == left, "\(setup)\nthe decoder read past its end")
        }
        log.add("stopped done=\(decoder.isDone) consumed=\(offset - startOffset)")
    } catch {
        fuzzCheck(
            error.offset >= startOffset && error.offset <= startOffset + total,
            "\(setup)\nerror \(error) has an offset outside \(startOffset)...\(startOffset + total)")
        fuzzCheck(error.offset >= offset, "\(setup)\nerror \(error) is before the bytes already consumed (\(offset))")
        checkOffset("after error \(error)")
        log.add("error \(error.code)@\(error.offset - startOffset)")
    }
    for (slice, bytes) in held {
        fuzzCheck(
            slice.readableBytesArray() == bytes,
            "\(setup)\ndata changed after it was returned: \(escaped(bytes)) now \(escaped(slice))")
    }
    return log
}

/// RFC 9112 §7.1.1 `*( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] )`, with
/// RFC 9110 §5.6.4 quoted strings, as a plain recursive-descent check of a whole line's tail.
private func isChunkExtensionList(_ e: ArraySlice<UInt8>) -> Bool {
    let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    func isText(_ b: UInt8) -> Bool { b == 0x09 || (b >= 0x20 && b != 0x7F) }
    var i = e.startIndex
    func skipBWS() { while i < e.endIndex, e[i] == 0x20 || e[i] == 0x09 { i += 1 } }
    func token() -> Bool {
        let start = i
        while i < e.endIndex, tchars.contains(e[i]) { i += 1 }
        return i > start
    }
    func quotedString() -> Bool {
        guard i < e.endIndex, e[i] == 0x22 else { return false }
        i += 1
        while i < e.endIndex {
            let b = e[i]
            i += 1
            if b == 0x22 { return true }
            if b == 0x5C {
                guard i < e.endIndex, isText(e[i]) else { return false }
                i += 1
            } else if !isText(b) {
                return false
            }
        }
        return false
    }
    while i < e.endIndex {
        skipBWS()
        guard i < e.endIndex, e[i] == 0x3B else { return false }
        i += 1
        skipBWS()
        guard token() else { return false }
        let afterName = i
        skipBWS()
        if i < e.endIndex, e[i] == 0x3D {
            i += 1
            skipBWS()
            guard i < e.endIndex, e[i] == 0x22 ? quotedString() : token() else { return false }
        } else {
            // Only BWS ";" may follow; BWS before the line end is refused by the loop's guard.
            i = afterName
        }
    }
    return true
}
