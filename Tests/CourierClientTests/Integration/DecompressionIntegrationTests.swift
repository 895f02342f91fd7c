import CCourierZlib
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// zlib compression of test bodies (CourierTestSupport).
func compress(_ input: [UInt8], gzip: Bool = true) -> [UInt8] { TestCompression.compress(input, gzip: gzip) }

/// Response content codings over real connections (RFC 9110 §8.4).
@Suite(.serialized) struct DecompressionIntegrationTests {
    static let text: [UInt8] = Array(String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 400).utf8)

    @Test func gzipBodyIsDecoded() throws {
        try withClientAndServer { client, server in
            let gzipped = compress(Self.text)
            server.routeEncoded("/gz", coding: "gzip", body: gzipped)
            let result = run(client, try get("\(server.baseURL)/gz"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.body == Self.text)
            #expect(result.metrics?.bodyBytesDelivered == Int64(Self.text.count))
            // The head is delivered as received.
            #expect(result.head?.headers[first: "Content-Encoding"] == "gzip")
            #expect(result.head?.undecodedContentCodings == [], "nothing is left undone")
            #expect(server.requests.first?.header("Accept-Encoding") == "gzip, deflate")
        }
    }

    @Test func chunkedGzipAndDeflateAreDecoded() throws {
        try withClientAndServer { client, server in
            let gzipped = compress(Self.text)
            let deflated = compress(Self.text, gzip: false)
            server.route("/gz") { _, connection in
                // Small chunks that split the gzip header and trailer.
                let chunks = stride(from: 0, to: gzipped.count, by: 7).map { Array(gzipped[$0..<min($0 + 7, gzipped.count)]) }
                try connection.sendChunked(headers: [("Content-Encoding", "gzip")], chunks: chunks)
            }
            server.route("/deflate") { _, connection in
                try connection.sendChunked(headers: [("Content-Encoding", "deflate")], chunks: [deflated])
            }
            let first = run(client, try get("\(server.baseURL)/gz"))
            #expect(first.error == nil, "\(String(describing: first.error))")
            #expect(first.body == Self.text)
            let second = run(client, try get("\(server.baseURL)/deflate"))
            #expect(second.body == Self.text)
            #expect(second.metrics?.reusedConnection == true)
        }
    }

    @Test func requestAcceptEncodingIsNotOverridden() throws {
        try withClientAndServer { client, server in
            server.route("/plain") { _, connection in try connection.respond(body: "plain") }
            var request = try get("\(server.baseURL)/plain")
            request.headers = ["Accept-Encoding": "identity"]
            let result = run(client, request)
            #expect(result.bodyString == "plain")
            #expect(server.requests.first?.headerValues("Accept-Encoding") == ["identity"])
        }
    }

    @Test func decompressionOffDeliversRawBytes() throws {
        try withClientAndServer(configure: { $0.decompression = false }) { client, server in
            let gzipped = compress(Self.text)
            server.routeEncoded("/gz", coding: "gzip", body: gzipped)
            let result = run(client, try get("\(server.baseURL)/gz"))
            #expect(result.body == gzipped)
            #expect(server.requests.first?.header("Accept-Encoding") == nil)
        }
    }

    @Test func gzipBombFails() throws {
        try withClientAndServer { client, server in
            // 16 MiB of zeros compress about 1000:1, far past the default limit of 100:1.
            let bomb = compress([UInt8](repeating: 0, count: 16 << 20))
            server.routeEncoded("/bomb", coding: "gzip", body: bomb)
            let result = run(client, try get("\(server.baseURL)/bomb"))
            #expect(result.error?.code == .contentDecoding, "\(String(describing: result.error))")
            #expect(result.error?.phase == .decode)
            #expect(result.body.count < 16 << 20)
        }
    }

    @Test func corruptGzipFailsAndTheConnectionIsNotReused() throws {
        try withClientAndServer { client, server in
            var damaged = compress(Self.text)
            // Damage the deflate data after the 10-byte gzip header.
            for index in 12..<min(damaged.count - 8, 40) { damaged[index] ^= 0x5A }
            let corrupt = damaged
            server.routeEncoded("/corrupt", coding: "gzip", body: corrupt)
            server.route("/fine") { _, connection in try connection.respond(body: "fine") }
            let bad = run(client, try get("\(server.baseURL)/corrupt"))
            #expect(bad.error?.code == .contentDecoding, "\(String(describing: bad.error))")
            let next = run(client, try get("\(server.baseURL)/fine"))
            #expect(next.bodyString == "fine")
            #expect(next.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
        }
    }

    @Test func unsupportedCodingIsPassedThrough() throws {
        try withClientAndServer { client, server in
            let opaque: [UInt8] = [0x1B, 0x03, 0x00, 0xF8, 0xA5, 0x40, 0x42]
            server.routeEncoded("/br", coding: "br", body: opaque)
            let result = run(client, try get("\(server.baseURL)/br"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.body == opaque)
            #expect(result.head?.headers[first: "Content-Encoding"] == "br")
            #expect(result.head?.undecodedContentCodings == ["br"], "the coding left undone is named")
        }
    }
}
