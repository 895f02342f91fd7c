import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// RFC 9110 §5.5: obs-text in a response field is opaque data; a data task's `Response` keeps
/// the exact bytes the server sent.
@Suite(.serialized) struct ObsTextResponseTests {
    @Test func aDataTaskResponseKeepsLatin1FieldBytes() throws {
        let latin = Array("caf".utf8) + [0xE9]
        try withSession { manager, server in
            server.route("/latin") { _, connection in
                try connection.send(
                    Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nX-Latin: ".utf8) + latin
                        + Array("\r\n\r\nok".utf8))
            }
            let response = try runData(manager, Request(url: url(server, "/latin")))
            let head = try #require(response.response)
            #expect(head.valueBytes(forHTTPHeaderField: "x-latin") == latin)
            #expect(head.headers.firstValueBytes(for: "X-Latin") == latin)
            // The String view maps each byte that is not UTF-8 to one scalar: "café", not U+FFFD.
            #expect(head.value(forHTTPHeaderField: "X-Latin") == "caf\u{E9}")
            #expect(response.value.map { Array($0) } == Array("ok".utf8))
        }
    }
}
