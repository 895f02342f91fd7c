import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// `SessionManager`'s `async` task calls: the typed value with the request, the response, the
/// body and the metrics; uploads and downloads; cancellation through the Swift task.
@Suite(.serialized) struct AsyncTaskCallsTests {
    struct Thing: Decodable, Sendable, Equatable {
        var id: Int
    }

    static func wait<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) throws -> Value {
        try #require(AsyncCall<Value, Never> { await body() }.wait(seconds: 30), "the async call did not finish").get()
    }

    @Test func dataForARequestIsTypedAndCarriesTheMetrics() throws {
        try withSession { manager, server in
            server.route("/thing") { _, connection in try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"id":3}"#) }
            let request = Request(url: url(server, "/thing"))
            let response = try Self.wait { await manager.data(for: request, serializer: DecodableResponseSerializer<Thing>()) }
            #expect(response.value == Thing(id: 3))
            #expect(response.response?.statusCode == 200)
            #expect(response.metrics?.transactionMetrics.count == 1)
            #expect(String(decoding: response.data ?? Data(), as: UTF8.self) == #"{"id":3}"#)
            let raw = try Self.wait { await manager.data(for: request) }
            #expect(raw.value.map { String(decoding: $0, as: UTF8.self) } == #"{"id":3}"#)
        }
    }

    @Test func aFailureIsInTheResultWithTheResponse() throws {
        try withSession { manager, server in
            server.route("/missing") { _, connection in try connection.respond(status: 404, body: "no") }
            let request = Request(url: url(server, "/missing"))
            let response = try Self.wait { await manager.data(for: request, serializer: DecodableResponseSerializer<Thing>()) }
            #expect(response.error?.code == .unacceptableStatusCode)
            #expect(response.response?.statusCode == 404)
        }
    }

    /// `reply()` gives a session call's response as HTTPSessionManager's `async` calls return it.
    @Test func aResponsesReplyIsTheValueTheResponseAndTheMetricsOrTheError() throws {
        try withSession { manager, server in
            server.route("/thing") { _, connection in try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"id":3}"#) }
            server.route("/missing") { _, connection in try connection.respond(status: 404, body: "no") }
            let found = try Self.wait { await manager.data(for: Request(url: url(server, "/thing")), serializer: DecodableResponseSerializer<Thing>()) }
            let (thing, response, metrics) = try found.reply()
            #expect(thing == Thing(id: 3))
            #expect(response.statusCode == 200)
            #expect(response.url == url(server, "/thing"))
            #expect(metrics.transactionMetrics.count == 1)
            #expect(metrics.taskStart <= metrics.taskEnd)
            let missing = try Self.wait { await manager.data(for: Request(url: url(server, "/missing")), serializer: DecodableResponseSerializer<Thing>()) }
            #expect(throws: CourierError.self) { try missing.reply() }
            do throws(CourierError) {
                _ = try missing.reply()
            } catch {
                #expect(error.code == .unacceptableStatusCode)
                #expect(error.response?.statusCode == 404)
            }
        }
    }

    @Test func uploadsSendTheBodyFromMemoryAndFromAFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession { manager, server in
            server.route("/up") { request, connection in try connection.respond(body: "got \(request.body.count)") }
            let request = Request(url: url(server, "/up"), method: .POST)
            let fromMemory = try Self.wait {
                await manager.upload(for: request, from: Data(repeating: 7, count: 5000), serializer: StringResponseSerializer())
            }
            #expect(fromMemory.value == "got 5000")
            let file = scratch.url.appendingPathComponent("body.bin")
            try Data(repeating: 9, count: 12_345).write(to: file)
            let fromFile = try Self.wait { await manager.upload(for: request, fromFile: file, serializer: StringResponseSerializer()) }
            #expect(fromFile.value == "got 12345")
            #expect(server.requests.map { $0.body.count } == [5000, 12_345])
        }
    }

    @Test func downloadForARequestSavesTheFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            let body = noisyBytes(50_000, seed: 3)
            server.route("/file") { _, connection in try connection.respond(body: body) }
            let target = scratch.url.appendingPathComponent("out/file.bin")
            let request = Request(url: url(server, "/file"))
            let response = try Self.wait { await manager.download(for: request, destination: { _, _ in target }) }
            #expect(response.error == nil)
            #expect(response.fileURL?.standardizedFileURL == target.standardizedFileURL)
            #expect(fileBytes(target) == body)
            #expect(response.metrics?.transactionMetrics.count == 1)
        }
    }

    @Test func cancellingTheSwiftTaskCancelsTheTask() throws {
        try withSession { manager, server in
            let release = TestEvent()
            let arrived = TestEvent()
            server.route("/slow") { _, connection in
                arrived.signal()
                try connection.stall(until: release)
            }
            defer { release.signal() }
            let request = Request(url: url(server, "/slow"))
            let call = AsyncCall<DataResponse<Data>, Never> { await manager.data(for: request) }
            #expect(arrived.wait(timeout: .seconds(20)))
            call.cancel()
            let response = try #require(call.wait(seconds: 30)).get()
            #expect(response.error?.code == .cancelled)
        }
    }
}
