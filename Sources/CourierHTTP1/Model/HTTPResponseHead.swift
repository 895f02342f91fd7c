import CourierCore

/// A parsed response head: status line and header fields, as views into the read buffer.
public struct HTTPResponseHead: Sendable, Hashable {
    /// `HTTP/1.0` or `HTTP/1.1` (a minor version above 1 is processed as 1.1, RFC 9110 §2.5).
    public let version: HTTPVersion
    /// The three-digit status code (RFC 9110 §15), 100–999.
    public let status: Int
    @usableFromInline let reasonStart: Int
    @usableFromInline let reasonLength: Int
    /// The header fields.
    public let headers: HTTPHeaderView
    /// How the body is delimited.
    public let framing: BodyFraming
    /// Whether the connection may be reused after this response (RFC 9112 §9.3): HTTP/1.1
    /// without `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`, and a body that
    /// is not delimited by the connection closing.
    public let isKeepAlive: Bool

    /// The reason phrase, possibly empty (RFC 9112 §4). Clients should ignore it.
    public var reason: HTTPBytes {
        HTTPBytes(headers.block.slice(offset: reasonStart, count: reasonLength))
    }

    /// The reason phrase as text, decoded like a field value (UTF-8 when valid, else
    /// ISO-8859-1), and its exact bytes when they are not that text's UTF-8 (RFC 9112 §4
    /// allows obs-text). Read in place: no slice of the block is made.
    package var reasonText: (text: String, otherBytes: [UInt8]?) {
        guard reasonLength > 0, let block = headers.storedBlock else { return ("", nil) }
        return block.withUnsafeReadableBytes { raw in
            // Safe: the parser found the phrase inside this block.
            let bytes = UnsafeRawBufferPointer(rebasing: raw[reasonStart..<reasonStart &+ reasonLength])
            let decoded = FieldText.decode(bytes)
            return (decoded.string, decoded.isLatin1 ? Array(bytes) : nil)
        }
    }
}

/// A parsed request head, as the loopback test and demo servers read it.
public struct HTTPRequestHeadView: Sendable, Hashable {
    public let method: HTTPMethod
    /// The request-target exactly as sent (RFC 9112 §3.2).
    public let target: HTTPBytes
    public let version: HTTPVersion
    public let headers: HTTPHeaderView
    public let framing: BodyFraming
    public let isKeepAlive: Bool
}
