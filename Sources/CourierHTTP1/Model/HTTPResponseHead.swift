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
    /// Whether a `Content-Encoding` field is among `headers` (RFC 9110 §8.4), noted by the parser
    /// as it read the names.
    package let hasContentEncoding: Bool

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
            if let standard = Self.standardReason(status, matching: bytes) { return (standard, nil) }
            let decoded = FieldText.decode(bytes)
            return (decoded.string, decoded.isLatin1 ? Array(bytes) : nil)
        }
    }

    /// The phrase RFC 9110 §15 gives `status`, when `bytes` are exactly that phrase, for the
    /// commonest codes. The result is a literal, built into the program: no bytes are decoded,
    /// and copying the text counts and frees nothing.
    private static func standardReason(_ status: Int, matching bytes: UnsafeRawBufferPointer) -> String? {
        func matches(_ phrase: StaticString) -> Bool {
            guard bytes.count == phrase.utf8CodeUnitCount else { return false }
            let p = phrase.utf8Start
            for i in 0..<bytes.count where bytes[i] != p[i] { return false }
            return true
        }
        switch status {
        case 200: return matches("OK") ? "OK" : nil
        case 201: return matches("Created") ? "Created" : nil
        case 204: return matches("No Content") ? "No Content" : nil
        case 206: return matches("Partial Content") ? "Partial Content" : nil
        case 301: return matches("Moved Permanently") ? "Moved Permanently" : nil
        case 302: return matches("Found") ? "Found" : nil
        case 304: return matches("Not Modified") ? "Not Modified" : nil
        case 400: return matches("Bad Request") ? "Bad Request" : nil
        case 404: return matches("Not Found") ? "Not Found" : nil
        default: return nil
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
