import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

@Suite(.serialized) struct DataTaskTests {
    @Test func aDataTaskReturnsTheBodyOnTheCompletionQueue() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            server.route("/hello") { _, connection in try connection.respond(headers: [("Content-Type", "text/plain")], body: "hello") }
            let outcome = Outcome<(DataResponse<Data>, Bool)>()
            let task = manager.dataTask(with: Request(url: url(server, "/hello"))) { response in
                outcome.set((response, marker.isCurrent))
            }
            #expect(task.state == .suspended, "tasks are created suspended")
            #expect(manager.tasks.map(\.taskIdentifier) == [task.taskIdentifier])
            #expect(manager.dataTasks.count == 1 && manager.downloadTasks.isEmpty && manager.uploadTasks.isEmpty)
            task.resume()
            let (response, onQueue) = try #require(outcome.wait())
            #expect(onQueue, "the completion ran on the completion queue")
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "hello")
            #expect(response.response?.statusCode == 200)
            #expect(response.response?.mimeType == "text/plain")
            #expect(task.state == .completed)
            #expect(manager.tasks.isEmpty, "a completed task leaves the registry")
            #expect(response.metrics?.transactionMetrics.count == 1)
        }
    }

    @Test func completionsRunInsideTheCompletionGroup() throws {
        let group = DispatchGroup()
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                var configuration = SessionConfiguration()
                configuration.client.eventLoopThreads = 1
                let manager = try SessionManager(configuration: configuration, completionGroup: group)
                let server = try ScriptedServer()
                defer { invalidateAndWait(manager); server.shutdown() }
                server.route("/n") { _, connection in try connection.respond(body: "n") }
                let started = TestEvent()
                let release = TestEvent()
                manager.dataTask(with: Request(url: url(server, "/n"))) { _ in
                    started.signal()
                    _ = release.wait(timeout: .seconds(20))
                }.resume()
                #expect(started.wait())
                // The handler is running and blocked: the group is not empty.
                #expect(group.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
                release.signal()
                #expect(group.wait(timeout: .now() + .seconds(20)) == .success)
            }
        }
    }

    @Test func sessionHeadersAreAddedWhereTheRequestHasNone() throws {
        try withSession(configure: { $0.httpAdditionalHeaders = ["X-Session": "s", "X-Both": "session"] }) { manager, server in
            server.route("/h") { _, connection in try connection.respond(body: "ok") }
            var request = Request(url: url(server, "/h"))
            try request.setValue("request", forHTTPHeaderField: "X-Both")
            _ = try runData(manager, request)
            let seen = try #require(server.requests.first)
            #expect(seen.header("X-Session") == "s")
            #expect(seen.headerValues("X-Both") == ["request"])
        }
    }

    @Test func aBodyLargerThanTheInMemoryCapFailsTheTask() throws {
        try withSession(configure: { $0.maximumInMemoryBodySize = 1000 }) { manager, server in
            server.route("/big") { _, connection in try connection.respond(body: patternBytes(5000)) }
            let response = try runData(manager, Request(url: url(server, "/big")))
            #expect(response.error?.code == .bodyTooLarge)
            #expect(response.error?.phase == .receive)
        }
    }

    @Test func invalidURLsAndInjectedHeadersFailInTheSerializePhase() throws {
        try withSession { manager, server in
            let ftp = try runData(manager, Request(url: URL(string: "ftp://example.test/x")!))
            #expect(ftp.error?.code == .invalidURL)
            #expect(ftp.error?.phase == .serialize)
            var request = Request(url: url(server, "/x"), method: .POST, body: .data(Data("abc".utf8)))
            try request.setValue("5", forHTTPHeaderField: "Content-Length")
            let mismatch = try runData(manager, request)
            #expect(mismatch.error?.code == .invalidHeader)
            #expect(server.requests.isEmpty, "nothing was sent")
        }
    }

    @Test func transportErrorsKeepTheirPhaseAndCause() throws {
        try withSession { manager, server in
            server.route("/reset") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "100")])
                try connection.send("partial")
                connection.close()
            }
            let response = try runData(manager, Request(url: url(server, "/reset")))
            let error = try #require(response.error)
            #expect(error.code == .transport)
            #expect(error.phase == .receive)
            #expect((error.underlying as? ClientError)?.code == .remoteClosedDuringBody)
            #expect(error.response?.statusCode == 200, "the error carries the response that arrived")
            #expect(error.bodyPrefix == Data("partial".utf8), "and the body received so far")
        }
    }
}
