import CourierCore

/// Writes request heads and chunked body framing (RFC 9112 §3, §6, §7.1).
///
/// Every byte written comes from a validated value: fields are validated by ``HTTPFields``, and
/// the target and Host are validated here, so no CR, LF or NUL from user input can reach the wire.
public enum HTTPRequestEncoder {
    /// Encodes a request head into `buffer`.
    ///
    /// - Parameters:
    ///   - head: the request line and fields.
    ///   - host: the `Host` value (`host[:port]`), used when `head.headers` has no Host field.
    ///     The Host field is written first (RFC 9112 §3.2).
    ///   - framing: how the body is delimited. Content-Length or `Transfer-Encoding: chunked` is
    ///     added when the fields do not already say the same thing.
    /// - Throws: ``HTTPEncodingError`` for a version other than HTTP/1.0 or HTTP/1.1, an invalid
    ///   target or Host, or framing fields that disagree with `framing`.
    public static func encodeHead(
        _ head: HTTPRequestHead, host: String?, framing: RequestBodyFraming, into buffer: inout ByteBuffer
    ) throws(HTTPEncodingError) {
        // Only these two are written; anything else would go out as HTTP/1.1 without the checks
        // HTTP/1.1 needs (a Host field).
        guard head.version == .http1_0 || head.version == .http1_1 else {
            throw HTTPEncodingError(reason: .unsupportedVersion, detail: "\(head.version)")
        }
        try validateTarget(head.method, head.target)
        let hostField = head.headers[first: "Host"] ?? host
        if let hostField {
            guard isValidHost(hostField) else { throw HTTPEncodingError(reason: .invalidHost, detail: hostField) }
        } else if head.version == .http1_1 {
            throw HTTPEncodingError(reason: .missingHost, detail: "no Host for \(head.target)")
        }
        let (addLength, addChunked) = try framingFieldsToAdd(head, framing)

        buffer.writeString(head.method.rawValue)
        buffer.writeByte(UInt8(ascii: " "))
        switch head.target {
        case .origin(let s), .absolute(let s): buffer.writeString(s)
        case .authority(let host, let port): buffer.writeString("\(host):\(port)")
        case .asterisk: buffer.writeByte(UInt8(ascii: "*"))
        }
        buffer.writeString(head.version == .http1_0 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n")
        if let hostField {
            buffer.writeString("Host: ")
            buffer.writeString(hostField)
            buffer.writeString("\r\n")
        }
        for field in head.headers where !field.name.caseInsensitiveEquals("Host") {
            buffer.writeString(field.name)
            buffer.writeString(": ")
            field.writeValue(into: &buffer)
            buffer.writeString("\r\n")
        }
        if let addLength {
            buffer.writeString("Content-Length: ")
            buffer.writeString(String(addLength))
            buffer.writeString("\r\n")
        }
        if addChunked { buffer.writeString("Transfer-Encoding: chunked\r\n") }
        buffer.writeString("\r\n")
    }

    /// Encodes one chunk (`size CRLF data CRLF`). An empty `data` writes nothing, because a
    /// zero-size chunk would end the body.
    public static func encodeChunk(_ data: UnsafeRawBufferPointer, into buffer: inout ByteBuffer) {
        guard data.count > 0 else { return }
        encodeChunkHeader(size: data.count, into: &buffer)
        buffer.writeBytes(data)
        buffer.writeString("\r\n")
    }

    /// Encodes the size line of a chunk whose `size` data bytes the caller sends next, followed
    /// by CRLF (see ``encodeChunkEnd(into:)``). Lets a body be sent without copying it.
    public static func encodeChunkHeader(size: Int, into buffer: inout ByteBuffer) {
        precondition(size > 0, "a zero-size chunk ends the body; use encodeLastChunk")
        buffer.writeString(String(size, radix: 16))
        buffer.writeString("\r\n")
    }

    /// Writes the CRLF that follows chunk data.
    public static func encodeChunkEnd(into buffer: inout ByteBuffer) {
        buffer.writeString("\r\n")
    }

    /// Encodes the last chunk and the trailer section (RFC 9112 §7.1.2).
    public static func encodeLastChunk(trailers: HTTPFields = HTTPFields(), into buffer: inout ByteBuffer) {
        buffer.writeString("0\r\n")
        for field in trailers {
            buffer.writeString(field.name)
            buffer.writeString(": ")
            field.writeValue(into: &buffer)
            buffer.writeString("\r\n")
        }
        buffer.writeString("\r\n")
    }

    // MARK: - Validation

    /// Bytes allowed in a request-target: visible US-ASCII except `#` (a fragment is never sent).
    static func isValidTargetByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "#")
    }

    static func validateTarget(_ method: HTTPMethod, _ target: RequestTarget) throws(HTTPEncodingError) {
        func fail(_ detail: String) -> HTTPEncodingError { HTTPEncodingError(reason: .invalidRequestTarget, detail: detail) }
        switch target {
        case .origin(let s):
            guard method != .CONNECT, s.utf8.first == UInt8(ascii: "/"), s.utf8.allSatisfy(isValidTargetByte) else {
                throw fail(s)
            }
        case .absolute(let s):
            guard method != .CONNECT, s.utf8.allSatisfy(isValidTargetByte), let colon = s.utf8.firstIndex(of: UInt8(ascii: ":")),
                colon > s.utf8.startIndex,
                s.utf8[..<colon].allSatisfy({ ByteClass.lower($0) >= UInt8(ascii: "a") && ByteClass.lower($0) <= UInt8(ascii: "z") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) })
            else { throw fail(s) }
        case .authority(let host, let port):
            guard method == .CONNECT, (1...65535).contains(port), isValidHost(host), !host.isEmpty else {
                throw fail("\(host):\(port)")
            }
        case .asterisk:
            guard method == .OPTIONS else { throw fail("* with \(method)") }
        }
    }

    /// `uri-host [ ":" port ]` (RFC 3986 §3.2.2): reg-name, IPv4 or a bracketed IP literal.
    static func isValidHost(_ host: String) -> Bool {
        guard !host.isEmpty else { return false }
        return host.utf8.allSatisfy { b in
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~!$&'()*+,;=:[]%".utf8.contains(b)
            }
        }
    }

    /// Which framing fields the encoder must add, after checking the caller's own ones agree.
    static func framingFieldsToAdd(
        _ head: HTTPRequestHead, _ framing: RequestBodyFraming
    ) throws(HTTPEncodingError) -> (length: UInt64?, chunked: Bool) {
        let lengths = head.headers.values(for: "Content-Length")
        let codings = head.headers.values(for: "Transfer-Encoding")
        func conflict() -> HTTPEncodingError {
            HTTPEncodingError(reason: .conflictingFraming, detail: "fields \(lengths + codings) with framing \(framing)")
        }
        switch framing {
        case .none:
            guard codings.isEmpty, lengths.allSatisfy({ $0 == "0" }) else { throw conflict() }
            return (nil, false)
        case .contentLength(let n):
            guard codings.isEmpty, lengths.allSatisfy({ $0 == String(n) }) else { throw conflict() }
            return (lengths.isEmpty ? n : nil, false)
        case .chunked:
            guard head.version == .http1_1 else {
                throw HTTPEncodingError(reason: .chunkedRequiresHTTP11, detail: "\(head.method) \(head.target)")
            }
            guard lengths.isEmpty, codings.allSatisfy({ $0.caseInsensitiveEquals("chunked") }), codings.count <= 1 else {
                throw conflict()
            }
            return (nil, codings.isEmpty)
        }
    }
}
