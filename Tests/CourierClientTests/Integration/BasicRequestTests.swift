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

@Suite(.serialized) struct ConfigurationEdgeTests {
    @Test func noConnectTimeoutAtAll() throws {
        // A nil timeout means no limit: the loop must wait without a deadline, not overflow.
        try withClient(configure: { $0.timeouts = HTTPClientTimeouts(connect: nil, tlsHandshake: nil, idleRead: nil, total: nil) }) { client in
            let server = try ScriptedServer()
            defer { server.shutdown() }
            server.route("/hello") { _, connection in try connection.respond(status: 200, body: "hello") }
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.bodyString == "hello")
            let named = run(client, try get("http://localhost:\(server.port)/hello"))
            #expect(named.bodyString == "hello")
        }
    }

    @Test func aNegativeStreamLengthIsRefused() throws {
        struct Empty: HTTPClientBodyStream { mutating func next() throws -> ByteBuffer? { nil } }
        try withClient { client in
            var request = try get("http://127.0.0.1:9/")
            request.method = .POST
            request.body = .stream(length: -1, makeStream: { Empty() })
            let result = run(client, request)
            #expect(result.error?.code == .invalidRequest)
        }
    }

    @Test func manySmallChunksDoNotRecurse() throws {
        // 200,000 pieces of 16 bytes, chunked (the server's chunk-flood guard wants a mean of
        // at least 8): the loop pulls them iteratively.
        struct Lines: HTTPClientBodyStream {
            var left = 200_000
            mutating func next() throws -> ByteBuffer? {
                guard left > 0 else { return nil }
                left -= 1
                return ByteBuffer(string: "line 012345678\(left % 10)\n")
            }
        }
        try withClient { client in
            let server = try ScriptedServer()
            defer { server.shutdown() }
            server.route("/upload") { request, connection in
                try connection.respond(status: 200, body: "\(request.body.count)")
            }
            var request = try get("\(server.baseURL)/upload")
            request.method = .POST
            request.body = .stream(length: nil, makeStream: { Lines() })
            let result = run(client, request, seconds: 60)
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "\(200_000 * 16)")
        }
    }
}
