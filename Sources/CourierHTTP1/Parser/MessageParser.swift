import CourierCore

/// What a message side (request or response) contributes to the shared parser: its start line,
/// how a head turns into framing, and its public event type. Specialised at compile time, so the
/// shared parser builds the public events directly.
protocol MessageRole {
    associatedtype Event: Sendable
    static var startLineKind: StartLineKind { get }
    /// The framing role of a parsed start line (RFC 9112 §6.3 needs the request method and status).
    static func framingRole(_ line: StartLine, requestMethod: RequestMethodKind) -> BodyFraming.Role
    /// Builds the head event and says what follows it.
    static func head(
        block: ByteBuffer, line: StartLine, fields: [HTTPFieldSpan], framing: BodyFraming, keepAlive: Bool,
        hasContentEncoding: Bool
    ) -> (Event, HeadDisposition)
    static func body(_ bytes: ByteBuffer) -> Event
    static func end(_ trailers: HTTPHeaderView) -> Event
    static var needMoreData: Event { get }
}

/// What comes after a head.
enum HeadDisposition: Sendable {
    /// The head's own body, as framed.
    case message
    /// An interim 1xx head: another head follows.
    case interim
    /// 101: the stream leaves HTTP/1.1.
    case upgrade
}

/// The request methods that change how a response is framed (RFC 9112 §6.3), kept as a trivial
/// value so the hot path copies no strings.
enum RequestMethodKind: Sendable {
    case head, connect, other

    init(_ method: HTTPMethod) {
        // By length first: most methods are neither, and comparing two different small strings
        // takes the standard library's slow path (set for every request a client sends).
        switch method.rawValue.utf8.count {
        case 4 where method == .HEAD: self = .head
        case 7 where method == .CONNECT: self = .connect
        default: self = .other
        }
    }
}

/// The parser shared by requests and responses: a head (start line and fields), then a body
/// delimited as ``BodyFraming`` decides. ``HTTPResponseParser`` and ``HTTPRequestParser`` are
/// this parser with their role.
struct MessageParser<Role: MessageRole>: Sendable {
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
    private var scanner = HeaderBlockScanner(kind: Role.startLineKind)
    private var chunked: ChunkedDecoder
    /// Stream offset of the buffer's first readable byte.
    private(set) var offset = 0
    private var upgradeAfterEnd = false
    /// The scanner still describes the last head returned; it is reset when the next head starts,
    /// so the head's field spans need not be copied.
    private var scannerHoldsLastHead = false

    init(configuration: HTTPParserConfiguration) {
        self.configuration = configuration
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

    mutating func next(_ buffer: inout ByteBuffer, requestMethod: RequestMethodKind) throws(HTTPParserError) -> Role.Event {
        do {
            return try step(&buffer, requestMethod: requestMethod)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step(_ buffer: inout ByteBuffer, requestMethod: RequestMethodKind) throws(HTTPParserError) -> Role.Event {
        switch state {
        case .chunked:
            switch try chunked.next(&buffer, offset: &offset) {
            case .needMoreData: return Role.needMoreData
            case .data(let piece): return Role.body(piece)
            case .end(let trailers):
                state = .head
                return Role.end(trailers)
            }
        case .fixed(let remaining):
            guard let piece = buffer.readBodySlice(upTo: remaining, offset: &offset) else { return Role.needMoreData }
            let left = remaining &- UInt64(piece.readableBytes)
            state = left == 0 ? .endPending : .fixed(remaining: left)
            return Role.body(piece)
        case .head:
            return try parseHead(&buffer, requestMethod: requestMethod)
        case .endPending:
            state = upgradeAfterEnd ? .upgraded : .head
            upgradeAfterEnd = false
            return Role.end(HTTPHeaderView())
        case .untilClose(let received):
            guard buffer.readableBytes > 0 else { return Role.needMoreData }
            let allowed = configuration.maxBodyBytes.map { $0 &- Swift.min($0, received) } ?? .max
            guard allowed > 0 else { throw HTTPParserError(.bodyTooLarge, offset: offset) }
            guard let piece = buffer.readBodySlice(upTo: allowed, offset: &offset) else { return Role.needMoreData }
            state = .untilClose(received: received &+ UInt64(piece.readableBytes))
            return Role.body(piece)
        case .upgraded:
            return Role.needMoreData
        case .failed(let error):
            throw error
        }
    }

    private mutating func parseHead(_ buffer: inout ByteBuffer, requestMethod: RequestMethodKind) throws(HTTPParserError) -> Role.Event {
        guard buffer.readableBytes > 0 else { return Role.needMoreData }
        if scannerHoldsLastHead {
            scanner.reset()
            scannerHoldsLastHead = false
        }
        let configuration = self.configuration
        let base = offset
        let length = try scanner.scan(&buffer, base: base, configuration: configuration)
        guard let length else { return Role.needMoreData }
        let line = scanner.startLine
        let framing = try BodyFraming.decide(
            role: Role.framingRole(line, requestMethod: requestMethod), version: line.version,
            fields: scanner.framing, configuration: configuration, headOffset: base)
        let keepAlive = BodyFraming.isKeepAlive(version: line.version, fields: scanner.framing, framing: framing)
        let (event, disposition) = Role.head(
            block: buffer.slice(count: length), line: line, fields: scanner.fields, framing: framing, keepAlive: keepAlive,
            hasContentEncoding: scanner.framing.contentEncoding)
        buffer.moveReaderIndex(forwardBy: length)
        offset &+= length
        scannerHoldsLastHead = true
        switch (disposition, framing) {
        case (.interim, _):
            state = .head
        case (.upgrade, _):
            state = .upgraded
        case (.message, .none):
            state = .endPending
        case (.message, .contentLength(let n)):
            state = .fixed(remaining: n)
        case (.message, .chunked):
            chunked.reset()
            state = .chunked
        case (.message, .untilClose):
            state = .untilClose(received: 0)
        case (.message, .tunnel):
            state = .endPending
            upgradeAfterEnd = true
        }
        return event
    }

    /// The peer closed the stream. Ends a close-delimited body; anything else mid-message is
    /// a truncation.
    mutating func finish(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> Role.Event {
        switch state {
        case .failed(let error):
            throw error
        case .upgraded:
            return Role.needMoreData
        case .endPending:
            // Deliver the pending end first; the close is seen on a later call.
            return try next(&buffer, requestMethod: .other)
        case .untilClose:
            if buffer.readableBytes > 0 { return try next(&buffer, requestMethod: .other) }
            state = .head
            return Role.end(HTTPHeaderView())
        case .head where isAtMessageBoundary && buffer.readableBytes == 0:
            return Role.needMoreData
        case .head, .fixed, .chunked:
            let error = HTTPParserError(.truncatedMessage, offset: offset &+ buffer.readableBytes)
            state = .failed(error)
            throw error
        }
    }
}
