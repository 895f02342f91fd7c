import CourierCore

/// What the request parser found next.
public enum HTTPRequestParserEvent: Sendable, Hashable {
    case head(HTTPRequestHeadView)
    case body(ByteBuffer)
    case end(trailers: HTTPHeaderView?)
}

/// An incremental HTTP/1.1 request parser for Courier's loopback test and demo servers.
///
/// It shares the head scanner, framing rules and chunked decoder with ``HTTPResponseParser``, so
/// the same strictness applies: a request with neither Content-Length nor Transfer-Encoding has no
/// body (RFC 9112 §6.3 ¶8).
public struct HTTPRequestParser: Sendable {
    private var core: MessageParser

    public init(configuration: HTTPParserConfiguration = .default) {
        self.core = MessageParser(kind: .request, configuration: configuration)
    }

    /// The total number of bytes consumed so far.
    public var bytesConsumed: Int { core.offset }

    /// Whether the parser is between requests with no partial head seen.
    public var isAtMessageBoundary: Bool { core.isAtMessageBoundary }

    /// Parses the next event from `buffer`, or returns nil when more bytes are needed.
    public mutating func next(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPRequestParserEvent? {
        guard let event = try core.next(&buffer, role: { _ in .request }) else { return nil }
        return map(event)
    }

    /// Tells the parser the peer closed the connection.
    public mutating func finish(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPRequestParserEvent? {
        guard let event = try core.finish(&buffer) else { return nil }
        return map(event)
    }

    private func map(_ event: MessageParser.Event) -> HTTPRequestParserEvent {
        switch event {
        case .head(let block, let framing, let keepAlive):
            let line = core.startLine
            let methodName = block.withUnsafeReadableBytes { String(decoding: $0[0..<line.methodLength], as: UTF8.self) }
            // The scanner has checked the method is a non-empty token, so this cannot fail.
            let method = HTTPMethod(methodName) ?? .GET
            return .head(
                HTTPRequestHeadView(
                    method: method,
                    target: HTTPBytes(block.slice(offset: line.targetStart, count: line.targetLength)),
                    version: line.version,
                    headers: HTTPHeaderView(block: block, spans: core.scanner.fields),
                    framing: framing,
                    isKeepAlive: keepAlive))
        case .body(let bytes):
            return .body(bytes)
        case .end(let trailers):
            return .end(trailers: trailers)
        }
    }
}
