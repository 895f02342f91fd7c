import CourierCore

/// Decodes the chunked transfer coding (RFC 9112 §7.1), resumable at any byte.
///
/// Strict by default: the chunk size is 1*HEXDIG with a digit cap and overflow check; chunk
/// extensions are checked against their grammar (``ChunkExtensionPhase``), bounded, and then
/// ignored; every line ends in CRLF; chunk data is
/// followed by exactly CRLF; the trailer section is parsed with the header-field rules. A guard
/// against tiny-chunk amplification fails a stream whose mean chunk is too small.
public struct ChunkedDecoder: Sendable {
    /// One step of output.
    public enum Event: Sendable, Hashable {
        /// Decoded body bytes, sharing the read buffer's storage.
        case data(ByteBuffer)
        /// The last chunk and trailer section were read; `trailers` is empty when there were none.
        case end(trailers: HTTPHeaderView)
        /// More bytes are needed (or, after `end`, the decoder is done).
        case needMoreData
    }

    private enum State: Sendable {
        case size
        case sizeWhitespace
        /// Inside chunk extensions, at this point of their grammar.
        case sizeExtension(ChunkExtensionPhase)
        case sizeLF
        case data(remaining: UInt64)
        case dataCR
        case dataLF
        case trailers
        case done
    }

    private var state: State = .size
    private var digits = 0
    private var size: UInt64 = 0
    private var extensionBytes = 0
    private var chunkCount = 0
    private var dataBytes: UInt64 = 0
    private var trailerScanner = HeaderBlockScanner(kind: .none)

    public var configuration: HTTPParserConfiguration

    public init(configuration: HTTPParserConfiguration = .default) {
        self.configuration = configuration
    }

    /// Whether the terminating chunk and trailers have been read.
    public var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Prepares for another chunked body, keeping allocated capacity.
    public mutating func reset() {
        state = .size
        digits = 0
        size = 0
        extensionBytes = 0
        chunkCount = 0
        dataBytes = 0
        trailerScanner.reset()
    }

    /// Decodes from the readable bytes of `buffer`, consuming what it uses.
    ///
    /// - Parameters:
    ///   - buffer: input; consumed bytes are removed from its front.
    ///   - offset: the stream offset of the buffer's first readable byte; advanced as bytes are consumed.
    /// - Returns: the next event, or ``Event/needMoreData``.
    public mutating func next(_ buffer: inout ByteBuffer, offset: inout Int) throws(HTTPParserError) -> Event {
        while true {
            switch state {
            case .done:
                return .needMoreData
            case .data(let remaining):
                if let joined = joinChunksInPlace(&buffer, remaining: remaining, offset: &offset) {
                    return .data(joined)
                }
                guard let piece = buffer.readBodySlice(upTo: remaining, offset: &offset) else { return .needMoreData }
                let left = remaining &- UInt64(piece.readableBytes)
                state = left == 0 ? .dataCR : .data(remaining: left)
                return .data(piece)
            case .trailers:
                guard let length = try trailerScanner.scan(&buffer, base: offset, configuration: configuration) else {
                    return .needMoreData
                }
                let trailers =
                    trailerScanner.fields.isEmpty
                    ? HTTPHeaderView() : HTTPHeaderView(block: buffer.slice(count: length), spans: trailerScanner.fields)
                buffer.moveReaderIndex(forwardBy: length)
                offset &+= length
                state = .done
                return .end(trailers: trailers)
            default:
                if try consumeSizeLineFast(&buffer, offset: &offset) { continue }
                let progressed = try consumeFraming(&buffer, offset: &offset)
                if !progressed { return .needMoreData }
            }
        }
    }

    /// The common case in one pass: `[CRLF after data] 1*HEXDIG CRLF` all present in the buffer,
    /// with no extension. Anything else (too few bytes, extensions, errors) returns false without
    /// consuming, and the byte-level machine handles it, so errors and offsets are the same.
    @inline(__always)
    private mutating func consumeSizeLineFast(_ buffer: inout ByteBuffer, offset: inout Int) throws(HTTPParserError) -> Bool {
        let afterData: Bool
        switch state {
        case .dataCR: afterData = true
        case .size where digits == 0: afterData = false
        default: return false
        }
        let maxDigits = fastPathDigits
        let scanned: (end: Int, size: UInt64)? = buffer.withUnsafeReadableBytes { bytes in
            if afterData {
                guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\r"), bytes[1] == UInt8(ascii: "\n") else { return nil }
                return Self.sizeLine(bytes, at: 2, maxDigits: maxDigits)
            }
            return Self.sizeLine(bytes, at: 0, maxDigits: maxDigits)
        }
        guard let scanned else { return false }
        let next = try sizeLineEnded(chunk: scanned.size, at: offset &+ scanned.end &- 1)
        buffer.moveReaderIndex(forwardBy: scanned.end)
        offset &+= scanned.end
        state = next
        return true
    }

    /// At most 16 digits on the fast paths, so a size cannot overflow; longer sizes go slow.
    private var fastPathDigits: Int { Swift.min(configuration.maxChunkSizeDigits, 16) }

    /// Parses `1*HEXDIG CRLF` at `start`: the index after the LF and the size, or nil when the
    /// bytes are not exactly that (or not all there).
    @inline(__always)
    private static func sizeLine(_ bytes: UnsafeRawBufferPointer, at start: Int, maxDigits: Int) -> (end: Int, size: UInt64)? {
        var i = start
        var size: UInt64 = 0
        while i < bytes.count, i &- start < maxDigits, let v = ByteClass.hexValue(bytes[i]) {
            size = size << 4 | UInt64(v)
            i &+= 1
        }
        guard i > start, i &+ 1 < bytes.count, bytes[i] == UInt8(ascii: "\r"), bytes[i &+ 1] == UInt8(ascii: "\n") else {
            return nil
        }
        return (i &+ 2, size)
    }

    /// When the whole current chunk and one or more whole chunks after it are already in a buffer
    /// this decoder may write to, moves their data down over the framing between them and returns
    /// it as one slice: one event instead of one per chunk, with no copy out of the buffer.
    ///
    /// Only well-formed `CRLF size CRLF` framing is joined, and only chunks that pass the limits;
    /// at the first thing that is not, it stops, and the byte-level path takes over from there,
    /// so errors, offsets and the bytes delivered are the same as without joining. Returns nil
    /// (and changes nothing) when there is nothing to join or the buffer's storage is shared.
    private mutating func joinChunksInPlace(_ buffer: inout ByteBuffer, remaining: UInt64, offset: inout Int) -> ByteBuffer? {
        // The current chunk's data, its CRLF and at least one more byte must be buffered. Checked
        // without wrapping: with fewer than two bytes, `readableBytes - 2` would wrap around and
        // let a size of 2^63 or more through to the Int conversion below, which traps.
        let readable = buffer.readableBytes
        guard readable > 2, remaining < UInt64(readable &- 2) else { return nil }
        let first = Int(remaining)
        let maxDigits = fastPathDigits
        var chunks = 0
        var added: UInt64 = 0
        let joined: (data: Int, consumed: Int)? = buffer.withUnsafeMutableReadableBytesIfUnique { bytes in
            var write = first
            var read = first
            while read &+ 2 <= bytes.count, bytes[read] == UInt8(ascii: "\r"), bytes[read &+ 1] == UInt8(ascii: "\n"),
                let line = Self.sizeLine(UnsafeRawBufferPointer(bytes), at: read &+ 2, maxDigits: maxDigits),
                line.size > 0, line.size <= UInt64(bytes.count &- line.end),
                chunkLimitBroken(line.size, afterChunks: chunks, bytes: added) == nil
            {
                let size = Int(line.size)
                // Safe: both ranges lie inside the readable bytes; memmove handles the overlap.
                bytes.baseAddress!.advanced(by: write).copyMemory(from: bytes.baseAddress!.advanced(by: line.end), byteCount: size)
                write &+= size
                read = line.end &+ size
                chunks &+= 1
                added &+= line.size
            }
            return chunks > 0 ? (write, read) : nil
        } ?? nil
        guard let joined else { return nil }
        chunkCount &+= chunks
        dataBytes &+= added
        let piece = buffer.slice(count: joined.data)
        buffer.moveReaderIndex(forwardBy: joined.consumed)
        offset &+= joined.consumed
        state = .dataCR
        return piece
    }

    /// The limit one more chunk of `size` bytes would break, after `chunks` more chunks of
    /// `bytes` bytes than counted so far: the body limit, then the tiny-chunk flood guard.
    @inline(__always)
    private func chunkLimitBroken(_ size: UInt64, afterChunks chunks: Int = 0, bytes: UInt64 = 0) -> HTTPParserError.Code? {
        let count = chunkCount &+ chunks &+ 1
        let (total, overflow) = dataBytes.addingReportingOverflow(bytes &+ size)
        if overflow || (configuration.maxBodyBytes.map { total > $0 } ?? false) { return .bodyTooLarge }
        if count >= configuration.chunkFloodThreshold && total / UInt64(count) < UInt64(configuration.minimumMeanChunkBytes) {
            return .chunkFlood
        }
        return nil
    }

    /// Runs the byte-level states (size line, data CRLF) over the readable bytes. Returns whether
    /// it reached a state that is not byte-level (data, trailers, done).
    ///
    /// The state and counters are copied into locals for the loop and written back after it, so
    /// the per-byte work stays in registers.
    private mutating func consumeFraming(_ buffer: inout ByteBuffer, offset: inout Int) throws(HTTPParserError) -> Bool {
        let base = offset
        var state = self.state
        var digits = self.digits
        var size = self.size
        var extensionBytes = self.extensionBytes
        let maxDigits = configuration.maxChunkSizeDigits
        let maxExtension = configuration.maxChunkExtensionBytes
        let allowBareLF = configuration.allowBareLF
        let used = try buffer.withUnsafeReadableBytes { (bytes) throws(HTTPParserError) -> Int in
            var i = 0
            let count = bytes.count
            while i < count {
                let byte = bytes[i]
                var lineEnded = false
                switch state {
                case .size:
                    if let v = ByteClass.hexValue(byte) {
                        digits &+= 1
                        guard digits <= maxDigits else { throw HTTPParserError(.chunkSizeTooManyDigits, offset: base &+ i) }
                        guard size <= UInt64.max >> 4 else { throw HTTPParserError(.chunkSizeOverflow, offset: base &+ i) }
                        size = size << 4 | UInt64(v)
                    } else if digits == 0 {
                        throw HTTPParserError(.invalidChunkSize, offset: base &+ i)
                    } else if byte == UInt8(ascii: "\r") {
                        state = .sizeLF
                    } else if byte == UInt8(ascii: ";") {
                        state = .sizeExtension(.beforeName)
                    } else if ByteClass.isWhitespace(byte) {
                        state = .sizeWhitespace
                    } else if byte == UInt8(ascii: "\n") {
                        guard allowBareLF else { throw HTTPParserError(.bareLF, offset: base &+ i) }
                        lineEnded = true
                    } else {
                        throw HTTPParserError(.invalidChunkSize, offset: base &+ i)
                    }
                case .sizeWhitespace:
                    // BWS is allowed only before a chunk extension (RFC 9112 §7.1.1).
                    if byte == UInt8(ascii: ";") {
                        state = .sizeExtension(.beforeName)
                    } else if !ByteClass.isWhitespace(byte) {
                        throw HTTPParserError(.invalidChunkSize, offset: base &+ i)
                    }
                case .sizeExtension(let extensionPhase):
                    // RFC 9112 §7.1.1, checked and then ignored. The line may end only after a
                    // name or a whole value; a CR or LF anywhere else breaks the grammar.
                    if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                        guard extensionPhase.mayEndLine else {
                            throw HTTPParserError(.invalidChunkExtension, offset: base &+ i)
                        }
                        if byte == UInt8(ascii: "\r") {
                            state = .sizeLF
                        } else {
                            guard allowBareLF else { throw HTTPParserError(.bareLF, offset: base &+ i) }
                            lineEnded = true
                        }
                    } else {
                        extensionBytes &+= 1
                        guard extensionBytes <= maxExtension else {
                            throw HTTPParserError(.chunkExtensionTooLong, offset: base &+ i)
                        }
                        guard let next = extensionPhase.next(byte) else {
                            throw HTTPParserError(.invalidChunkExtension, offset: base &+ i)
                        }
                        state = .sizeExtension(next)
                    }
                case .sizeLF:
                    guard byte == UInt8(ascii: "\n") else { throw HTTPParserError(.missingLF, offset: base &+ i) }
                    lineEnded = true
                case .dataCR:
                    if byte == UInt8(ascii: "\r") {
                        state = .dataLF
                    } else if byte == UInt8(ascii: "\n") && allowBareLF {
                        state = .size
                    } else {
                        throw HTTPParserError(.invalidChunkTerminator, offset: base &+ i)
                    }
                case .dataLF:
                    guard byte == UInt8(ascii: "\n") else {
                        throw HTTPParserError(.invalidChunkTerminator, offset: base &+ i)
                    }
                    state = .size
                case .data, .trailers, .done:
                    return i
                }
                i &+= 1
                if lineEnded {
                    state = try sizeLineEnded(chunk: size, at: base &+ i &- 1)
                    digits = 0
                    size = 0
                    extensionBytes = 0
                    return i
                }
            }
            return i
        }
        self.state = state
        self.digits = digits
        self.size = size
        self.extensionBytes = extensionBytes
        buffer.moveReaderIndex(forwardBy: used)
        offset &+= used
        switch state {
        case .data, .trailers, .done: return true
        default: return false
        }
    }

    /// A size line is complete: check the limits and return the next state (data or trailers).
    private mutating func sizeLineEnded(chunk: UInt64, at offset: Int) throws(HTTPParserError) -> State {
        if chunk == 0 { return .trailers }
        if let broken = chunkLimitBroken(chunk) { throw HTTPParserError(broken, offset: offset) }
        chunkCount &+= 1
        dataBytes &+= chunk
        return .data(remaining: chunk)
    }
}

extension ByteBuffer {
    /// Removes up to `remaining` readable bytes from the front as a shared slice and advances the
    /// stream `offset`; nil when nothing is readable.
    @inline(__always)
    mutating func readBodySlice(upTo remaining: UInt64, offset: inout Int) -> ByteBuffer? {
        let available = readableBytes
        guard available > 0 else { return nil }
        let piece = readSlice(count: Int(Swift.min(remaining, UInt64(available))))
        offset &+= piece.readableBytes
        return piece
    }
}
