import CourierCore

/// What the request parser found next.
public enum HTTPRequestParserEvent: Sendable, Hashable {
    case head(HTTPRequestHeadView)
    case body(ByteBuffer)
    case end(trailers: HTTPHeaderView)
    /// Nothing more can be parsed until more bytes arrive.
    case needMoreData
}

/// An incremental HTTP/1.1 request parser for Courier's loopback test and demo servers.
///
/// It shares the head scanner, framing rules and chunked decoder with ``HTTPResponseParser``, so
/// the same strictness applies: a request with neither Content-Length nor Transfer-Encoding has no
/// body (RFC 9112 §6.3 ¶8).
public struct HTTPRequestParser: Sendable {
    private var core: MessageParser<RequestRole>

    public init(configuration: HTTPParserConfiguration = .default) {
        self.core = MessageParser(configuration: configuration)
    }

    /// The total number of bytes consumed so far.
    public var bytesConsumed: Int { core.offset }

    /// Whether the parser is between requests with no partial head seen.
    public var isAtMessageBoundary: Bool { core.isAtMessageBoundary }

    /// Parses the next event from `buffer`, or returns ``HTTPRequestParserEvent/needMoreData``.
    public mutating func next(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPRequestParserEvent {
        try core.next(&buffer, requestMethod: .other)
    }

    /// Tells the parser the peer closed the connection.
    public mutating func finish(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPRequestParserEvent {
        try core.finish(&buffer)
    }
}

/// The request side of ``MessageParser``.
enum RequestRole: MessageRole {
    static var startLineKind: StartLineKind { .request }

    static func framingRole(_ line: StartLine, requestMethod: RequestMethodKind) -> BodyFraming.Role { .request }

    static func head(
        block: ByteBuffer, line: StartLine, fields: [HTTPFieldSpan], framing: BodyFraming, keepAlive: Bool,
        hasContentEncoding: Bool
    ) -> (HTTPRequestParserEvent, HeadDisposition) {
        let name = block.withUnsafeReadableBytes { String(decoding: $0[0..<line.methodLength], as: UTF8.self) }
        // The scanner has checked the method is a non-empty token, so this cannot fail.
        let method = HTTPMethod(name) ?? .GET
        let head = HTTPRequestHeadView(
            method: method,
            target: HTTPBytes(block.slice(offset: line.targetStart, count: line.targetLength)),
            version: line.version,
            headers: HTTPHeaderView(block: block, spans: fields),
            framing: framing,
            isKeepAlive: keepAlive)
        return (.head(head), .message)
    }

    static func body(_ bytes: ByteBuffer) -> HTTPRequestParserEvent { .body(bytes) }
    static func end(_ trailers: HTTPHeaderView) -> HTTPRequestParserEvent { .end(trailers: trailers) }
    static var needMoreData: HTTPRequestParserEvent { .needMoreData }
}
