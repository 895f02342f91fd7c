import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// RFC 9110 §5.5: obs-text (0x80–0xFF) in a field value is opaque data. Its bytes must reach the
/// user exactly, in fields, trailers and the reason phrase.
@Suite(.serialized) struct ObsTextFieldTests {
    static let latin = Array("caf".utf8) + [0xE9]

    @Test func latin1BytesInFieldsTrailersAndReasonReachTheUser() throws {
        try withClientAndServer { client, server in
            server.route("/latin") { _, connection in
                try connection.send(
                    Array("HTTP/1.1 200 Gr".utf8) + [0xFC, 0xDF] + Array("e\r\nX-Latin: ".utf8) + Self.latin
                        + Array("\r\nX-Utf8: caf\u{E9}\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: ".utf8)
                        + [0xFF, 0x80] + Array("\r\n\r\n".utf8))
            }
            let result = run(client, try get("\(server.baseURL)/latin"))
            let head = try #require(result.head)
            #expect(head.headers.firstValueBytes(for: "X-Latin") == Self.latin)
            // The String view: not UTF-8, so ISO-8859-1, one scalar per byte; nothing replaced.
            #expect(head.headers[first: "X-Latin"] == "caf\u{E9}")
            #expect(head.headers[first: "X-Latin"]?.contains("\u{FFFD}") == false)
            // Valid UTF-8 reads as UTF-8 and keeps its own bytes.
            #expect(head.headers[first: "X-Utf8"] == "caf\u{E9}")
            #expect(head.headers.firstValueBytes(for: "X-Utf8") == Array("caf".utf8) + [0xC3, 0xA9])
            #expect(head.reasonBytes == Array("Gr".utf8) + [0xFC, 0xDF] + Array("e".utf8))
            #expect(head.reason == "Gr\u{FC}\u{DF}e")
            #expect(result.trailers?.firstValueBytes(for: "X-Trailer") == [0xFF, 0x80])
            #expect(result.trailers?[first: "X-Trailer"] == "\u{FF}\u{80}")
            #expect(result.bodyString == "ok")
        }
    }
}
