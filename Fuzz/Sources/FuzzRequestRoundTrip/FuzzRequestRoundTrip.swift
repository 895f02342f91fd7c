// Fuzzes HTTPRequestEncoder against HTTPRequestParser: a request built from arbitrary bytes is
// either refused (by HTTPMethod, HTTPField or the encoder) or encoded into bytes that parse back
// to exactly what was asked for, with no CR, LF or NUL from user input on the wire.
//
// Input layout (read in order; past the end every byte reads as 0):
//   method     byte m: m & 0x80 → a raw method (length byte + bytes, ≤ 16), else one of 9 known
//   target     byte t: t & 3 → origin, absolute, authority, asterisk; t & 4 → prefix "/" (origin)
//              or "http://" (absolute); t & 8 → an out-of-range authority port;
//              then a length byte + bytes (≤ 64), or for authority a host (≤ 32) and a u16 port
//   version    byte v: v & 3 → 1.1, 1.0, 1.1, or an arbitrary major.minor from two more bytes
//   shape      byte s: (s & 15) % 9 header fields; s & 0x10 a host argument (length byte + bytes ≤ 32);
//              s >> 6 body framing: none, Content-Length, chunked, Content-Length
//   body       Content-Length: a length byte then that many bytes (zero-padded);
//              chunked: a count byte (% 5) then per chunk a length byte (% 64), a style bit and
//              the bytes; then a trailer-count byte (% 3) and trailer fields as below
//   fields     per field a selector byte f: f & 0x80 → a name from a table of framing-relevant
//              names, else a raw name (≤ 32); (f >> 4) & 3: raw value (≤ 64), raw value,
//              the framing's length, "chunked"
import CourierCore
import CourierHTTP1
import FuzzSupport

private let knownMethods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS, .TRACE, .CONNECT]
private let tableNames = [
    "Host", "Content-Length", "Transfer-Encoding", "Connection", "host", "content-LENGTH", "TRANSFER-ENCODING", "X-Test",
]

private func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// Whether user-supplied text has a byte that must never reach the wire unescaped.
private func hasLineBreakOrNUL(_ s: String) -> Bool {
    s.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
}

private func bytes(_ b: HTTPBytes) -> [UInt8] { b.withUnsafeBytes { Array($0) } }

private struct Request {
    var method: HTTPMethod
    var target: RequestTarget
    var version: HTTPVersion
    var fields: HTTPFields
    var host: String?
    var framing: RequestBodyFraming
    var body: [[UInt8]] = []  // chunks (one piece for Content-Length)
    var chunkStyles: [Bool] = []
    var trailers = HTTPFields()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    guard let request = readRequest(&reader) else { return 0 }
    roundTrip(request)
    return 0
}

/// Builds a request from the input, or nil when HTTPMethod or HTTPField refuses a part.
private func readRequest(_ reader: inout FuzzReader) -> Request? {
    // Method.
    let m = reader.u8()
    let method: HTTPMethod
    if m & 0x80 != 0 {
        let raw = string(reader.lengthPrefixed(maximum: 16))
        guard let parsed = HTTPMethod(raw) else {
            fuzzCheck(raw.isEmpty || !raw.utf8.allSatisfy(isTokenByte), "HTTPMethod refused the token \(escaped(raw.utf8))")
            return nil
        }
        fuzzCheck(!raw.isEmpty && raw.utf8.allSatisfy(isTokenByte), "HTTPMethod accepted \(escaped(raw.utf8))")
        method = parsed
    } else {
        method = knownMethods[Int(m) % knownMethods.count]
    }

    // Target.
    let t = reader.u8()
    let target: RequestTarget
    switch t & 3 {
    case 0:
        target = .origin((t & 4 != 0 ? "/" : "") + string(reader.lengthPrefixed(maximum: 64)))
    case 1:
        target = .absolute((t & 4 != 0 ? "http://" : "") + string(reader.lengthPrefixed(maximum: 64)))
    case 2:
        let host = string(reader.lengthPrefixed(maximum: 32))
        let raw = Int(reader.u16())
        let port = t & 8 == 0 ? raw : (t & 16 == 0 ? -raw : 65536 + raw)
        target = .authority(host: host, port: port)
    default:
        target = .asterisk
    }

    // Version.
    let v = reader.u8()
    let version: HTTPVersion
    switch v & 3 {
    case 1: version = .http1_0
    case 3: version = HTTPVersion(major: reader.u8(), minor: reader.u8())
    default: version = .http1_1
    }

    // Shape: field count, host argument, framing.
    let s = reader.u8()
    let fieldCount = Int(s & 0x0F) % 9
    let host: String? = s & 0x10 != 0 ? string(reader.lengthPrefixed(maximum: 32)) : nil
    var request = Request(method: method, target: target, version: version, fields: HTTPFields(), host: host, framing: .none)
    switch s >> 6 {
    case 0:
        request.framing = .none
    case 2:
        request.framing = .chunked
        let count = Int(reader.u8() % 5)
        for _ in 0..<count {
            let c = reader.u8()
            request.body.append(padded(reader.take(Int(c % 64)), to: Int(c % 64)))
            request.chunkStyles.append(c & 0x80 != 0)
        }
        let trailerCount = Int(reader.u8() % 3)
        for _ in 0..<trailerCount {
            guard let field = readField(&reader, framing: request.framing) else { return nil }
            request.trailers.append(field)
        }
    default:
        let n = Int(reader.u8())
        request.framing = .contentLength(UInt64(n))
        request.body = [padded(reader.take(n), to: n)]
    }

    for _ in 0..<fieldCount {
        guard let field = readField(&reader, framing: request.framing) else { return nil }
        request.fields.append(field)
    }
    return request
}

private func padded(_ bytes: [UInt8], to count: Int) -> [UInt8] {
    bytes + Array(repeating: 0, count: count - bytes.count)
}

/// Reads one field and validates it with HTTPField, checking that it refuses exactly what the
/// grammar refuses. Nil when refused.
private func readField(_ reader: inout FuzzReader, framing: RequestBodyFraming) -> HTTPField? {
    let f = reader.u8()
    let name = f & 0x80 != 0 ? tableNames[Int(f) & 7] : string(reader.lengthPrefixed(maximum: 32))
    let value: String
    switch (f >> 4) & 3 {
    case 2:
        if case .contentLength(let n) = framing { value = String(n) } else { value = "0" }
    case 3:
        value = "chunked"
    default:
        value = string(reader.lengthPrefixed(maximum: 64))
    }
    let nameIsValid = !name.isEmpty && name.utf8.allSatisfy(isTokenByte)
    let valueIsValid = value.utf8.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }
    do throws(HTTPFieldError) {
        let field = try HTTPField(name: name, value: value)
        fuzzCheck(nameIsValid && valueIsValid, "HTTPField accepted \(escaped(name.utf8)): \(escaped(value.utf8))")
        fuzzCheck(!hasLineBreakOrNUL(field.name) && !hasLineBreakOrNUL(field.value), "HTTPField kept a CR, LF or NUL")
        return field
    } catch {
        fuzzCheck(
            !(nameIsValid && valueIsValid),
            "HTTPField refused the valid \(escaped(name.utf8)): \(escaped(value.utf8)) (\(error))")
        return nil
    }
}

private func roundTrip(_ request: Request) {
    let head = HTTPRequestHead(method: request.method, target: request.target, version: request.version, headers: request.fields)
    var buffer = ByteBuffer()
    do throws(HTTPEncodingError) {
        try HTTPRequestEncoder.encodeHead(head, host: request.host, framing: request.framing, into: &buffer)
    } catch {
        fuzzCheck(buffer.readableBytes == 0, "encodeHead wrote \(buffer.readableBytes) bytes and then threw \(error)")
        return
    }
    let headLength = buffer.readableBytes
    let encodedHead = buffer.readableBytesArray()
    let context = "request \(head) host=\(request.host.map { escaped($0.utf8) } ?? "nil") framing=\(request.framing)\nencoded: \(escaped(encodedHead))"

    // Accepted: nothing the user supplied may carry a line break or NUL.
    let hostField = request.fields[first: "Host"] ?? request.host
    var userParts = [request.method.rawValue] + request.fields.flatMap { [$0.name, $0.value] }
    if let hostField { userParts.append(hostField) }
    switch request.target {
    case .origin(let s), .absolute(let s): userParts.append(s)
    case .authority(let host, _): userParts.append(host)
    case .asterisk: break
    }
    for part in userParts {
        fuzzCheck(!hasLineBreakOrNUL(part), "\(context)\naccepted user input \(escaped(part.utf8)) has CR, LF or NUL")
    }
    // The head is lines ending in CRLF, no NUL, no lone CR or LF.
    var lines = 0
    for (i, b) in encodedHead.enumerated() {
        fuzzCheck(b != 0, "\(context)\nNUL at \(i)")
        if b == 0x0D { fuzzCheck(i + 1 < encodedHead.count && encodedHead[i + 1] == 0x0A, "\(context)\nlone CR at \(i)") }
        if b == 0x0A {
            fuzzCheck(i > 0 && encodedHead[i - 1] == 0x0D, "\(context)\nlone LF at \(i)")
            lines += 1
        }
    }

    // The fields the parser must see, in order: Host first, the caller's fields without Host,
    // then what the encoder adds for the framing.
    var expected: [(name: String, value: String)] = []
    if let hostField { expected.append(("Host", hostField)) }
    for field in request.fields where !field.name.equalsIgnoringASCIICase("Host") {
        expected.append((field.name, field.value))
    }
    var expectedFraming = BodyFraming.none
    switch request.framing {
    case .none:
        break
    case .contentLength(let n):
        if !request.fields.contains("Content-Length") { expected.append(("Content-Length", String(n))) }
        expectedFraming = n == 0 ? .none : .contentLength(n)
    case .chunked:
        if !request.fields.contains("Transfer-Encoding") { expected.append(("Transfer-Encoding", "chunked")) }
        expectedFraming = .chunked
    }
    fuzzCheck(lines == expected.count + 2, "\(context)\n\(lines) lines for \(expected.count) fields")

    // The body.
    var expectedBody: [UInt8] = []
    switch request.framing {
    case .none:
        break
    case .contentLength:
        expectedBody = request.body.first ?? []
        buffer.writeBytes(expectedBody)
    case .chunked:
        for (chunk, style) in zip(request.body, request.chunkStyles) {
            expectedBody += chunk
            if style && !chunk.isEmpty {
                HTTPRequestEncoder.encodeChunkHeader(size: chunk.count, into: &buffer)
                buffer.writeBytes(chunk)
                HTTPRequestEncoder.encodeChunkEnd(into: &buffer)
            } else {
                chunk.withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &buffer) }
            }
        }
        HTTPRequestEncoder.encodeLastChunk(trailers: request.trailers, into: &buffer)
    }
    let total = buffer.readableBytes
    let wire = buffer.readableBytesArray()

    // Parse it back.
    var parser = HTTPRequestParser()
    var sawHead = false
    var body: [UInt8] = []
    var ended = false
    do throws(HTTPParserError) {
        parsing: while true {
            switch try parser.next(&buffer) {
            case .needMoreData:
                break parsing
            case .head(let parsed):
                fuzzCheck(!sawHead, "\(context)\na second head")
                sawHead = true
                fuzzCheck(parser.bytesConsumed == headLength, "\(context)\nhead ended at \(parser.bytesConsumed), encoded \(headLength)")
                fuzzCheck(parsed.method == request.method, "\(context)\nmethod \(parsed.method)")
                fuzzCheck(parsed.version == request.version, "\(context)\nversion \(parsed.version), asked for \(request.version)")
                let target: String
                switch request.target {
                case .origin(let s), .absolute(let s): target = s
                case .authority(let host, let port): target = "\(host):\(port)"
                case .asterisk: target = "*"
                }
                fuzzCheck(bytes(parsed.target) == Array(target.utf8), "\(context)\ntarget \(escaped(parsed.target))")
                let got = parsed.headers.map { (bytes($0.name), bytes($0.value)) }
                let want = expected.map { (Array($0.name.utf8), Array($0.value.utf8)) }
                fuzzCheck(
                    got.count == want.count && zip(got, want).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 },
                    "\(context)\nfields \(render(parsed.headers)), expected \(expected)")
                fuzzCheck(parsed.framing == expectedFraming, "\(context)\nframing \(parsed.framing), expected \(expectedFraming)")
                fuzzCheck(
                    parsed.isKeepAlive == expectedKeepAlive(version: parsed.version, fields: parsed.headers, framing: parsed.framing),
                    "\(context)\nisKeepAlive \(parsed.isKeepAlive) disagrees with the fields")
            case .body(let piece):
                fuzzCheck(sawHead && !ended, "\(context)\nbody outside a message")
                body += piece.readableBytesArray()
            case .end(let trailers):
                fuzzCheck(sawHead && !ended, "\(context)\nend outside a message")
                ended = true
                let got = trailers.map { (bytes($0.name), bytes($0.value)) }
                let want = request.trailers.map { (Array($0.name.utf8), Array($0.value.utf8)) }
                fuzzCheck(
                    got.count == want.count && zip(got, want).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 },
                    "\(context)\ntrailers \(render(trailers)), expected \(Array(request.trailers))")
            }
        }
    } catch {
        fuzzFail("\(context)\nwire: \(escaped(wire))\nthe parser refused the encoder's output: \(error)")
    }
    fuzzCheck(sawHead && ended, "\(context)\nwire: \(escaped(wire))\nhead \(sawHead), end \(ended)")
    fuzzCheck(body == expectedBody, "\(context)\nbody \(escaped(body)), expected \(escaped(expectedBody))")
    fuzzCheck(
        parser.bytesConsumed == total && buffer.readableBytes == 0 && parser.isAtMessageBoundary,
        "\(context)\nconsumed \(parser.bytesConsumed) of \(total), \(buffer.readableBytes) left")
}

extension String {
    fileprivate func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let a = Array(utf8), b = Array(other.utf8)
        guard a.count == b.count else { return false }
        func lower(_ x: UInt8) -> UInt8 { x >= 65 && x <= 90 ? x | 0x20 : x }
        return zip(a, b).allSatisfy { lower($0) == lower($1) }
    }
}
