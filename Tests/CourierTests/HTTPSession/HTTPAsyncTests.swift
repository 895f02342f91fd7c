import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// The `async` variants: values and responses returned, errors thrown as `CourierError`, and
/// cancellation through the Swift task.
@Suite(.serialized) struct HTTPAsyncTests {
    struct Thing: Decodable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test func getReturnsTheJSONValueAndTheResponse() throws {
        try withHTTPSession(baseURLPath: "/v1") { manager, server in
            HTTPSessionFixtures.echo(server, "/v1/items")
            let result = try runAsync { () async throws(CourierError) in
                try await manager.GET("items", parameters: ["page": 2], headers: ["X-Extra": "async"])
            }
            let (value, response, _) = try result.get()
            #expect(value as? JSONValue == HTTPSessionFixtures.echoed("GET", "/v1/items?page=2"))
            #expect(response.statusCode == 200)
            #expect(response.url.absoluteString == server.baseURL + "/v1/items?page=2")
            #expect(response.mimeType == "application/json")
            #expect(server.requests.first?.header("X-Extra") == "async")
        }
    }

    @Test func aReplyCarriesTheTasksMetrics() throws {
        try withHTTPSession(baseURLPath: "/v1") { manager, server in
            HTTPSessionFixtures.echo(server, "/v1/items")
            let (value, response, metrics) = try runAsync { () async throws(CourierError) in try await manager.GET("items") }.get()
            #expect(value as? JSONValue == HTTPSessionFixtures.echoed("GET", "/v1/items"))
            #expect(response.statusCode == 200)
            #expect(response.url.absoluteString == server.baseURL + "/v1/items")
            // One request made, no redirect: one transaction, on a new connection to the server.
            #expect(metrics.transactionMetrics.count == 1)
            #expect(metrics.redirectCount == 0)
            #expect(metrics.taskStart <= metrics.taskEnd)
            let transaction = try #require(metrics.transactionMetrics.first)
            let requestStart = try #require(transaction.requestStart)
            let responseStart = try #require(transaction.responseStart)
            let responseEnd = try #require(transaction.responseEnd)
            #expect(transaction.fetchStart <= requestStart)
            #expect(requestStart <= responseStart)
            #expect(responseStart <= responseEnd)
            #expect(!transaction.reusedConnection)
            #expect(transaction.remoteAddress?.port == server.port)
            #expect(transaction.bytesSent > 0)
            #expect(transaction.bodyBytesDelivered == Int64(response.expectedContentLength))
            // The next call's metrics are its own: it reuses the connection.
            let (_, _, next) = try runAsync { () async throws(CourierError) in try await manager.GET("items") }.get()
            #expect(next.transactionMetrics.count == 1)
            #expect(next.transactionMetrics.first?.reusedConnection == true)
            #expect(metrics.taskEnd <= next.taskStart)
        }
    }

    @Test func getDecodesADecodable() throws {
        try withHTTPSession { manager, server in
            server.route("/thing") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"id":42,"name":"courier"}"#)
            }
            let (thing, response, _) = try runAsync { () async throws(CourierError) in try await manager.GET("thing", as: Thing.self) }.get()
            #expect(thing == Thing(id: 42, name: "courier"))
            #expect(response.statusCode == 200)
            // A body of the wrong shape fails in the decodeBody phase.
            server.route("/thing") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"id":"x"}"#)
            }
            let wrong = try runAsync { () async throws(CourierError) in try await manager.GET("thing", as: Thing.self) }
            #expect(throws: CourierError.self) { try wrong.get() }
            if case .failure(let error) = wrong {
                #expect(error.code == .responseSerializationFailed)
                #expect(error.phase == .decodeBody)
                #expect(error.underlying is DecodingError)
            }
        }
    }

    @Test func bodyMethodsSendAFormBodyAndQueryMethodsAQuery() throws {
        try withHTTPSession(baseURLPath: "/v1") { manager, server in
            HTTPSessionFixtures.echo(server, "/v1/r")
            let parameters: [String: any Sendable] = ["k": "v w"]
            let calls: [(String, @Sendable () async throws(CourierError) -> Reply<any Sendable>)] = [
                ("POST", { () async throws(CourierError) in try await manager.POST("r", parameters: parameters) }),
                ("PUT", { () async throws(CourierError) in try await manager.PUT("r", parameters: parameters) }),
                ("PATCH", { () async throws(CourierError) in try await manager.PATCH("r", parameters: parameters) }),
                ("DELETE", { () async throws(CourierError) in try await manager.DELETE("r", parameters: parameters) }),
            ]
            for (index, (method, call)) in calls.enumerated() {
                let (value, response, _) = try runAsync(call).get()
                #expect(response.statusCode == 200)
                let seen = try #require(server.requests.dropFirst(index).first)
                #expect(seen.method == method)
                if method == "DELETE" {
                    #expect(seen.target == "/v1/r?k=v%20w")
                    #expect(seen.body.isEmpty)
                    #expect(value as? JSONValue == HTTPSessionFixtures.echoed(method, "/v1/r?k=v%20w"))
                } else {
                    #expect(seen.target == "/v1/r")
                    #expect(seen.bodyString == "k=v%20w")
                    #expect(seen.header("Content-Type") == "application/x-www-form-urlencoded")
                    #expect(value as? JSONValue == HTTPSessionFixtures.echoed(method, "/v1/r", bodyLength: 7))
                }
            }
        }
    }

    @Test func headReturnsTheResponse() throws {
        try withHTTPSession { manager, server in
            server.route("/probe") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/json"), ("X-Version", "9")], body: "[1,2,3]")
            }
            let response = try runAsync { () async throws(CourierError) in try await manager.HEAD("probe", parameters: ["a": "b"]) }.get()
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "X-Version") == "9")
            #expect(response.expectedContentLength == 7)
            #expect(server.requests.first?.method == "HEAD")
            #expect(server.requests.first?.target == "/probe?a=b")
        }
    }

    @Test func sendTakesAnyResponseSerializer() throws {
        try withHTTPSession(baseURLPath: "/t") { manager, server in
            server.route("/t/text") { request, connection in
                try connection.respond(headers: [("Content-Type", "text/plain; charset=utf-8")], body: "\(request.method) héllo")
            }
            let (text, response, _) = try runAsync { () async throws(CourierError) in
                try await manager.send(.PUT, "text", serializer: StringResponseSerializer())
            }.get()
            #expect(text == "PUT héllo")
            #expect(response.textEncodingName == "utf-8")
            // The default JSON serializer refuses the same response.
            let refused = try runAsync { () async throws(CourierError) in try await manager.send(.GET, "text") }
            if case .failure(let error) = refused {
                #expect(error.code == .unacceptableContentType)
                #expect(error.phase == .validate)
            } else {
                Issue.record("text/plain passed the JSON serializer")
            }
        }
    }

    @Test func failuresAreThrownWithTheirPhase() throws {
        try withHTTPSession { manager, server in
            server.route("/gone") { _, connection in
                try connection.respond(status: 410, headers: [("Content-Type", "application/json")], body: #"{"gone":true}"#)
            }
            let gone = try runAsync { () async throws(CourierError) in try await manager.GET("gone") }
            guard case .failure(let error) = gone else {
                Issue.record("a 410 succeeded")
                return
            }
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.phase == .validate)
            #expect(error.response?.statusCode == 410)
            #expect(error.bodyPrefix == Data(#"{"gone":true}"#.utf8))
            // A request that cannot be built throws in the serialize phase, before any task.
            let bad = try runAsync { () async throws(CourierError) in try await manager.GET("ftp://127.0.0.1/x") }
            if case .failure(let error) = bad {
                #expect(error.code == .invalidURL)
                #expect(error.phase == .serialize)
            } else {
                Issue.record("an ftp URL succeeded")
            }
            // A transport failure: the server closes mid-body.
            server.route("/cut") { _, connection in
                try connection.sendHead(headers: [("Content-Type", "application/json"), ("Content-Length", "100")])
                try connection.send("[1,")
                connection.close()
            }
            let cut = try runAsync { () async throws(CourierError) in try await manager.GET("cut") }
            if case .failure(let error) = cut {
                #expect(error.code == .transport)
                #expect(error.phase == .receive)
            } else {
                Issue.record("a truncated body succeeded")
            }
            #expect(server.requests.count == 2, "the ftp request was never sent")
        }
    }

    @Test func cancellingTheSwiftTaskCancelsTheRequestPromptly() throws {
        try withHTTPSession { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            server.route("/stall") { _, connection in
                try connection.stall(until: release)
                try connection.respond(headers: [("Content-Type", "application/json")], body: "{}")
            }
            let call = AsyncCall { () async throws(CourierError) in try await manager.GET("stall") }
            #expect(server.waitForRequests(1), "the request reached the server")
            let started = ContinuousClock.now
            call.cancel()
            let result = try #require(call.wait(seconds: 10), "cancelling did not end the call")
            let elapsed = ContinuousClock.now - started
            guard case .failure(let error) = result else {
                Issue.record("a cancelled call succeeded")
                return
            }
            #expect(error.code == .cancelled)
            #expect(error.phase == .cancelled)
            #expect(elapsed < .seconds(5), "took \(elapsed)")
            #expect(manager.session.tasks.isEmpty)
        }
    }

    @Test func aSwiftTaskCancelledBeforeTheCallNeverSends() throws {
        try withHTTPSession { manager, server in
            HTTPSessionFixtures.echo(server, "/x")
            let started = TestEvent()
            let go = TestEvent()
            let call = AsyncCall { () async throws(CourierError) in
                started.signal()
                _ = go.wait(timeout: .seconds(20))
                return try await manager.GET("x")
            }
            #expect(started.wait(timeout: .seconds(20)))
            call.cancel()
            go.signal()
            let result = try #require(call.wait())
            guard case .failure(let error) = result else {
                Issue.record("a call in a cancelled task succeeded")
                return
            }
            #expect(error.code == .cancelled)
            #expect(server.requests.isEmpty, "a task cancelled before it started sends nothing")
        }
    }

    @Test func multipartPostAsync() throws {
        try withHTTPSession { manager, server in
            HTTPSessionFixtures.echo(server, "/up")
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let (value, response, _) = try runAsync { () async throws(CourierError) in
                try await manager.POST("up", parameters: ["field": "value"], constructingBodyWith: { (form) throws(CourierError) in
                    try form.appendPart(data: Data("file content".utf8), name: "doc", fileName: "a.txt", mimeType: "text/plain")
                }, progress: { snapshots.append($0) })
            }.get()
            #expect(response.statusCode == 200)
            let seen = try #require(server.requests.first)
            let boundary = try #require(HTTPMultipartTests.boundary(of: seen.header("Content-Type")))
            let expected = HTTPMultipartTests.expectedBody(boundary: boundary, parts: [
                (["Content-Disposition: form-data; name=\"field\""], Array("value".utf8)),
                (["Content-Disposition: form-data; name=\"doc\"; filename=\"a.txt\"", "Content-Type: text/plain"], Array("file content".utf8)),
            ])
            #expect(seen.body == expected)
            #expect(seen.header("Content-Length") == String(expected.count))
            #expect(value as? JSONValue == HTTPSessionFixtures.echoed("POST", "/up", bodyLength: expected.count))
            #expect(snapshots.all.last?.totalUnitCount == Int64(expected.count))
        }
    }
}
