import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// Tasks whose response carries a content coding Courier does not undo (RFC 9110 §8.4): the
/// bytes arrive as sent, the response names the codings, serializers that interpret the body
/// fail with a typed error, downloads save the file as received and say so.
@Suite(.serialized) struct UndecodedCodingSessionTests {
    /// Arbitrary bytes labelled with a coding (not JSON, not UTF-8).
    static let coded: [UInt8] = [0x1B, 0x03, 0x00, 0xF8, 0xA5, 0x40, 0x42, 0xFF, 0xFE, 0x00] + noisyBytes(2000, seed: 5)

    static func serve(_ server: ScriptedServer, _ path: String, coding: String, body: [UInt8] = coded, type: String = "application/json") {
        server.route(path) { _, connection in
            try connection.respond(headers: [("Content-Type", type), ("Content-Encoding", coding)], body: body)
        }
    }

    static let codings: [(field: String, named: [String])] = [
        ("br", ["br"]), ("zstd", ["zstd"]), ("compress", ["compress"]), ("x-custom", ["x-custom"]), ("gzip, br", ["gzip", "br"]),
    ]

    @Test(arguments: codings)
    func aJSONTaskFailsNamingTheCoding(_ field: String, _ named: [String]) throws {
        try withSession { manager, server in
            Self.serve(server, "/coded", coding: field)
            let response: DataResponse<JSONValue?> = try run { done in
                manager.dataTask(with: Request(url: url(server, "/coded")), serializer: JSONResponseSerializer(), completionHandler: done)
            }
            let error = try #require(response.error)
            #expect(error.code == .undecodedContentCoding, "\(error)")
            #expect(error.phase == .decodeBody)
            #expect((error.underlying as? UndecodedContentCodings)?.codings == named)
            #expect(error.response?.undecodedContentCodings == named)
            #expect(error.bodyPrefix.map(Array.init) == Self.coded, "the raw bytes are in the error")
            #expect(response.data.map(Array.init) == Self.coded, "and in the task's response")
        }
    }

    @Test func decodableAndStringTasksFailNamingBr() throws {
        struct Item: Decodable, Sendable { var id: Int }
        try withSession { manager, server in
            Self.serve(server, "/json", coding: "br")
            Self.serve(server, "/text", coding: "br", type: "text/plain; charset=utf-8")
            let decoded: DataResponse<Item> = try run { done in
                manager.dataTask(with: Request(url: url(server, "/json")), serializer: DecodableResponseSerializer(Item.self), completionHandler: done)
            }
            #expect(decoded.error?.code == .undecodedContentCoding, "\(String(describing: decoded.error))")
            #expect((decoded.error?.underlying as? UndecodedContentCodings)?.codings == ["br"])
            let text: DataResponse<String> = try run { done in
                manager.dataTask(with: Request(url: url(server, "/text")), serializer: StringResponseSerializer(), completionHandler: done)
            }
            #expect(text.error?.code == .undecodedContentCoding, "\(String(describing: text.error))")
            #expect(text.error?.description.contains("br") == true)
        }
    }

    /// The plain data task delivers the bytes as sent; its progress total is Content-Length,
    /// which is exactly what arrives.
    @Test func aDataTaskDeliversTheBytesAndAnHonestTotal() throws {
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            Self.serve(server, "/br", coding: "br")
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let response: DataResponse<Data> = try run { done in
                manager.dataTask(with: Request(url: url(server, "/br")), downloadProgress: { snapshots.append($0) }, completionHandler: done)
            }
            #expect(response.error == nil, "\(String(describing: response.error))")
            #expect(response.value.map(Array.init) == Self.coded)
            #expect(response.response?.undecodedContentCodings == ["br"])
            #expect(response.response?.value(forHTTPHeaderField: "Content-Encoding") == "br")
            let all = snapshots.all
            #expect(!all.isEmpty)
            #expect(all.allSatisfy { $0.totalUnitCount == Int64(Self.coded.count) }, "\(all.map(\.totalUnitCount))")
            #expect(all.last?.completedUnitCount == Int64(Self.coded.count))
        }
    }

    /// Policy: a download of a body with a coding Courier does not undo succeeds, saves the
    /// bytes exactly as received, and names the codings on the response (which the destination
    /// closure sees too); the progress total is Content-Length.
    @Test func aDownloadSavesTheFileAsReceivedAndNamesTheCoding() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            server.route("/file.bin") { _, connection in
                try connection.respond(headers: [("Content-Encoding", "br"), ("ETag", "\"v1\"")], body: Self.coded)
            }
            let target = scratch.url.appendingPathComponent("file.bin")
            let seen = Outcome<[String]>()
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let response = try runDownload(manager, Request(url: url(server, "/file.bin")), destination: { _, response in
                seen.set(response.undecodedContentCodings)
                return target
            }, progress: { snapshots.append($0) })
            #expect(response.error == nil, "\(String(describing: response.error))")
            #expect(response.undecodedContentCodings == ["br"])
            #expect(response.response?.undecodedContentCodings == ["br"])
            #expect(seen.wait(seconds: 1) == ["br"], "the destination closure sees the coding")
            #expect(fileBytes(target) == Self.coded, "the file holds the bytes as received")
            #expect(snapshots.all.allSatisfy { $0.totalUnitCount == Int64(Self.coded.count) }, "\(snapshots.all.map(\.totalUnitCount))")
            #expect(snapshots.all.last?.completedUnitCount == Int64(Self.coded.count))
        }
    }

    @Test func aGzipDownloadNamesNothing() throws {
        try withSession { manager, server in
            let body = noisyBytes(10_000, seed: 9)
            server.route("/gz") { _, connection in
                try connection.respond(headers: [("Content-Encoding", "gzip")], body: zlibCompress(body))
            }
            let response = try runDownload(manager, Request(url: url(server, "/gz")))
            let file = try #require(response.fileURL)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(fileBytes(file) == body)
            #expect(response.undecodedContentCodings == [])
        }
    }

    /// Decompression off: nothing is advertised, and every coding is left and named.
    @Test func withDecompressionOffEveryCodingIsNamed() throws {
        try withSession(configure: { $0.client.decompression = false }) { manager, server in
            let gzipped = zlibCompress(Array(#"{"id":1}"#.utf8))
            Self.serve(server, "/gz", coding: "gzip", body: gzipped)
            let json: DataResponse<JSONValue?> = try run { done in
                manager.dataTask(with: Request(url: url(server, "/gz")), serializer: JSONResponseSerializer(), completionHandler: done)
            }
            #expect(json.error?.code == .undecodedContentCoding, "\(String(describing: json.error))")
            #expect((json.error?.underlying as? UndecodedContentCodings)?.codings == ["gzip"])
            let raw = try runData(manager, Request(url: url(server, "/gz")))
            #expect(raw.value.map(Array.init) == gzipped)
            #expect(raw.response?.undecodedContentCodings == ["gzip"])
            #expect(server.requests.allSatisfy { $0.headerValues("Accept-Encoding").isEmpty })
        }
    }

    /// With decompression on, the session sends exactly `Accept-Encoding: gzip, deflate`.
    @Test func theSessionAdvertisesOnlyWhatItDecodes() throws {
        try withSession { manager, server in
            server.route("/plain") { _, connection in try connection.respond(body: "plain") }
            _ = try runData(manager, Request(url: url(server, "/plain")))
            #expect(server.requests.first?.headerValues("Accept-Encoding") == ["gzip, deflate"])
        }
    }
}
