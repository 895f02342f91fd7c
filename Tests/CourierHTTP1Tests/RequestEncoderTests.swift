import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

/// Encodes a head and returns the bytes as text.
private func encoded(
    _ head: HTTPRequestHead, host: String? = nil, framing: RequestBodyFraming = .none
) throws(HTTPEncodingError) -> String {
    var buffer = ByteBuffer()
    try HTTPRequestEncoder.encodeHead(head, host: host, framing: framing, into: &buffer)
    return String(decoding: buffer.readableBytesArray(), as: UTF8.self)
}

/// The reason `encodeHead` refuses a head with, checking it wrote nothing.
private func refusal(
    _ head: HTTPRequestHead, host: String? = nil, framing: RequestBodyFraming = .none,
    sourceLocation: SourceLocation = #_sourceLocation
) -> HTTPEncodingError.Reason? {
    var buffer = ByteBuffer(string: "before")
    do {
        try HTTPRequestEncoder.encodeHead(head, host: host, framing: framing, into: &buffer)
        return nil
    } catch {
        #expect(buffer.readableBytesArray() == Array("before".utf8), "a refused head wrote bytes", sourceLocation: sourceLocation)
        return error.reason
    }
}

private func fields(_ pairs: [(String, String)]) -> HTTPFields {
    var f = HTTPFields()
    for (n, v) in pairs {
        do { try f.append(name: n, value: v) } catch { Issue.record("bad test field \(n): \(v)") }
    }
    return f
}

/// `tchar` of RFC 9110 §5.6.2, written out independently of the library.
private let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

/// A valid UTF-8 sequence containing `byte` (0x80–0xFF), or nil for the bytes no UTF-8 contains
/// (C0, C1, F5–FF), which a Swift String therefore cannot carry.
private func utf8Carrying(_ byte: UInt8) -> [UInt8]? {
    switch byte {
    case 0x80...0xBF: return [0xC2, byte]
    case 0xC2...0xDF: return [byte, 0x80]
    case 0xE0: return [0xE0, 0xA0, 0x80]
    case 0xE1...0xEF: return [byte, 0x80, 0x80]
    case 0xF0: return [0xF0, 0x90, 0x80, 0x80]
    case 0xF1...0xF4: return [byte, 0x80, 0x80, 0x80]
    default: return nil
    }
}

/// A string whose UTF-8 contains `byte`, for every byte a String can hold.
private func stringCarrying(_ byte: UInt8) -> String? {
    if byte < 0x80 { return String(Character(Unicode.Scalar(byte))) }
    guard let sequence = utf8Carrying(byte), let s = String(validating: sequence, as: UTF8.self) else { return nil }
    return s
}

@Suite("Request encoder")
struct RequestEncoderTests {
    // MARK: - Request-target forms, byte for byte

    @Test func originForm() throws {
        let head = HTTPRequestHead(method: .GET, target: .origin("/path/to?q=1&r=%20"), headers: ["Accept": "*/*"])
        #expect(try encoded(head, host: "example.com") == "GET /path/to?q=1&r=%20 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
    }

    @Test func absoluteForm() throws {
        let head = HTTPRequestHead(method: .GET, target: .absolute("http://example.com:8080/a?b"))
        #expect(try encoded(head, host: "example.com:8080") == "GET http://example.com:8080/a?b HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
    }

    @Test func authorityFormForConnect() throws {
        let head = HTTPRequestHead(method: .CONNECT, target: .authority(host: "example.com", port: 443))
        #expect(try encoded(head, host: "example.com:443") == "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let v6 = HTTPRequestHead(method: .CONNECT, target: .authority(host: "[2001:db8::1]", port: 8443))
        #expect(try encoded(v6, host: "[2001:db8::1]:8443") == "CONNECT [2001:db8::1]:8443 HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\n\r\n")
    }

    @Test func asteriskFormForOptions() throws {
        let head = HTTPRequestHead(method: .OPTIONS, target: .asterisk)
        #expect(try encoded(head, host: "example.com") == "OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n")
    }

    @Test func http10WithoutHost() throws {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"), version: .http1_0)
        #expect(try encoded(head) == "GET / HTTP/1.0\r\n\r\n")
        // With a Host it is still written, first.
        #expect(try encoded(head, host: "h") == "GET / HTTP/1.0\r\nHost: h\r\n\r\n")
    }

    @Test func versionsOtherThan10And11AreRefused() {
        // Only HTTP/1.0 and HTTP/1.1 are written. Any other version is refused before anything
        // else is looked at: with or without a Host, whatever the framing.
        for version in [HTTPVersion(major: 1, minor: 2), HTTPVersion(major: 2, minor: 0), HTTPVersion(major: 0, minor: 9)] {
            let head = HTTPRequestHead(method: .GET, target: .origin("/"), version: version)
            #expect(refusal(head) == .unsupportedVersion, "\(version)")
            #expect(refusal(head, host: "h") == .unsupportedVersion, "\(version)")
            #expect(refusal(head, host: "h", framing: .chunked) == .unsupportedVersion, "\(version)")
            #expect(refusal(head, host: "h", framing: .contentLength(3)) == .unsupportedVersion, "\(version)")
        }
    }

    @Test func methods() {
        let known: [(HTTPMethod, String, Bool)] = [
            (.GET, "GET", true), (.HEAD, "HEAD", true), (.PUT, "PUT", true), (.DELETE, "DELETE", true),
            (.OPTIONS, "OPTIONS", true), (.TRACE, "TRACE", true),
            (.POST, "POST", false), (.PATCH, "PATCH", false), (.CONNECT, "CONNECT", false),
        ]
        for (method, name, idempotent) in known {
            #expect(method.rawValue == name)
            #expect(method.description == name)
            #expect(method.isIdempotent == idempotent, "\(name)")  // RFC 9110 §9.2.2
            #expect(HTTPMethod(name) == method)
        }
        // Methods are case-sensitive (RFC 9110 §9.1): "get" is some other method.
        #expect(HTTPMethod("get") != .GET)
        #expect(HTTPMethod("get")?.isIdempotent == false)
        #expect(HTTPMethod("") == nil)
        #expect(HTTPMethod("GET /") == nil)
    }

    @Test func extensionMethodIsWrittenAsGiven() throws {
        let method = try #require(HTTPMethod("PROPFIND"))
        let head = HTTPRequestHead(method: method, target: .origin("/dav"), headers: ["Depth": "1"])
        #expect(try encoded(head, host: "h") == "PROPFIND /dav HTTP/1.1\r\nHost: h\r\nDepth: 1\r\n\r\n")
    }

    // MARK: - Host

    @Test func hostIsAddedFirstWhenAbsent() throws {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"), headers: ["A": "1", "B": "2"])
        #expect(try encoded(head, host: "example.com") == "GET / HTTP/1.1\r\nHost: example.com\r\nA: 1\r\nB: 2\r\n\r\n")
    }

    @Test func hostFromTheFieldsWinsAndMovesFirst() throws {
        let head = HTTPRequestHead(
            method: .GET, target: .origin("/"), headers: fields([("Accept", "x"), ("host", "from-field:81"), ("B", "2")]))
        #expect(try encoded(head, host: "from-parameter") == "GET / HTTP/1.1\r\nHost: from-field:81\r\nAccept: x\r\nB: 2\r\n\r\n")
        // And with no parameter at all.
        #expect(try encoded(head) == "GET / HTTP/1.1\r\nHost: from-field:81\r\nAccept: x\r\nB: 2\r\n\r\n")
    }

    @Test func hostFromTheFieldsIsValidatedToo() {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"), headers: fields([("Host", "bad host")]))
        #expect(refusal(head, host: "good") == .invalidHost)
    }

    @Test func missingHostOnHTTP11() {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"))
        #expect(refusal(head) == .missingHost)
    }

    static let invalidHosts = [
        "a\r\nX: y", "a\nX: y", "a\rb", "a\r\n\r\nGET /evil HTTP/1.1", "", "a b", "a\tb", "a\0b", "a/b", "a?b", "a#b",
        "user@host", "a\"b", "a<b>", "a\\b", "héllo", "a\u{7F}",
    ]

    @Test(arguments: invalidHosts)
    func invalidHostIsRefused(_ host: String) {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"))
        #expect(refusal(head, host: host) == .invalidHost)
    }

    static let validHosts = ["example.com", "example.com:8080", "127.0.0.1", "[::1]:443", "xn--bcher-kva.example", "a-b_c~d", "%41"]

    @Test(arguments: validHosts)
    func validHostIsWritten(_ host: String) throws {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"))
        #expect(try encoded(head, host: host) == "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
    }

    // MARK: - Framing fields

    @Test func contentLengthIsAdded() throws {
        let head = HTTPRequestHead(method: .POST, target: .origin("/p"), headers: ["Content-Type": "text/plain"])
        #expect(try encoded(head, host: "h", framing: .contentLength(1234)) == "POST /p HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nContent-Length: 1234\r\n\r\n")
        #expect(try encoded(head, host: "h", framing: .contentLength(0)) == "POST /p HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n")
        #expect(try encoded(head, host: "h", framing: .contentLength(.max)).contains("\r\nContent-Length: 18446744073709551615\r\n"))
    }

    @Test func chunkedIsAdded() throws {
        let head = HTTPRequestHead(method: .PUT, target: .origin("/u"))
        #expect(try encoded(head, host: "h", framing: .chunked) == "PUT /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
    }

    @Test func noFramingFieldsWithoutABody() throws {
        let head = HTTPRequestHead(method: .DELETE, target: .origin("/x"))
        #expect(try encoded(head, host: "h", framing: .none) == "DELETE /x HTTP/1.1\r\nHost: h\r\n\r\n")
    }

    @Test func callersConsistentFramingFieldsAreKeptNotDuplicated() throws {
        let length = HTTPRequestHead(method: .POST, target: .origin("/"), headers: fields([("content-length", "5")]))
        #expect(try encoded(length, host: "h", framing: .contentLength(5)) == "POST / HTTP/1.1\r\nHost: h\r\ncontent-length: 5\r\n\r\n")
        let zero = HTTPRequestHead(method: .POST, target: .origin("/"), headers: fields([("Content-Length", "0")]))
        #expect(try encoded(zero, host: "h", framing: .none) == "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        let chunked = HTTPRequestHead(method: .POST, target: .origin("/"), headers: fields([("Transfer-Encoding", "Chunked")]))
        #expect(try encoded(chunked, host: "h", framing: .chunked) == "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n")
    }

    static let conflicts: [([(String, String)], RequestBodyFraming)] = [
        ([("Content-Length", "6")], .contentLength(5)),
        ([("Content-Length", "05")], .contentLength(5)),
        ([("Content-Length", "5"), ("Content-Length", "6")], .contentLength(5)),
        ([("Content-Length", "5")], .none),
        ([("Content-Length", "5")], .chunked),
        ([("Transfer-Encoding", "chunked")], .contentLength(5)),
        ([("Transfer-Encoding", "chunked")], .none),
        ([("Transfer-Encoding", "gzip, chunked")], .chunked),
        ([("Transfer-Encoding", "gzip")], .chunked),
        ([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")], .chunked),
        ([("Transfer-Encoding", "chunked"), ("Content-Length", "5")], .chunked),
    ]

    @Test(arguments: conflicts)
    func conflictingFramingIsRefused(_ pairs: [(String, String)], _ framing: RequestBodyFraming) {
        let head = HTTPRequestHead(method: .POST, target: .origin("/"), headers: fields(pairs))
        #expect(refusal(head, host: "h", framing: framing) == .conflictingFraming)
    }

    @Test func chunkedNeedsHTTP11() {
        let head = HTTPRequestHead(method: .POST, target: .origin("/"), version: .http1_0)
        #expect(refusal(head, host: "h", framing: .chunked) == .chunkedRequiresHTTP11)
    }

    // MARK: - Invalid request-targets

    static let invalidTargets: [(HTTPMethod, RequestTarget)] = [
        (.GET, .origin("/a b")),
        (.GET, .origin("/a\rb")),
        (.GET, .origin("/a\nb")),
        (.GET, .origin("/a\r\nX-Injected: 1")),
        (.GET, .origin("/a\0")),
        (.GET, .origin("/a\tb")),
        (.GET, .origin("/a#fragment")),
        (.GET, .origin("/caf\u{E9}")),
        (.GET, .origin("/\u{7F}")),
        (.GET, .origin("path")),
        (.GET, .origin("")),
        (.GET, .origin("*")),
        (.GET, .origin("http://example.com/")),
        (.CONNECT, .origin("/")),
        (.CONNECT, .absolute("http://example.com/")),
        (.GET, .absolute("http://example.com/a b")),
        (.GET, .absolute("http://example.com/#x")),
        (.GET, .absolute("no-colon")),
        (.GET, .absolute(":empty-scheme")),
        (.GET, .absolute("ht_tp://example.com/")),
        (.GET, .absolute("")),
        (.GET, .asterisk),
        (.HEAD, .asterisk),
        (.GET, .authority(host: "example.com", port: 443)),
        (.CONNECT, .authority(host: "example.com", port: 0)),
        (.CONNECT, .authority(host: "example.com", port: 65536)),
        (.CONNECT, .authority(host: "example.com", port: -1)),
        (.CONNECT, .authority(host: "", port: 443)),
        (.CONNECT, .authority(host: "a b", port: 443)),
        (.CONNECT, .authority(host: "a\r\nX: y", port: 443)),
        (.CONNECT, .authority(host: "a/b", port: 443)),
    ]

    @Test(arguments: invalidTargets)
    func invalidTargetIsRefused(_ method: HTTPMethod, _ target: RequestTarget) {
        let head = HTTPRequestHead(method: method, target: target)
        #expect(refusal(head, host: "h") == .invalidRequestTarget)
    }

    @Test func everyTargetByte() throws {
        // In an origin-form target: visible ASCII other than "#" is written as is; everything
        // else is refused.
        for byte in UInt8(0)...UInt8(255) {
            guard let s = stringCarrying(byte) else { continue }
            let head = HTTPRequestHead(method: .GET, target: .origin("/a" + s + "b"))
            let allowed = byte >= 0x21 && byte <= 0x7E && byte != UInt8(ascii: "#")
            if allowed {
                #expect(try encoded(head, host: "h") == "GET /a\(s)b HTTP/1.1\r\nHost: h\r\n\r\n", "byte \(byte)")
            } else {
                #expect(refusal(head, host: "h") == .invalidRequestTarget, "byte \(byte)")
            }
        }
    }

    @Test func authorityPortLimits() throws {
        for port in [1, 80, 65535] {
            let head = HTTPRequestHead(method: .CONNECT, target: .authority(host: "h", port: port))
            #expect(try encoded(head, host: "h:\(port)").hasPrefix("CONNECT h:\(port) HTTP/1.1\r\n"))
        }
    }

    // MARK: - Chunked body framing

    private func written(_ body: (inout ByteBuffer) -> Void) -> String {
        var buffer = ByteBuffer()
        body(&buffer)
        return String(decoding: buffer.readableBytesArray(), as: UTF8.self)
    }

    @Test func encodeChunk() {
        #expect(written { b in Array("hello".utf8).withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &b) } } == "5\r\nhello\r\n")
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 255)
        #expect(written { b in big.withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &b) } } == "ff\r\n" + String(repeating: "x", count: 255) + "\r\n")
        let bigger = [UInt8](repeating: UInt8(ascii: "y"), count: 0xABCDE)
        let text = written { b in bigger.withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &b) } }
        #expect(text.hasPrefix("abcde\r\nyyy"))
        #expect(text.utf8.count == 7 + 0xABCDE + 2)
        // An empty chunk would end the body: nothing is written.
        #expect(written { b in [UInt8]().withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &b) } } == "")
    }

    @Test func encodeChunkHeaderAndEnd() {
        let text = written { b in
            HTTPRequestEncoder.encodeChunkHeader(size: 4096, into: &b)
            b.writeBytes([UInt8](repeating: UInt8(ascii: "z"), count: 4096))
            HTTPRequestEncoder.encodeChunkEnd(into: &b)
            HTTPRequestEncoder.encodeChunkHeader(size: 1, into: &b)
            b.writeString("!")
            HTTPRequestEncoder.encodeChunkEnd(into: &b)
        }
        #expect(text == "1000\r\n" + String(repeating: "z", count: 4096) + "\r\n1\r\n!\r\n")
    }

    @Test func encodeLastChunk() {
        #expect(written { HTTPRequestEncoder.encodeLastChunk(into: &$0) } == "0\r\n\r\n")
        let trailers = fields([("X-Checksum", "abc123"), ("Server-Timing", "db;dur=53, app;dur=47.2")])
        #expect(written { HTTPRequestEncoder.encodeLastChunk(trailers: trailers, into: &$0) }
            == "0\r\nX-Checksum: abc123\r\nServer-Timing: db;dur=53, app;dur=47.2\r\n\r\n")
    }

    @Test func zeroSizeChunkHeaderTraps() async {
        await #expect(processExitsWith: .failure) {
            var buffer = ByteBuffer()
            HTTPRequestEncoder.encodeChunkHeader(size: 0, into: &buffer)
        }
    }
}

@Suite("Header fields")
struct HTTPFieldsTests {
    // MARK: - Validation of every byte

    @Test func everyByteInAName() throws {
        for byte in UInt8(0)...UInt8(255) {
            guard let s = stringCarrying(byte) else { continue }
            #expect(s.utf8.contains(byte))
            let isToken = tokenCharacters.contains(byte)
            for name in [s, "X-" + s, s + "-Y"] {
                var appended = HTTPFields()
                var set = HTTPFields()
                do {
                    let field = try HTTPField(name: name, value: "v")
                    #expect(isToken, "byte \(byte) accepted in a name")
                    #expect(field.name == name)
                } catch {
                    #expect(!isToken, "byte \(byte) refused in a name")
                    #expect(error.reason == .invalidName)
                    #expect(error.name == name)
                }
                #expect((try? appended.append(name: name, value: "v")) != nil || !isToken)
                #expect((try? set.set(name: name, value: "v")) != nil || !isToken)
                #expect(appended.count == (isToken ? 1 : 0), "byte \(byte)")
                #expect(set.count == (isToken ? 1 : 0), "byte \(byte)")
            }
            // A method is a token too, and the encoder writes it as is.
            #expect((HTTPMethod("G" + s + "T") != nil) == isToken, "byte \(byte) in a method")
        }
    }

    @Test func everyByteInAValue() throws {
        for byte in UInt8(0)...UInt8(255) {
            guard let s = stringCarrying(byte) else { continue }
            let allowed = byte == 0x09 || byte == 0x20 || (byte >= 0x21 && byte <= 0x7E) || byte >= 0x80
            let value = "a" + s + "z"  // inside the value, so trimming cannot hide the byte
            var appended = HTTPFields()
            do {
                let field = try HTTPField(name: "X", value: value)
                #expect(allowed, "byte \(byte) accepted in a value")
                #expect(field.value == value, "byte \(byte) altered")
            } catch {
                #expect(!allowed, "byte \(byte) refused in a value")
                #expect(error.reason == .invalidValue)
                #expect(error.name == "X")
            }
            #expect((try? appended.append(name: "X", value: value)) != nil || !allowed)
            #expect(appended.count == (allowed ? 1 : 0), "byte \(byte)")
            // Leading or trailing, a refused byte is still refused (trimming comes after checking).
            if !allowed {
                #expect(throws: HTTPFieldError.self) { try HTTPField(name: "X", value: s + "a") }
                #expect(throws: HTTPFieldError.self) { try HTTPField(name: "X", value: "a" + s) }
            }
        }
    }

    @Test func obsTextReachesTheWireUnchanged() throws {
        let value = "caf\u{E9} \u{65E5}\u{672C} \u{1F680}"
        let head = HTTPRequestHead(method: .GET, target: .origin("/"), headers: fields([("X-Text", value)]))
        var buffer = ByteBuffer()
        try HTTPRequestEncoder.encodeHead(head, host: "h", framing: .none, into: &buffer)
        #expect(buffer.readableBytesArray() == Array("GET / HTTP/1.1\r\nHost: h\r\nX-Text: \(value)\r\n\r\n".utf8))
    }

    @Test func emptyNameRefusedEmptyValueAccepted() throws {
        #expect(throws: HTTPFieldError.self) { try HTTPField(name: "", value: "v") }
        #expect(try HTTPField(name: "X", value: "").value == "")
    }

    @Test func valueWhitespaceIsTrimmed() throws {
        #expect(try HTTPField(name: "X", value: "  a b \t").value == "a b")
        #expect(try HTTPField(name: "X", value: "\t\t").value == "")
        #expect(try HTTPField(name: "X", value: "a\t \tb").value == "a\t \tb")
    }

    @Test func errorDescriptionNamesTheField() {
        do {
            _ = try HTTPField(name: "X-Bad", value: "a\r\nb")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("X-Bad"))
            #expect(error.description.contains("invalidValue"))
        }
    }

    // MARK: - Lookup and editing

    @Test func lookupIsCaseInsensitive() throws {
        let f = fields([("Accept", "1"), ("x-token", "2"), ("ACCEPT", "3"), ("Other", "4")])
        #expect(f.count == 4)
        #expect(f.contains("accept") && f.contains("X-TOKEN") && !f.contains("accep") && !f.contains("accepts"))
        #expect(f[first: "aCCept"] == "1")
        #expect(f[first: "missing"] == nil)
        #expect(f.values(for: "accept") == ["1", "3"])
        #expect(f.values(for: "X-Token") == ["2"])
        #expect(f.values(for: "missing") == [])
        #expect(f.map(\.name) == ["Accept", "x-token", "ACCEPT", "Other"])  // order and spelling kept
    }

    @Test func setReplacesEveryMatchInPlace() throws {
        var f = fields([("A", "1"), ("b", "2"), ("a", "3"), ("C", "4"), ("A", "5")])
        try f.set(name: "a", value: "9")
        #expect(f.map(\.name) == ["a", "b", "C"])
        #expect(f.map(\.value) == ["9", "2", "4"])
        try f.set(name: "New", value: "x")
        #expect(f.map(\.name) == ["a", "b", "C", "New"])
        try f.set(name: "B", value: "two")
        #expect(f.map(\.value) == ["9", "two", "4", "x"])
        #expect(f.map(\.name) == ["a", "B", "C", "New"])
    }

    @Test func refusedSetLeavesTheFieldsAlone() {
        var f = fields([("A", "1"), ("a", "2")])
        let before = f
        #expect(throws: HTTPFieldError.self) { try f.set(name: "A", value: "bad\r\nX: y") }
        #expect(throws: HTTPFieldError.self) { try f.set(name: "A:", value: "ok") }
        #expect(f == before)
    }

    @Test func removeIsCaseInsensitive() {
        var f = fields([("A", "1"), ("b", "2"), ("a", "3")])
        f.remove(name: "A")
        #expect(f.map(\.name) == ["b"])
        f.remove(name: "missing")
        #expect(f.count == 1)
        f.remove(name: "B")
        #expect(f.isEmpty)
    }

    @Test func literalAndAppendAgree() throws {
        let literal: HTTPFields = ["Host": "h", "Accept": "*/*"]
        var appended = HTTPFields()
        try appended.append(name: "Host", value: "h")
        appended.append(try HTTPField(name: "Accept", value: "*/*"))
        #expect(literal == appended)
        #expect(literal.hashValue == appended.hashValue)
        #expect(literal != fields([("Accept", "*/*"), ("Host", "h")]))  // order matters
    }

    @Test func invalidLiteralTraps() async {
        await #expect(processExitsWith: .failure) {
            let f: HTTPFields = ["Bad Name": "v"]
            _ = f.count
        }
    }
}

// MARK: - Round trip through the request parser

/// A request as the parser returned it, in owned form.
struct ParsedRequest: Equatable, CustomStringConvertible {
    var method: String
    var target: String
    var version: HTTPVersion
    var headers: [String]
    var body: [UInt8] = []
    var trailers: [String] = []

    var description: String {
        "\(method) \(target) \(version) \(headers) body=\(Fixture.escape(body)) trailers=\(trailers)"
    }
}

struct RoundTripOutcome: Equatable {
    var requests: [ParsedRequest] = []
    var error: HTTPParserError? = nil
}

func parseRequests(_ pieces: [[UInt8]]) -> RoundTripOutcome {
    var parser = HTTPRequestParser()
    var buffer = ByteBuffer()
    var outcome = RoundTripOutcome()
    do {
        for piece in pieces {
            buffer.writeBytes(piece)
            while case let event = try parser.next(&buffer), event != .needMoreData {
                switch event {
                case .head(let h):
                    outcome.requests.append(ParsedRequest(
                        method: h.method.rawValue, target: h.target.string, version: h.version,
                        headers: h.headers.map { "\($0.name.string): \($0.value.string)" }))
                case .body(let b):
                    outcome.requests[outcome.requests.count - 1].body += b.readableBytesArray()
                case .end(let trailers):
                    outcome.requests[outcome.requests.count - 1].trailers = trailerLines(trailers)
                case .needMoreData:
                    break
                }
            }
        }
        let last = try parser.finish(&buffer)
        if last != .needMoreData { Issue.record("unexpected event at the end: \(last)") }
    } catch {
        outcome.error = error
    }
    return outcome
}

@Suite("Request round trip")
struct RequestRoundTripTests {
    struct Request {
        var head: HTTPRequestHead
        var host: String?
        var body: Body
        /// What the parser must report.
        var expected: ParsedRequest

        enum Body {
            case none
            case fixed([UInt8])
            case chunked([[UInt8]], trailers: HTTPFields)
        }
    }

    static func make() throws -> [Request] {
        let upload = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 13) }  // every kind of byte
        return [
            Request(
                head: HTTPRequestHead(method: .GET, target: .origin("/search?q=swift&page=2"), headers: ["Accept": "*/*", "X-Text": "caf\u{E9}"]),
                host: "example.com", body: .none,
                expected: ParsedRequest(method: "GET", target: "/search?q=swift&page=2", version: .http1_1,
                                        headers: ["Host: example.com", "Accept: */*", "X-Text: caf\u{E9}"])),
            Request(
                head: HTTPRequestHead(method: .POST, target: .origin("/items"), headers: ["Content-Type": "application/octet-stream"]),
                host: "h:8080", body: .fixed(upload),
                expected: ParsedRequest(method: "POST", target: "/items", version: .http1_1,
                                        headers: ["Host: h:8080", "Content-Type: application/octet-stream", "Content-Length: 300"],
                                        body: upload)),
            Request(
                head: HTTPRequestHead(method: .PUT, target: .origin("/upload"), headers: fields([("host", "up.example"), ("Expect", "100-continue")])),
                host: nil, body: .chunked([Array("hello".utf8), [0x0D, 0x0A], Array(repeating: 0x41, count: 200)], trailers: fields([("X-Checksum", "c0ffee"), ("X-Count", "3")])),
                expected: ParsedRequest(method: "PUT", target: "/upload", version: .http1_1,
                                        headers: ["Host: up.example", "Expect: 100-continue", "Transfer-Encoding: chunked"],
                                        body: Array("hello".utf8) + [0x0D, 0x0A] + Array(repeating: 0x41, count: 200),
                                        trailers: ["X-Checksum: c0ffee", "X-Count: 3"])),
            Request(
                head: HTTPRequestHead(method: .PATCH, target: .origin("/p"), headers: fields([("Transfer-Encoding", "chunked")])),
                host: "h", body: .chunked([Array("x".utf8)], trailers: HTTPFields()),
                expected: ParsedRequest(method: "PATCH", target: "/p", version: .http1_1,
                                        headers: ["Host: h", "Transfer-Encoding: chunked"], body: Array("x".utf8))),
            Request(
                head: HTTPRequestHead(method: .CONNECT, target: .authority(host: "example.com", port: 443)),
                host: "example.com:443", body: .none,
                expected: ParsedRequest(method: "CONNECT", target: "example.com:443", version: .http1_1, headers: ["Host: example.com:443"])),
            Request(
                head: HTTPRequestHead(method: .GET, target: .absolute("http://example.com/a?b=c")),
                host: "example.com", body: .none,
                expected: ParsedRequest(method: "GET", target: "http://example.com/a?b=c", version: .http1_1, headers: ["Host: example.com"])),
            Request(
                head: HTTPRequestHead(method: .OPTIONS, target: .asterisk, version: .http1_0),
                host: nil, body: .none,
                expected: ParsedRequest(method: "OPTIONS", target: "*", version: .http1_0, headers: [])),
            Request(
                head: HTTPRequestHead(method: try #require(HTTPMethod("M-SEARCH")), target: .origin("/"), headers: ["Content-Length": "0"]),
                host: "h", body: .none,
                expected: ParsedRequest(method: "M-SEARCH", target: "/", version: .http1_1, headers: ["Host: h", "Content-Length: 0"])),
        ]
    }

    static func encode(_ request: Request, into buffer: inout ByteBuffer) throws {
        switch request.body {
        case .none:
            try HTTPRequestEncoder.encodeHead(request.head, host: request.host, framing: .none, into: &buffer)
        case .fixed(let bytes):
            try HTTPRequestEncoder.encodeHead(request.head, host: request.host, framing: .contentLength(UInt64(bytes.count)), into: &buffer)
            buffer.writeBytes(bytes)
        case .chunked(let chunks, let trailers):
            try HTTPRequestEncoder.encodeHead(request.head, host: request.host, framing: .chunked, into: &buffer)
            for (i, chunk) in chunks.enumerated() {
                if i % 2 == 0 {
                    chunk.withUnsafeBytes { HTTPRequestEncoder.encodeChunk($0, into: &buffer) }
                } else {
                    HTTPRequestEncoder.encodeChunkHeader(size: chunk.count, into: &buffer)
                    buffer.writeBytes(chunk)
                    HTTPRequestEncoder.encodeChunkEnd(into: &buffer)
                }
            }
            HTTPRequestEncoder.encodeLastChunk(trailers: trailers, into: &buffer)
        }
    }

    @Test func eachRequestAlone() throws {
        for request in try Self.make() {
            var buffer = ByteBuffer()
            try Self.encode(request, into: &buffer)
            let outcome = expectSameForEveryFeeding(buffer.readableBytesArray()) { parseRequests($0) }
            #expect(outcome.error == nil)
            #expect(outcome.requests == [request.expected])
        }
    }

    @Test func allRequestsPipelined() throws {
        let requests = try Self.make()
        var buffer = ByteBuffer()
        for request in requests { try Self.encode(request, into: &buffer) }
        let input = buffer.readableBytesArray()
        #expect(input.count < 4096)
        let outcome = expectSameForEveryFeeding(input) { parseRequests($0) }
        #expect(outcome.error == nil)
        #expect(outcome.requests == requests.map(\.expected))
    }
}

/// Host, scheme and authority checked by RFC 3986's grammar (issue 9, item 1.9): what does not
/// match is refused, never written and never silently changed.
@Suite("Request encoder: RFC 3986 validation")
struct RequestEncoderGrammarTests {
    /// RFC 3986 §2.3 unreserved and §2.2 sub-delims, copied from the RFC text: the bytes a
    /// reg-name may hold literally (§3.2.2).
    static let regNameLiterals = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
            + Array("!$&'()*+,;=".utf8))
    /// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
    static let alpha = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8))
    static let schemeTail = alpha.union(Array("0123456789+-.".utf8))

    // MARK: Several Host fields

    @Test func severalHostFieldsAreRefused() throws {
        let two = HTTPRequestHead(method: .GET, target: .origin("/"), headers: fields([("Host", "a"), ("Accept", "x"), ("host", "b")]))
        #expect(refusal(two, host: "a") == .multipleHosts)
        #expect(refusal(two) == .multipleHosts)
        // Even when both say the same: the caller's fields are never rewritten.
        let same = HTTPRequestHead(method: .GET, target: .origin("/"), headers: fields([("Host", "a"), ("Host", "a")]))
        #expect(refusal(same, host: "a") == .multipleHosts)
        let one = HTTPRequestHead(method: .GET, target: .origin("/"), headers: fields([("Host", "a")]))
        #expect(try encoded(one) == "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    }

    // MARK: Host

    static let refusedHosts = [
        "[::1", "::1]", "[::1]]", "[[::1]", "a]", "a[", "[a]", "[]", "[::1]x", "[::1]:8x", "%", "a%", "a%4", "a%zz", "%%41",
        "a:b", "a:80:81", "[:::]", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7]", "[1::2::3]", "[::1.2.3.256]", "[1:2:3:4:5:6:7:1.2.3.4]",
        "[:1::]", "[1:]", "[12345::]", "[fe80::1%25eth0]", "[v.x]", "[v1.]", "[vg.x]", ":80", "a@b",
    ]

    @Test(arguments: refusedHosts)
    func hostOutsideTheGrammarIsRefused(_ host: String) {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"))
        #expect(refusal(head, host: host) == .invalidHost, "\(host)")
        let field = HTTPRequestHead(method: .GET, target: .origin("/"), headers: fields([("Host", host)]))
        #expect(refusal(field) == .invalidHost, "\(host)")
    }

    static let acceptedHosts = [
        "[::]", "[::1]", "[::1]:8080", "[1:2:3:4:5:6:7:8]", "[1::]", "[1:2:3:4:5:6:7::]", "[::ffff:1.2.3.4]",
        "[1:2:3:4:5:6:1.2.3.4]", "[2001:DB8::1]", "[v1.fe80::a+en1]", "[V7.x:y]", "%41%42", "a%2Eb", "sub.example.com:1",
        "1.2.3.4", "999.1.1.1", "h:",
    ]

    @Test(arguments: acceptedHosts)
    func hostInTheGrammarIsWritten(_ host: String) throws {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"))
        #expect(try encoded(head, host: host) == "GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
    }

    @Test("reg-name bytes in a Host", arguments: CharacterClassTests.allBytes)
    func regNameByte(_ b: UInt8) throws {
        guard let s = stringCarrying(b) else { return }
        let head = HTTPRequestHead(method: .GET, target: .origin("/"))
        if Self.regNameLiterals.contains(b) {
            #expect(try encoded(head, host: "a\(s)b") == "GET / HTTP/1.1\r\nHost: a\(s)b\r\n\r\n")
        } else {
            // ":" starts a port ("b" is not one), "%" must start a triplet, "[" and "]" only wrap
            // an IP literal; everything else is outside the grammar.
            #expect(refusal(head, host: "a\(s)b") == .invalidHost, "byte \(b)")
        }
    }

    @Test("IP-literal bytes", arguments: CharacterClassTests.allBytes)
    func ipLiteralByte(_ b: UInt8) throws {
        // "[v1.<byte>]": IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
        guard let s = stringCarrying(b) else { return }
        let head = HTTPRequestHead(method: .CONNECT, target: .authority(host: "[v1.\(s)]", port: 443))
        if Self.regNameLiterals.contains(b) || b == UInt8(ascii: ":") {
            #expect(try encoded(head, host: "h").hasPrefix("CONNECT [v1.\(s)]:443 HTTP/1.1\r\n"), "byte \(b)")
        } else {
            #expect(refusal(head, host: "h") == .invalidRequestTarget, "byte \(b)")
        }
    }

    // MARK: Absolute form

    @Test("the first byte of a scheme", arguments: CharacterClassTests.allBytes)
    func schemeFirstByte(_ b: UInt8) throws {
        guard let s = stringCarrying(b) else { return }
        let head = HTTPRequestHead(method: .GET, target: .absolute("\(s)ttp://h/"))
        if Self.alpha.contains(b) {
            #expect(try encoded(head, host: "h").hasPrefix("GET \(s)ttp://h/ HTTP/1.1\r\n"))
        } else {
            #expect(refusal(head, host: "h") == .invalidRequestTarget, "byte \(b)")
        }
    }

    @Test("a later byte of a scheme", arguments: CharacterClassTests.allBytes)
    func schemeLaterByte(_ b: UInt8) throws {
        guard let s = stringCarrying(b), b != UInt8(ascii: ":") else { return }
        let head = HTTPRequestHead(method: .GET, target: .absolute("h\(s)p://h/"))
        if Self.schemeTail.contains(b) {
            #expect(try encoded(head, host: "h").hasPrefix("GET h\(s)p://h/ HTTP/1.1\r\n"))
        } else {
            #expect(refusal(head, host: "h") == .invalidRequestTarget, "byte \(b)")
        }
    }

    static let refusedAbsoluteTargets = [
        "1http://h/", "+http://h/", "-http://h/", ".http://h/", "http://[::1/", "http://h]/", "http://%/", "http://a%zz/",
        "http://user:secret@h/", "http://@h/", "http:///", "http://h:8x/",
    ]

    @Test(arguments: refusedAbsoluteTargets)
    func absoluteTargetOutsideTheGrammarIsRefused(_ target: String) {
        let head = HTTPRequestHead(method: .GET, target: .absolute(target))
        #expect(refusal(head, host: "h") == .invalidRequestTarget, "\(target)")
    }

    @Test func userInformationIsNotRepeatedInTheError() {
        let head = HTTPRequestHead(method: .GET, target: .absolute("http://user:secret@h/"))
        do {
            var buffer = ByteBuffer()
            try HTTPRequestEncoder.encodeHead(head, host: "h", framing: .none, into: &buffer)
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("secret"), "\(error)")
        }
    }

    @Test(arguments: ["http://h", "http://[::1]:80/a?b", "h2c+x-y.z://h/", "urn:isbn:123", "http://h?q"])
    func absoluteTargetInTheGrammarIsWritten(_ target: String) throws {
        let head = HTTPRequestHead(method: .GET, target: .absolute(target))
        #expect(try encoded(head, host: "h").hasPrefix("GET \(target) HTTP/1.1\r\n"))
    }
}

/// `headAsWritten` reports what `encodeHead` writes: serialising its fields gives the same
/// bytes, for each framing and with or without a Host of the head's own.
@Suite struct HeadAsWrittenTests {
    private func text(_ head: HTTPRequestHead) -> String {
        guard case .origin(let target) = head.target else { return "" }
        var text = "\(head.method.rawValue) \(target) \(head.version)\r\n"
        for field in head.headers { text += "\(field.name): \(field.value)\r\n" }
        return text + "\r\n"
    }

    @Test(arguments: [RequestBodyFraming.none, .contentLength(3), .chunked])
    func theReportedHeadIsTheOneEncoded(framing: RequestBodyFraming) throws {
        for headers in [fields([("Accept", "*/*")]), fields([("Accept", "*/*"), ("Host", "own.example")])] {
            let head = HTTPRequestHead(method: .POST, target: .origin("/up"), headers: headers)
            let written = try #require(HTTPRequestEncoder.headAsWritten(head, host: "example.com:8080", framing: framing))
            #expect(text(written) == (try encoded(head, host: "example.com:8080", framing: framing)))
            #expect(written.headers[0].name == "Host", "Host first, as on the wire")
        }
    }

    @Test func aHeadEncodeHeadRefusesHasNoWrittenForm() {
        let conflicting = HTTPRequestHead(method: .POST, target: .origin("/"), headers: fields([("Content-Length", "5")]))
        #expect(HTTPRequestEncoder.headAsWritten(conflicting, host: "h", framing: .contentLength(3)) == nil)
        let twoHosts = HTTPRequestHead(method: .GET, target: .origin("/"), headers: fields([("Host", "a"), ("Host", "b")]))
        #expect(HTTPRequestEncoder.headAsWritten(twoHosts, host: nil, framing: .none) == nil)
    }
}
