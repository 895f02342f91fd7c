import Courier
import CourierCore
import CourierTestSupport
import FoundationEssentials
import Testing

/// `SessionManager.bytes(for:)`: the head first, then the body as it arrives, with the session's
/// settings, the transport's redirects, and errors in the session's terms.
@Suite(.serialized) struct BytesForRequestTests {
    @Test func theBodyArrivesInChunksWithItsTrailers() throws {
        try withSession { manager, server in
            server.route("/stream") { _, connection in
                try connection.sendChunked(
                    headers: [("Content-Type", "text/plain")], chunks: [Array("one,".utf8), Array("two,".utf8), Array("three".utf8)],
                    trailers: [("X-Checksum", "abc")])
            }
            let request = Request(url: url(server, "/stream"))
            let result = try runAsync { () async throws(CourierError) -> (Int, String, String?) in
                let (bytes, response) = try await manager.bytes(for: request)
                var text = ""
                for try await chunk in bytes { text += chunk.withUnsafeReadableBytes { String(decoding: $0, as: UTF8.self) } }
                return (response.statusCode, text, bytes.trailers?[first: "X-Checksum"])
            }
            let (status, text, checksum) = try result.get()
            #expect(status == 200)
            #expect(text == "one,two,three")
            #expect(checksum == "abc")
        }
    }

    @Test func redirectsAreFollowedAndTheResponseNamesWhereTheyLed() throws {
        try withSession { manager, server in
            server.route("/from") { _, connection in try connection.respond(status: 302, headers: [("Location", "/to")], body: "moved") }
            server.route("/to") { _, connection in try connection.respond(body: "arrived") }
            let request = Request(url: url(server, "/from"))
            let (body, finalURL) = try runAsync { () async throws(CourierError) -> (Data, URL) in
                let (bytes, response) = try await manager.bytes(for: request)
                return (try await bytes.collect(upTo: 1024), response.url)
            }.get()
            #expect(String(decoding: body, as: UTF8.self) == "arrived")
            #expect(finalURL.path == "/to")
            #expect(server.requests.map(\.path) == ["/from", "/to"])
        }
    }

    @Test func anErrorStatusIsAResponseAndCollectStopsAtItsLimit() throws {
        try withSession { manager, server in
            server.route("/big") { _, connection in try connection.respond(status: 503, body: String(repeating: "x", count: 4096)) }
            let request = Request(url: url(server, "/big"))
            let result = try runAsync { () async throws(CourierError) -> Int in
                let (bytes, response) = try await manager.bytes(for: request)
                #expect(response.statusCode == 503)
                _ = try await bytes.collect(upTo: 100)
                return response.statusCode
            }
            guard case .failure(let error) = result else {
                Issue.record("a body past the limit was collected")
                return
            }
            #expect(error.code == .bodyTooLarge)
        }
    }

    @Test func aTransportFailureIsACourierErrorInItsPhase() throws {
        try withSession { manager, server in
            server.route("/cut") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "100")])
                try connection.send(Array("only part".utf8))
                connection.close()
            }
            let request = Request(url: url(server, "/cut"))
            let result = try runAsync { () async throws(CourierError) -> Data in
                let (bytes, _) = try await manager.bytes(for: request)
                return try await bytes.collect(upTo: 1024)
            }
            guard case .failure(let error) = result else {
                Issue.record("a truncated body was accepted")
                return
            }
            #expect(error.phase == .receive)
        }
    }

    @Test func anInvalidatedSessionRefuses() throws {
        try withSession { manager, server in
            manager.invalidate(cancelingTasks: true)
            let request = Request(url: url(server, "/x"))
            let result = try runAsync { () async throws(CourierError) -> Int in
                try await manager.bytes(for: request).1.statusCode
            }
            #expect(throws: CourierError.self) { try result.get() }
            #expect(server.requests.isEmpty)
        }
    }
}
