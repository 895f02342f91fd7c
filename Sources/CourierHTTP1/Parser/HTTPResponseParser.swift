import CourierCore

/// What the response parser found next.
public enum HTTPResponseParserEvent: Sendable, Hashable {
    /// An interim 1xx response other than 101 (RFC 9110 §15.2), such as 100 Continue or
    /// 103 Early Hints. Another head follows.
    case informational(HTTPResponseHead)
    /// The final response head.
    case head(HTTPResponseHead)
    /// `101 Switching Protocols` (RFC 9110 §15.2.2): the parser stops, and the bytes left in the
    /// buffer belong to the new protocol.
    case switchingProtocols(HTTPResponseHead)
    /// Body bytes, after chunked decoding, sharing the read buffer's storage.
    case body(ByteBuffer)
    /// The response is complete. `trailers` is empty unless a chunked body had a trailer section.
    case end(trailers: HTTPHeaderView)
    /// Nothing more can be parsed until more bytes arrive (or the stream ends: see
    /// ``HTTPResponseParser/finish(_:)``).
    case needMoreData
}

/// An incremental HTTP/1.1 response parser (RFC 9112) that resumes at any byte boundary.
///
/// Feed it by appending bytes to a ``ByteBuffer`` and calling ``next(_:)`` until it returns
/// ``HTTPResponseParserEvent/needMoreData``;
/// it consumes what it has used from the front of the buffer and leaves a partial head in place.
/// Heads are zero-copy views into the buffer. After any error the parser stays failed and the
/// connection must not be reused.
///
/// ```swift
/// var parser = HTTPResponseParser()
/// parser.requestMethod = .GET
/// buffer.writeBytes(bytesFromSocket)
/// while case let event = try parser.next(&buffer), event != .needMoreData { handle(event) }
/// ```
public struct HTTPResponseParser: Sendable {
    private var core: MessageParser<ResponseRole>
    private var methodKind = RequestMethodKind.other

    /// The method of the request whose response comes next: a response to HEAD has no body and
    /// a 2xx response to CONNECT opens a tunnel (RFC 9112 §6.3). Defaults to GET.
    public var requestMethod: HTTPMethod = .GET {
        didSet { methodKind = RequestMethodKind(requestMethod) }
    }

    public var configuration: HTTPParserConfiguration {
        get { core.configuration }
        set { core.configuration = newValue }
    }

    public init(configuration: HTTPParserConfiguration = .default) {
        self.core = MessageParser(configuration: configuration)
    }

    /// The total number of bytes consumed so far.
    public var bytesConsumed: Int { core.offset }

    /// Whether the parser is between responses with no partial head seen.
    public var isAtMessageBoundary: Bool { core.isAtMessageBoundary }

    /// Whether a 101 or a CONNECT tunnel ended HTTP/1.1 on this stream.
    public var isUpgraded: Bool { core.isUpgraded }

    /// Parses the next event from `buffer`, or returns ``HTTPResponseParserEvent/needMoreData``.
    public mutating func next(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPResponseParserEvent {
        try core.next(&buffer, requestMethod: methodKind)
    }

    /// Tells the parser the peer closed the connection, after ``next(_:)`` returned `needMoreData`.
    ///
    /// Ends a body delimited by close; throws ``HTTPParserError/Code/truncatedMessage`` when the
    /// close cuts a message short. Returns `needMoreData` when the close came between messages.
    public mutating func finish(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPResponseParserEvent {
        try core.finish(&buffer)
    }
}

/// The response side of ``MessageParser``.
enum ResponseRole: MessageRole {
    static var startLineKind: StartLineKind { .status }

    static func framingRole(_ line: StartLine, requestMethod: RequestMethodKind) -> BodyFraming.Role {
        .response(requestMethod: requestMethod, status: line.status)
    }

    static func head(
        block: ByteBuffer, line: StartLine, fields: [HTTPFieldSpan], framing: BodyFraming, keepAlive: Bool,
        hasContentEncoding: Bool
    ) -> (HTTPResponseParserEvent, HeadDisposition) {
        let head = HTTPResponseHead(
            version: line.version, status: line.status,
            reasonStart: line.reasonStart, reasonLength: line.reasonLength,
            headers: HTTPHeaderView(block: block, spans: fields),
            framing: framing, isKeepAlive: keepAlive, hasContentEncoding: hasContentEncoding)
        if line.status == 101 { return (.switchingProtocols(head), .upgrade) }
        if line.status < 200 { return (.informational(head), .interim) }
        return (.head(head), .message)
    }

    static func body(_ bytes: ByteBuffer) -> HTTPResponseParserEvent { .body(bytes) }
    static func end(_ trailers: HTTPHeaderView) -> HTTPResponseParserEvent { .end(trailers: trailers) }
    static var needMoreData: HTTPResponseParserEvent { .needMoreData }
}
