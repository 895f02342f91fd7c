import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// Content codings the client does not undo (RFC 9110 §8.4): the body arrives exactly as
/// received and the head names every coding still applied, in the order applied.
@Suite(.serialized) struct UndecodedCodingTests {
    /// Bytes that are not valid in any coding (a br-looking prefix, then noise).
    static let opaque: [UInt8] = [0x1B, 0x03, 0x00, 0xF8, 0xA5, 0x40, 0x42, 0x00, 0xFF, 0x80, 0x0D, 0x0A]

    static let passedThrough: [(field: String, named: [String])] = [
        ("br", ["br"]),
        ("BR", ["br"]),
        ("zstd", ["zstd"]),
        ("compress", ["compress"]),
        ("x-custom", ["x-custom"]),
        ("identity, br", ["br"]),
        // br applied last: its outer layer cannot be undone, so neither is gzip's.
        ("gzip, br", ["gzip", "br"]),
        ("br, gzip", ["br", "gzip"]),
    ]

    @Test(arguments: passedThrough)
    func bodyIsDeliveredAsReceivedAndTheCodingNamed(_ field: String, _ named: [String]) throws {
        try withClientAndServer { client, server in
            server.routeEncoded("/coded", coding: field, body: Self.opaque)
            server.route("/next") { _, connection in try connection.respond(body: "next") }
            let result = run(client, try get("\(server.baseURL)/coded"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.body == Self.opaque, "the bytes are delivered unchanged")
            #expect(result.head?.undecodedContentCodings == named)
            #expect(result.head?.headers[first: "Content-Encoding"] == field, "the head is as received")
            #expect(result.metrics?.bodyBytesDelivered == Int64(Self.opaque.count))
            // The body was read to its end: the connection is reused.
            let next = run(client, try get("\(server.baseURL)/next"))
            #expect(next.bodyString == "next")
            #expect(next.metrics?.reusedConnection == true)
            #expect(next.head?.undecodedContentCodings == [])
        }
    }

    @Test func chunkedBrIsDeliveredAsReceived() throws {
        try withClientAndServer { client, server in
            let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
            server.route("/br") { _, connection in
                let chunks = stride(from: 0, to: body.count, by: 333).map { Array(body[$0..<min($0 + 333, body.count)]) }
                try connection.sendChunked(headers: [("Content-Encoding", "br")], chunks: chunks)
            }
            let result = run(client, try get("\(server.baseURL)/br"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.body == body)
            #expect(result.head?.undecodedContentCodings == ["br"])
        }
    }

    /// Three gzip layers, one more than is decoded: nothing is decompressed, every layer is
    /// named, and the request succeeds (it used to fail as a decompression-bomb shape).
    @Test func codingsStackedDeeperThanSupportedArePassedThrough() throws {
        try withClientAndServer { client, server in
            let text = Array(String(repeating: "stacked ", count: 200).utf8)
            let thrice = compress(compress(compress(text)))
            server.routeEncoded("/deep", coding: "gzip, gzip, gzip", body: thrice)
            let result = run(client, try get("\(server.baseURL)/deep"))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.body == thrice)
            #expect(result.head?.undecodedContentCodings == ["gzip", "gzip", "gzip"])
        }
    }

    @Test func decompressionOffNamesEveryCoding() throws {
        try withClientAndServer(configure: { $0.decompression = false }) { client, server in
            let gzipped = compress(Array("off".utf8))
            server.routeEncoded("/gz", coding: "gzip", body: gzipped)
            server.routeEncoded("/stack", coding: "deflate, x-gzip", body: Self.opaque)
            server.routeEncoded("/br", coding: "br", body: Self.opaque)
            let gz = run(client, try get("\(server.baseURL)/gz"))
            #expect(gz.error == nil, "\(String(describing: gz.error))")
            #expect(gz.body == gzipped)
            #expect(gz.head?.undecodedContentCodings == ["gzip"])
            let stack = run(client, try get("\(server.baseURL)/stack"))
            #expect(stack.body == Self.opaque)
            #expect(stack.head?.undecodedContentCodings == ["deflate", "x-gzip"])
            let br = run(client, try get("\(server.baseURL)/br"))
            #expect(br.head?.undecodedContentCodings == ["br"])
            #expect(server.requests.allSatisfy { $0.headerValues("Accept-Encoding").isEmpty }, "nothing is advertised")
        }
    }

    @Test func decodedAndIdentityBodiesNameNothing() throws {
        try withClientAndServer { client, server in
            let text = Array("decoded".utf8)
            server.routeEncoded("/gz", coding: "gzip", body: compress(text))
            server.routeEncoded("/stack", coding: "deflate, gzip", body: compress(compress(text, gzip: false)))
            server.routeEncoded("/identity", coding: "identity", body: Self.opaque)
            for path in ["/gz", "/stack"] {
                let result = run(client, try get("\(server.baseURL)\(path)"))
                #expect(result.body == text, "\(path)")
                #expect(result.head?.undecodedContentCodings == [], "\(path)")
            }
            let identity = run(client, try get("\(server.baseURL)/identity"))
            #expect(identity.body == Self.opaque)
            #expect(identity.head?.undecodedContentCodings == [])
        }
    }

    /// The client never advertises a coding it cannot undo: exactly one `Accept-Encoding`,
    /// naming gzip and deflate (RFC 9110 §12.5.3).
    @Test func onlyDecodableCodingsAreAdvertised() throws {
        try withClientAndServer { client, server in
            server.route("/plain") { _, connection in try connection.respond(body: "plain") }
            _ = run(client, try get("\(server.baseURL)/plain"))
            let advertised = try #require(server.requests.first).headerValues("Accept-Encoding")
            #expect(advertised == ["gzip, deflate"])
            let names = advertised.flatMap { $0.split(separator: ",").map { String($0.filter { $0 != " " }) } }
            #expect(Set(names).isSubset(of: ["gzip", "deflate"]))
        }
    }
}
