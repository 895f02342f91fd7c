/// How the body of a message is delimited (RFC 9112 §6.3).
public enum BodyFraming: Hashable, Sendable {
    /// No body.
    case none
    /// Exactly this many bytes.
    case contentLength(UInt64)
    /// The chunked transfer coding (RFC 9112 §7.1).
    case chunked
    /// Everything until the server closes the connection (responses only).
    case untilClose
    /// The connection becomes a tunnel after the head (a 2xx answer to CONNECT).
    case tunnel

    /// Which side of the exchange a message comes from.
    enum Role: Hashable, Sendable {
        /// A request, as a server reads it.
        case request
        /// A response to a request with `method`, with this status code.
        case response(requestMethod: RequestMethodKind, status: Int)
    }

    /// Decides the framing of a message from its role, version and framing fields, following
    /// RFC 9112 §6.3 in order. This is the only place framing is decided.
    ///
    /// - Throws: ``HTTPParserError`` for Transfer-Encoding in HTTP/1.0, chunked not final, an
    ///   unsupported transfer coding, or Content-Length together with Transfer-Encoding (unless
    ///   ``HTTPParserConfiguration/allowContentLengthWithTransferEncoding`` is set).
    static func decide(
        role: Role, version: HTTPVersion, fields: FramingFields,
        configuration: HTTPParserConfiguration, headOffset: Int
    ) throws(HTTPParserError) -> BodyFraming {
        // §6.3 ¶1–2: CONNECT tunnels, and responses that never have a body. Framing fields are
        // still validated above (the scanner), but they do not delimit anything here. Any 2xx
        // to CONNECT opens the tunnel, 204 included (RFC 9110 §9.3.6), so that is decided first:
        // a 204 framed as "no body" would leave the connection reusable with a tunnel behind it.
        if case .response(let method, let status) = role {
            if method == .connect && status >= 200 && status < 300 { return .tunnel }
            if method == .head || (status >= 100 && status < 200) || status == 204 || status == 304 {
                return .none
            }
        }
        if let teOffset = fields.transferEncodingOffset {
            // §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty.
            if version == .http1_0 { throw HTTPParserError(.transferEncodingInHTTP10, offset: teOffset) }
            // §6.3 ¶3: both present is a smuggling signal; refuse unless explicitly allowed.
            if fields.contentLength != nil && !configuration.allowContentLengthWithTransferEncoding {
                throw HTTPParserError(.contentLengthWithTransferEncoding, offset: teOffset)
            }
            // §6.3 ¶4: chunked must be the final coding.
            guard fields.lastCodingIsChunked else { throw HTTPParserError(.chunkedNotFinal, offset: teOffset) }
            // We never send TE, so a server must not apply other transfer codings (§7.4).
            guard !fields.hasOtherCoding else { throw HTTPParserError(.unsupportedTransferCoding, offset: teOffset) }
            return .chunked
        }
        // §6.3 ¶5–6.
        if let length = fields.contentLength {
            if let max = configuration.maxBodyBytes, length > max {
                throw HTTPParserError(.bodyTooLarge, offset: headOffset)
            }
            return length == 0 ? .none : .contentLength(length)
        }
        // §6.3 ¶7–8: a request without either has no body; a response is read until close.
        switch role {
        case .request: return .none
        case .response: return .untilClose
        }
    }

    /// Whether the connection may carry another message after this one (RFC 9112 §9.3).
    static func isKeepAlive(version: HTTPVersion, fields: FramingFields, framing: BodyFraming) -> Bool {
        if fields.connectionClose { return false }
        if framing == .untilClose || framing == .tunnel { return false }
        if fields.transferEncodingOffset != nil && fields.contentLength != nil { return false }
        return version == .http1_1 || fields.connectionKeepAlive
    }
}
