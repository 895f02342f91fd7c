import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

/// Parses a response fed in `pieces` and returns the first final head (and end trailers, if a
/// chunked body carried some).
private func parseHead(_ pieces: [[UInt8]]) -> (head: HTTPResponseHead?, trailers: HTTPHeaderView?) {
    var parser = HTTPResponseParser()
    var buffer = ByteBuffer()
    var head: HTTPResponseHead?
    var trailers: HTTPHeaderView?
    do {
        for piece in pieces {
            buffer.writeBytes(piece)
            while case let event = try parser.next(&buffer), event != .needMoreData {
                switch event {
                case .head(let h): head = h
                case .end(let t): trailers = t
                default: break
                }
            }
        }
    } catch {
        Issue.record("parse error \(error)")
    }
    return (head, trailers)
}

/// Everything the lookups of a view say, for comparing across feedings.
struct ViewReport: Equatable, CustomStringConvertible {
    var lines: [String] = []
    var description: String { lines.joined(separator: "\n") }
}

/// Runs every lookup of a view over a set of probe names.
private func report(_ view: HTTPHeaderView, probes: [String]) -> ViewReport {
    var r = ViewReport()
    r.lines.append("count \(view.count) empty \(view.isEmpty)")
    for (i, field) in view.enumerated() {
        r.lines.append("\(i) \(field.name.string)=\(field.value.string) (\(field.name.count),\(field.value.count))")
    }
    for p in probes {
        let index = view.firstIndex(named: p).map(String.init) ?? "nil"
        r.lines.append("probe \(p.debugDescription): contains \(view.contains(p)) index \(index) first \(view[first: p]?.debugDescription ?? "nil") values \(view.values(for: p))")
    }
    let owned = view.owned()
    r.lines.append("owned \(owned.map { "\($0.name)=\($0.value)" })")
    return r
}

@Suite("Header views")
struct HeaderViewTests {
    static let response =
        "HTTP/1.1 200 OK\r\n"
        + "Content-Type: text/html; charset=utf-8\r\n"
        + "Set-Cookie: a=1\r\n"
        + "set-cookie: b=2\r\n"
        + "X-Empty:\r\n"
        + "X-Spaces: \t v  w \t \r\n"
        + "SET-COOKIE: c=3\r\n"
        + "X-Utf8: caf\u{E9}\r\n"
        + "X^: caret\r\n"
        + "Content-Length: 0\r\n"
        + "\r\n"

    @Test func lookupsAgreeForEveryFeeding() {
        let probes = ["content-type", "CONTENT-TYPE", "Set-Cookie", "set-cookie", "x-empty", "X-SPACES", "x-utf8",
                      "x^", "x~", "missing", "content-typ", "content-type2", ""]
        let result = expectSameForEveryFeeding(Array(Self.response.utf8)) { pieces -> ViewReport in
            guard let head = parseHead(pieces).head else { return ViewReport(lines: ["no head"]) }
            return report(head.headers, probes: probes)
        }
        // What a reader of the response above expects, written out by hand.
        let expected = [
            "count 9 empty false",
            "0 Content-Type=text/html; charset=utf-8 (12,24)",
            "1 Set-Cookie=a=1 (10,3)",
            "2 set-cookie=b=2 (10,3)",
            "3 X-Empty= (7,0)",
            "4 X-Spaces=v  w (8,4)",
            "5 SET-COOKIE=c=3 (10,3)",
            "6 X-Utf8=caf\u{E9} (6,5)",
            "7 X^=caret (2,5)",
            "8 Content-Length=0 (14,1)",
            "probe \"content-type\": contains true index 0 first \"text/html; charset=utf-8\" values [\"text/html; charset=utf-8\"]",
            "probe \"CONTENT-TYPE\": contains true index 0 first \"text/html; charset=utf-8\" values [\"text/html; charset=utf-8\"]",
            "probe \"Set-Cookie\": contains true index 1 first \"a=1\" values [\"a=1\", \"b=2\", \"c=3\"]",
            "probe \"set-cookie\": contains true index 1 first \"a=1\" values [\"a=1\", \"b=2\", \"c=3\"]",
            "probe \"x-empty\": contains true index 3 first \"\" values [\"\"]",
            "probe \"X-SPACES\": contains true index 4 first \"v  w\" values [\"v  w\"]",
            "probe \"x-utf8\": contains true index 6 first \"caf\u{E9}\" values [\"caf\u{E9}\"]",
            "probe \"x^\": contains true index 7 first \"caret\" values [\"caret\"]",
            // "^" is 0x5E and "~" is 0x7E: they differ only in the bit that ASCII case folding
            // flips for letters, and they are not letters.
            "probe \"x~\": contains false index nil first nil values []",
            "probe \"missing\": contains false index nil first nil values []",
            "probe \"content-typ\": contains false index nil first nil values []",
            "probe \"content-type2\": contains false index nil first nil values []",
            "probe \"\": contains false index nil first nil values []",
            "owned [\"Content-Type=text/html; charset=utf-8\", \"Set-Cookie=a=1\", \"set-cookie=b=2\", \"X-Empty=\", \"X-Spaces=v  w\", \"SET-COOKIE=c=3\", \"X-Utf8=caf\u{E9}\", \"X^=caret\", \"Content-Length=0\"]",
        ]
        #expect(result.lines == expected, "\n\(result)")
    }

    @Test func equalsCaseInsensitive() throws {
        let head = try parseResponseHead(Self.response)
        let name = head.headers[0].name
        #expect(name.equalsCaseInsensitive("content-type"))
        #expect(name.equalsCaseInsensitive("CONTENT-TYPE"))
        #expect(name.equalsCaseInsensitive("Content-Type"))
        #expect(!name.equalsCaseInsensitive("Content-Typf"))
        #expect(!name.equalsCaseInsensitive("Content-Typ"))
        #expect(!name.equalsCaseInsensitive("Content-Types"))
        #expect(!name.equalsCaseInsensitive(""))
        #expect(!name.equalsCaseInsensitive("Content_Type"))  // "-" is not "_" in any case
        let caret = head.headers[7].name  // "X^"
        #expect(caret.equalsCaseInsensitive("x^"))
        #expect(!caret.equalsCaseInsensitive("x~"))  // 0x5E vs 0x7E
        let value = head.headers[0].value
        #expect(value.equalsCaseInsensitive("TEXT/HTML; CHARSET=UTF-8"))
        #expect(!value.equalsCaseInsensitive("text/html; charset=utf-9"))
        let utf8 = head.headers[6].value
        #expect(utf8.equalsCaseInsensitive("CAF\u{E9}"))
        #expect(!utf8.equalsCaseInsensitive("CAF\u{C9}"))  // only ASCII letters fold
    }

    @Test func everyASCIIPairFoldsOnlyForLetters() throws {
        // One field per token byte, then compare each name with every other single byte.
        let tokenBytes = Array("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var text = "HTTP/1.1 200 OK\r\n"
        for b in tokenBytes { text += String(Character(Unicode.Scalar(b))) + ": v\r\n" }
        text += "Content-Length: 0\r\n\r\n"
        let head = try parseResponseHead(text)
        for (i, b) in tokenBytes.enumerated() {
            let name = head.headers[i].name
            for other in UInt8(0)..<UInt8(128) {
                let isLetterPair = (b | 0x20) == (other | 0x20) && (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z")
                let expected = b == other || isLetterPair
                let probe = String(Character(Unicode.Scalar(other)))
                #expect(name.equalsCaseInsensitive(probe) == expected, "\(b) vs \(other)")
            }
        }
    }

    @Test func iterationFollowsTheWire() throws {
        let head = try parseResponseHead(Self.response)
        var names: [String] = []
        for field in head.headers { names.append(field.name.string) }
        #expect(names == ["Content-Type", "Set-Cookie", "set-cookie", "X-Empty", "X-Spaces", "SET-COOKIE", "X-Utf8", "X^", "Content-Length"])
        #expect(head.headers.indices == 0..<9)
        #expect(head.headers.reversed().first?.name.string == "Content-Length")
    }

    @Test func ownedFieldsMatchAndOutliveTheBuffer() throws {
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer(string: Self.response)
        var owned = HTTPFields()
        var view = HTTPHeaderView()
        while case let event = try parser.next(&buffer), event != .needMoreData {
            if case .head(let h) = event {
                view = h.headers
                owned = h.headers.owned()
            }
        }
        // Reuse the parser's buffer for a different response: neither copy may change.
        buffer.writeString("HTTP/1.1 204 No Content\r\nContent-Type: image/png\r\nX-Other: zzzzzzzzzzzzzzzzzz\r\n\r\n")
        while try parser.next(&buffer) != .needMoreData {}
        buffer.writeString(String(repeating: "#", count: 300))
        var expected = HTTPFields()
        for (n, v) in [("Content-Type", "text/html; charset=utf-8"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("X-Empty", ""),
                       ("X-Spaces", "v  w"), ("SET-COOKIE", "c=3"), ("X-Utf8", "caf\u{E9}"), ("X^", "caret"), ("Content-Length", "0")] {
            try expected.append(name: n, value: v)
        }
        #expect(owned == expected)
        #expect(view.owned() == expected)
        #expect(owned.values(for: "set-cookie") == ["a=1", "b=2", "c=3"])
    }

    /// `owned()` keeps a received head as bytes until it is changed: every read answers as the
    /// same fields built one `append` at a time would, equality and hashing ignore which form
    /// a list is in, and the first change turns it into ordinary fields with nothing lost.
    @Test func ownedFieldsReadAsBytesThenChangeLikeAppendedOnes() throws {
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer()
        buffer.writeString("HTTP/1.1 200 OK\r\nServer: test\r\nSet-Cookie: a=1\r\nX-Long: ")
        buffer.writeBytes(Array(String(repeating: "v", count: 40).utf8) + [0xE9])
        buffer.writeString("\r\nset-cookie: b=2\r\nContent-Length: 0\r\n\r\n")
        var received = HTTPFields()
        while case let event = try parser.next(&buffer), event != .needMoreData {
            if case .head(let h) = event { received = h.headers.owned() }
        }
        var appended = HTTPFields()
        try appended.append(name: "Server", value: "test")
        try appended.append(name: "Set-Cookie", value: "a=1")
        try appended.append(name: "X-Long", valueBytes: Array(String(repeating: "v", count: 40).utf8) + [0xE9])
        try appended.append(name: "set-cookie", value: "b=2")
        try appended.append(name: "Content-Length", value: "0")

        #expect(received == appended && appended == received)
        #expect(received.hashValue == appended.hashValue)
        #expect(received.count == 5 && Array(received) == Array(appended))
        #expect(received.contains("SET-COOKIE") && !received.contains("Host"))
        #expect(received[first: "set-cookie"] == "a=1" && received[first: "Host"] == nil)
        #expect(received.values(for: "Set-Cookie") == ["a=1", "b=2"] && received.values(for: "Host").isEmpty)
        #expect(received.firstValueBytes(for: "x-long") == Array(String(repeating: "v", count: 40).utf8) + [0xE9])
        #expect(received.valueBytes(for: "x-long") == appended.valueBytes(for: "x-long"))
        #expect(received[2].value == String(repeating: "v", count: 40) + "\u{E9}" && received[2].valueBytes.last == 0xE9)

        // Changes: each one leaves the list as the same change leaves the appended one.
        var changed = received
        var expected = appended
        changed.remove(name: "Host")
        #expect(changed == expected)
        try changed.set(name: "Set-Cookie", value: "c=3")
        try expected.set(name: "Set-Cookie", value: "c=3")
        #expect(changed == expected && changed.values(for: "set-cookie") == ["c=3"])
        changed.remove(name: "server")
        expected.remove(name: "server")
        try changed.append(name: "X-New", value: "1")
        try expected.append(name: "X-New", value: "1")
        #expect(changed == expected && Array(changed.map(\.name)) == ["Set-Cookie", "X-Long", "Content-Length", "X-New"])
        #expect(changed.firstValueBytes(for: "X-Long")?.last == 0xE9, "the obs-text byte survives the change")
        // The copy that was not changed still reads as received.
        #expect(received == appended)
    }

    @Test func emptyView() throws {
        let empty = HTTPHeaderView()
        #expect(empty.isEmpty)
        #expect(empty.count == 0)
        #expect(!empty.contains("Host"))
        #expect(empty.firstIndex(named: "Host") == nil)
        #expect(empty[first: "Host"] == nil)
        #expect(empty.values(for: "Host") == [])
        #expect(empty.owned().isEmpty)
        #expect(Array(empty).isEmpty)
        // A parsed head without fields has an equally empty view.
        let bare = try parseResponseHead("HTTP/1.1 204 No Content\r\n\r\n")
        #expect(bare.headers.isEmpty)
        #expect(bare.headers == empty)
        #expect(bare.headers.hashValue == empty.hashValue)
    }

    @Test func viewEqualityIsByNamesAndValues() throws {
        let a = try parseResponseHead("HTTP/1.1 200 OK\r\nA: 1\r\nContent-Length: 0\r\n\r\n")
        let b = try parseResponseHead("HTTP/1.1 404 Not Found\r\nA:    1   \r\nContent-Length: 0\r\n\r\n")
        let c = try parseResponseHead("HTTP/1.1 200 OK\r\na: 1\r\nContent-Length: 0\r\n\r\n")
        #expect(a.headers == b.headers)  // same fields once whitespace is trimmed; the status line is not part of it
        #expect(a.headers.hashValue == b.headers.hashValue)
        #expect(a.headers != c.headers)  // names are compared as sent
        #expect(a.headers[0] == b.headers[0])
        #expect(a.headers[0].name != c.headers[0].name)
    }

    @Test func httpBytesBasics() throws {
        let head = try parseResponseHead(Self.response)
        let value = head.headers[0].value
        #expect(value.count == 24)
        #expect(value.string == "text/html; charset=utf-8")
        #expect(value.description == value.string)
        #expect(value.withUnsafeBytes { Array($0) } == Array("text/html; charset=utf-8".utf8))
        #expect(value.buffer.readableBytesArray() == Array("text/html; charset=utf-8".utf8))
        #expect(head.reason.string == "OK")
    }

    @Test func trailerViewFromAChunkedResponse() {
        let input = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 42\r\nx-sum: 43\r\nOther: o\r\n\r\n".utf8)
        let result = expectSameForEveryFeeding(input) { pieces -> ViewReport in
            guard let trailers = parseHead(pieces).trailers else { return ViewReport(lines: ["no trailers"]) }
            return report(trailers, probes: ["X-SUM", "other", "Transfer-Encoding"])
        }
        #expect(result.lines == [
            "count 3 empty false",
            "0 X-Sum=42 (5,2)",
            "1 x-sum=43 (5,2)",
            "2 Other=o (5,1)",
            "probe \"X-SUM\": contains true index 0 first \"42\" values [\"42\", \"43\"]",
            "probe \"other\": contains true index 2 first \"o\" values [\"o\"]",
            "probe \"Transfer-Encoding\": contains false index nil first nil values []",
            "owned [\"X-Sum=42\", \"x-sum=43\", \"Other=o\"]",
        ], "\n\(result)")
    }

    @Test func requestHeadViewToo() {
        let input = Array("POST /x HTTP/1.1\r\nHost: h\r\nCONTENT-LENGTH: 2\r\nAccept: a\r\naccept: b\r\n\r\nhi".utf8)
        let result = expectSameForEveryFeeding(input) { pieces -> ViewReport in
            var parser = HTTPRequestParser()
            var buffer = ByteBuffer()
            var view: HTTPHeaderView?
            do {
                for piece in pieces {
                    buffer.writeBytes(piece)
                    while case let event = try parser.next(&buffer), event != .needMoreData {
                        if case .head(let h) = event { view = h.headers }
                    }
                }
            } catch {
                return ViewReport(lines: ["error \(error)"])
            }
            guard let view else { return ViewReport(lines: ["no head"]) }
            return report(view, probes: ["content-length", "ACCEPT"])
        }
        #expect(result.lines == [
            "count 4 empty false",
            "0 Host=h (4,1)",
            "1 CONTENT-LENGTH=2 (14,1)",
            "2 Accept=a (6,1)",
            "3 accept=b (6,1)",
            "probe \"content-length\": contains true index 1 first \"2\" values [\"2\"]",
            "probe \"ACCEPT\": contains true index 2 first \"a\" values [\"a\", \"b\"]",
            "owned [\"Host=h\", \"CONTENT-LENGTH=2\", \"Accept=a\", \"accept=b\"]",
        ], "\n\(result)")
    }
}

/// RFC 9110 §5.5: obs-text is opaque data. Every public header type keeps the exact bytes, and
/// the `String` view is UTF-8 when the bytes are valid UTF-8, else ISO-8859-1 (one scalar per byte).
@Suite("Field value bytes")
struct FieldValueBytesTests {
    static let latin: [UInt8] = Array("caf".utf8) + [0xE9]

    @Test func viewAndOwnedFieldsKeepObsTextBytes() throws {
        let input = Array("HTTP/1.1 200 OK\r\nX-Latin: ".utf8) + Self.latin
            + Array("\r\nX-Utf8: caf\u{E9}\r\nX-Mixed: \u{E9}".utf8) + [0xE9]
            + Array("\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: ".utf8) + [0x80, 0xFF] + Array("\r\n\r\n".utf8)
        for pieces in [[input], input.map { [$0] }] {
            let (head, trailers) = parseHead(pieces)
            let view = try #require(head?.headers)
            let latin = try #require(view.firstIndex(named: "x-latin").map { view[$0].value })
            #expect(latin.bytes == Self.latin)
            #expect(latin.string == "caf\u{E9}")
            #expect(view.firstValueBytes(for: "X-Latin") == Self.latin)
            #expect(view.valueBytes(for: "x-utf8") == [Array("caf".utf8) + [0xC3, 0xA9]])
            #expect(view[first: "X-Utf8"] == "caf\u{E9}")
            // Not valid UTF-8 as a whole, so every byte is one scalar (C3 A9 E9 → "Ã©é").
            #expect(view[first: "X-Mixed"] == "\u{C3}\u{A9}\u{E9}")

            let owned = view.owned()
            #expect(owned.firstValueBytes(for: "X-Latin") == Self.latin)
            #expect(owned[first: "X-Latin"] == "caf\u{E9}")
            #expect(owned.firstValueBytes(for: "X-Utf8") == Array("caf".utf8) + [0xC3, 0xA9])
            #expect(owned.valueBytes(for: "X-Mixed") == [[0xC3, 0xA9, 0xE9]])
            // The same text from different bytes is a different field.
            #expect(owned.first { $0.name == "X-Latin" } != (try HTTPField(name: "X-Latin", value: "caf\u{E9}")))

            let trailerView = try #require(trailers)
            #expect(trailerView.firstValueBytes(for: "X-T") == [0x80, 0xFF])
            #expect(trailerView.owned().firstValueBytes(for: "X-T") == [0x80, 0xFF])
            #expect(trailerView[first: "X-T"] == "\u{80}\u{FF}")
        }
    }

    @Test func everyByteValueSurvivesTheOwnedCopy() throws {
        // Each obs-text byte alone, and all of them in one value.
        for byte in UInt8(0x80)...UInt8(0xFF) {
            let input = Array("HTTP/1.1 204 No Content\r\nX: a".utf8) + [byte] + Array("\r\n\r\n".utf8)
            let owned = try #require(parseHead([input]).head).headers.owned()
            #expect(owned.firstValueBytes(for: "X") == [UInt8(ascii: "a"), byte])
            #expect(owned[first: "X"]?.unicodeScalars.map(\.value) == [0x61, UInt32(byte)])
        }
        let all = Array(UInt8(0x80)...UInt8(0xFF))
        let input = Array("HTTP/1.1 204 No Content\r\nX: ".utf8) + all + Array("\r\n\r\n".utf8)
        #expect(try #require(parseHead([input]).head).headers.owned().firstValueBytes(for: "X") == all)
    }

    @Test func fieldsMadeFromBytesAreSentAsThoseBytes() throws {
        var fields = HTTPFields()
        try fields.append(name: "X-Latin", valueBytes: [0x20] + Self.latin + [0x09])
        try fields.append(name: "X-Text", value: "caf\u{E9}")
        #expect(fields.firstValueBytes(for: "X-Latin") == Self.latin, "trimmed, otherwise exact")
        #expect(fields[first: "X-Latin"] == "caf\u{E9}")
        #expect(fields.firstValueBytes(for: "X-Text") == Array("caf".utf8) + [0xC3, 0xA9])
        #expect(throws: HTTPFieldError.self) { try HTTPField(name: "X", valueBytes: Array("a\r\nb".utf8)) }
        #expect(throws: HTTPFieldError.self) { try HTTPField(name: "X", valueBytes: [0x61, 0x00]) }

        var buffer = ByteBuffer()
        try HTTPRequestEncoder.encodeHead(
            HTTPRequestHead(method: .GET, target: .origin("/"), version: .http1_1, headers: fields),
            host: "h", framing: .none, into: &buffer)
        let expected = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Latin: ".utf8) + Self.latin
            + Array("\r\nX-Text: caf".utf8) + [0xC3, 0xA9] + Array("\r\n\r\n".utf8)
        #expect(buffer.readableBytesArray() == expected)
    }
}
