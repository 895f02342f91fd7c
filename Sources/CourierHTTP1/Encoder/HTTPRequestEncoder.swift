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
    ///     The Host field is written first (RFC 9112 §3.2). More than one Host field is refused.
    ///   - framing: how the body is delimited. Content-Length or `Transfer-Encoding: chunked` is
    ///     added when the fields do not already say the same thing.
    /// - Throws: ``HTTPEncodingError`` for a version other than HTTP/1.0 or HTTP/1.1, an invalid
    ///   target or Host (RFC 3986 grammar), several Host fields, or framing fields that disagree
    ///   with `framing`.
    public static func encodeHead(
        _ head: HTTPRequestHead, host: String?, framing: RequestBodyFraming, into buffer: inout ByteBuffer
    ) throws(HTTPEncodingError) {
        // Only these two are written; anything else would go out as HTTP/1.1 without the checks
        // HTTP/1.1 needs (a Host field).
        guard head.version == .http1_0 || head.version == .http1_1 else {
            throw HTTPEncodingError(reason: .unsupportedVersion, detail: "\(head.version)")
        }
        try validateTarget(head.method, head.target)
        // Only one Host may go out (RFC 9110 §7.2, RFC 9112 §3.2: a server must reject more), and
        // dropping the others would alter the caller's request silently.
        let hostField = try hostValue(head, host: host)
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
            guard method != .CONNECT, s.utf8.allSatisfy(isValidTargetByte), isValidAbsoluteForm(s) else {
                // User information is refused without being repeated: it may be a password.
                throw fail(s.utf8.contains(UInt8(ascii: "@")) ? "an absolute-form target with \"@\" (not shown)" : s)
            }
        case .authority(let host, let port):
            guard method == .CONNECT, (1...65535).contains(port), withUTF8(host, { URIGrammar.isHost($0[...]) }) else {
                throw fail("\(host):\(port)")
            }
        case .asterisk:
            guard method == .OPTIONS else { throw fail("* with \(method)") }
        }
    }

    /// `absolute-URI = scheme ":" hier-part [ "?" query ]` (RFC 3986 §4.3), checked as far as
    /// the request line needs: the scheme by its grammar (§3.1), and an authority, when there
    /// is one, as `uri-host [":" port]` without user information, which a sender must not put
    /// in a target URI (RFC 9110 §4.2.4).
    static func isValidAbsoluteForm(_ target: String) -> Bool {
        withUTF8(target) { bytes in isValidAbsoluteForm(bytes) }
    }

    private static func isValidAbsoluteForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), URIGrammar.isScheme(bytes[..<colon]) else {
            return false
        }
        let rest = bytes[(colon + 1)...]
        guard rest.starts(with: "//".utf8) else { return true }
        let authority = rest.dropFirst(2).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }
        return URIGrammar.isHostAndPort(authority)
    }

    /// `uri-host [ ":" port ]` (RFC 3986 §3.2.2, §3.2.3): an IP-literal in balanced brackets, an
    /// IPv4 address or a reg-name whose every `%` starts a pct-encoded triplet.
    static func isValidHost(_ host: String) -> Bool {
        withUTF8(host) { URIGrammar.isHostAndPort($0[...]) }
    }

    /// `body` over `string`'s UTF-8 bytes in place (a native string's own storage: no copy).
    private static func withUTF8<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var string = string
        return string.withUTF8(body)
    }

    /// Which framing fields the encoder must add, after checking the caller's own ones agree.
    /// The one Host value ``encodeHead(_:host:framing:into:)`` writes: the head's, else `host`.
    static func hostValue(_ head: HTTPRequestHead, host: String?) throws(HTTPEncodingError) -> String? {
        let hostFields = head.headers.values(for: "Host")
        guard hostFields.count <= 1 else {
            throw HTTPEncodingError(reason: .multipleHosts, detail: "\(hostFields.count) Host fields: \(hostFields)")
        }
        return hostFields.first ?? host
    }

    /// The head as ``encodeHead(_:host:framing:into:)`` writes it, for reporting (`curl -v`'s
    /// `> ` lines): Host first (RFC 9112 §3.2), the other fields in order, then the framing
    /// fields it adds (RFC 9112 §6.2, §7.1). nil when `encodeHead` would refuse the head.
    public static func headAsWritten(_ head: HTTPRequestHead, host: String?, framing: RequestBodyFraming) -> HTTPRequestHead? {
        let hostField: String?
        do { hostField = try hostValue(head, host: host) } catch { return nil }
        guard let (addLength, addChunked) = try? framingFieldsToAdd(head, framing) else { return nil }
        var fields = HTTPFields()
        if let hostField, (try? fields.append(name: "Host", value: hostField)) == nil { return nil }
        for field in head.headers where !field.name.caseInsensitiveEquals("Host") { fields.append(field) }
        if let addLength { try? fields.append(name: "Content-Length", value: String(addLength)) }
        if addChunked { try? fields.append(name: "Transfer-Encoding", value: "chunked") }
        return HTTPRequestHead(method: head.method, target: head.target, version: head.version, headers: fields)
    }

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
