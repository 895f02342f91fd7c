import CourierCore

/// The parser shared by requests and responses: a head (start line and fields), then a body
/// delimited as ``BodyFraming`` decides. The public ``HTTPResponseParser`` and
/// ``HTTPRequestParser`` wrap it and name the events for their side.
@usableFromInline
struct MessageParser: Sendable {
    enum Event: Sendable {
        case head(block: ByteBuffer, framing: BodyFraming, keepAlive: Bool)
        case body(ByteBuffer)
        case end(trailers: HTTPHeaderView?)
    }

    private enum State: Sendable {
        case head
        case fixed(remaining: UInt64)
        case chunked
        case untilClose(received: UInt64)
        case endPending
        /// After a tunnel or protocol switch: the rest of the stream is not HTTP/1.1.
        case upgraded
        case failed(HTTPParserError)
    }

    var configuration: HTTPParserConfiguration {
        didSet { chunked.configuration = configuration }
    }
    private var state: State = .head
    private(set) var scanner: HeaderBlockScanner
    private var chunked: ChunkedDecoder
    /// Stream offset of the buffer's first readable byte.
    private(set) var offset = 0
    private var upgradeAfterEnd = false
    /// The scanner still describes the last head returned; it is reset when the next head starts,
    /// so the head's field spans need not be copied.
    private var scannerHoldsLastHead = false

    init(kind: StartLineKind, configuration: HTTPParserConfiguration) {
        self.configuration = configuration
        self.scanner = HeaderBlockScanner(kind: kind)
        self.chunked = ChunkedDecoder(configuration: configuration)
    }

    /// Whether the parser is between messages with no partial head buffered.
    var isAtMessageBoundary: Bool {
        if case .head = state { return scannerHoldsLastHead || !scanner.hasStarted }
        return false
    }

    var isUpgraded: Bool {
        if case .upgraded = state { return true }
        return false
    }

    /// The start line of the head most recently returned.
    var startLine: StartLine { scanner.startLine }

    mutating func next(
        _ buffer: inout ByteBuffer, role: (StartLine) -> BodyFraming.Role
    ) throws(HTTPParserError) -> Event? {
        do {
            return try step(&buffer, role: role)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step(
        _ buffer: inout ByteBuffer, role: (StartLine) -> BodyFraming.Role
    ) throws(HTTPParserError) -> Event? {
        switch state {
        case .failed(let error):
            throw error
        case .upgraded:
            return nil
        case .endPending:
            state = upgradeAfterEnd ? .upgraded : .head
            upgradeAfterEnd = false
            return .end(trailers: nil)
        case .head:
            return try parseHead(&buffer, role: role)
        case .fixed(let remaining):
            guard let piece = buffer.readBodySlice(upTo: remaining, offset: &offset) else { return nil }
            let left = remaining &- UInt64(piece.readableBytes)
            state = left == 0 ? .endPending : .fixed(remaining: left)
            return .body(piece)
        case .untilClose(let received):
            guard buffer.readableBytes > 0 else { return nil }
            let allowed = configuration.maxBodyBytes.map { $0 &- Swift.min($0, received) } ?? .max
            guard allowed > 0 else { throw HTTPParserError(.bodyTooLarge, offset: offset) }
            guard let piece = buffer.readBodySlice(upTo: allowed, offset: &offset) else { return nil }
            state = .untilClose(received: received &+ UInt64(piece.readableBytes))
            return .body(piece)
        case .chunked:
            switch try chunked.next(&buffer, offset: &offset) {
            case nil: return nil
            case .data(let piece)?: return .body(piece)
            case .end(let trailers)?:
                state = .head
                return .end(trailers: trailers)
            }
        }
    }

    private mutating func parseHead(
        _ buffer: inout ByteBuffer, role: (StartLine) -> BodyFraming.Role
    ) throws(HTTPParserError) -> Event? {
        guard buffer.readableBytes > 0 else { return nil }
        if scannerHoldsLastHead {
            scanner.reset()
            scannerHoldsLastHead = false
        }
        let configuration = self.configuration
        let base = offset
        let length: Int?
        if configuration.allowObsFold {
            length = try buffer.withUnsafeMutableReadableBytes { (m) throws(HTTPParserError) -> Int? in
                try scanner.scan(UnsafeRawBufferPointer(m), mutableBytes: m, base: base, configuration: configuration)
            }
        } else {
            length = try buffer.withUnsafeReadableBytes { (b) throws(HTTPParserError) -> Int? in
                try scanner.scan(b, mutableBytes: nil, base: base, configuration: configuration)
            }
        }
        guard let length else { return nil }
        let block = buffer.slice(count: length)
        let line = scanner.startLine
        let framing = try BodyFraming.decide(
            role: role(line), version: line.version, fields: scanner.framing,
            configuration: configuration, headOffset: base)
        let keepAlive = BodyFraming.isKeepAlive(version: line.version, fields: scanner.framing, framing: framing)
        buffer.moveReaderIndex(forwardBy: length)
        offset &+= length
        scannerHoldsLastHead = true
        switch framing {
        case .none:
            state = .endPending
        case .contentLength(let n):
            state = .fixed(remaining: n)
        case .chunked:
            chunked.reset()
            state = .chunked
        case .untilClose:
            state = .untilClose(received: 0)
        case .tunnel:
            state = .endPending
            upgradeAfterEnd = true
        }
        return .head(block: block, framing: framing, keepAlive: keepAlive)
    }

    /// Marks the stream as handed over to another protocol (101 Switching Protocols).
    mutating func markUpgraded() {
        state = .upgraded
    }

    /// Marks an interim (1xx) head as done: the next bytes are another head.
    mutating func expectAnotherHead() {
        state = .head
    }

    /// The peer closed the stream. Ends a close-delimited body; anything else mid-message is
    /// a truncation.
    mutating func finish(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> Event? {
        switch state {
        case .failed(let error):
            throw error
        case .upgraded:
            return nil
        case .endPending, .untilClose where buffer.readableBytes > 0:
            // Deliver what is pending first; the close is seen on a later call.
            return try next(&buffer) { _ in .request }
        case .untilClose:
            state = .head
            return .end(trailers: nil)
        case .head where isAtMessageBoundary && buffer.readableBytes == 0:
            return nil
        case .head, .fixed, .chunked:
            let error = HTTPParserError(.truncatedMessage, offset: offset &+ buffer.readableBytes)
            state = .failed(error)
            throw error
        }
    }
}
