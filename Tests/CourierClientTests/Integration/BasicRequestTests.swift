import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import Testing

@Suite(.serialized) struct BasicRequestTests {
    @Test func getAndKeepAliveReuse() throws {
        try withClientAndServer { client, server in
            server.route("/hello") { request, connection in
                try connection.respond(status: 200, headers: [("Content-Type", "text/plain")], body: "hello \(request.indexOnConnection)")
            }
            let first = run(client, try get("\(server.baseURL)/hello"))
            #expect(first.head?.status == 200)
            #expect(first.bodyString == "hello 0")
            #expect(first.metrics?.reusedConnection == false)
            #expect(first.metrics?.connectEnd != nil)
            let second = run(client, try get("\(server.baseURL)/hello"))
            #expect(second.bodyString == "hello 1")
            #expect(second.metrics?.reusedConnection == true)
            #expect(second.metrics?.connectEnd == nil)
            #expect(server.connectionsAccepted == 1)
            #expect(second.events == [.headSent, .head(200), .body(7), .finished])
        }
    }
}

@Suite(.serialized) struct ShutdownTests {
    @Test func requestsAfterShutdownFailAtOnce() throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                var configuration = HTTPClientConfiguration()
                configuration.eventLoopThreads = 1
                let client = try HTTPClient(configuration: configuration)
                client.shutdown()
                let delegate = RecordingDelegate()
                client.execute(try get("http://127.0.0.1:9/"), delegate: delegate)
                #expect(delegate.wait(seconds: 5))
                #expect(delegate.error?.code == .poolShutdown)
            }
        }
    }

    @Test func shutdownFailsRequestsWaitingForAConnection() throws {
        try withClient(configure: { $0.maximumConnectionsPerHost = 1 }) { client in
            let server = try ScriptedServer()
            let release = TestEvent()
            defer { release.signal(); server.shutdown() }
            let arrived = TestEvent()
            server.route("/hold") { _, connection in
                arrived.signal()
                try connection.stall(until: release)
                try connection.respond(status: 200, body: "done")
            }
            let first = RecordingDelegate()
            client.execute(try get("\(server.baseURL)/hold"), delegate: first)
            #expect(arrived.wait())
            let second = RecordingDelegate()
            client.execute(try get("\(server.baseURL)/hold"), delegate: second)
            // Shut down on another thread: it waits for the first request, which the release ends.
            let shutdownDone = TestEvent()
            DispatchQueue.global().async { client.shutdown(); shutdownDone.signal() }
            #expect(second.wait(seconds: 5))
            #expect(second.error?.code == .poolShutdown)
            release.signal()
            #expect(first.wait(seconds: 5))
            #expect(first.head?.status == 200)
            #expect(shutdownDone.wait())
        }
    }
}
