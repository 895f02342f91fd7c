import CourierClient
import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTestSupport
import Dispatch
import Testing

/// With several event loops, a request started on a loop is served by a connection of that loop
/// when one is idle (no thread hop to start it, and its delegate hears back on the same loop),
/// and a connection made for a request is made on the request's loop.
@Suite(.serialized) struct LoopAffinityTests {
    /// Records the loop each delegate call arrived on.
    final class LoopRecorder: HTTPClientResponseDelegate, @unchecked Sendable {
        // @unchecked: the client calls it one call at a time; the test reads after `wait`.
        let group: EventLoopGroup
        private(set) var finishedOn: EventLoop?
        private(set) var reused: Bool?
        private(set) var error: ClientError?
        private let done = DispatchSemaphore(value: 0)

        init(group: EventLoopGroup) { self.group = group }

        func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {}
        func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand { .more }
        func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
            finishedOn = group.currentLoop
            reused = metrics.reusedConnection
            done.signal()
        }
        func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
            self.error = error
            done.signal()
        }
        func wait() -> Bool { done.wait(timeout: .now() + .seconds(20)) == .success }
    }

    /// Starts `request` from a job on `loop` and waits for its end.
    static func run(_ client: HTTPClient, _ request: HTTPClientRequest, from loop: EventLoop) -> LoopRecorder {
        let recorder = LoopRecorder(group: client.eventLoopGroup)
        loop.execute { client.execute(request, delegate: recorder) }
        #expect(recorder.wait(), "the request did not end")
        #expect(recorder.error == nil)
        return recorder
    }

    @Test("a request started on a loop gets that loop's idle connection, not the most recent one")
    func requestsPreferTheirOwnLoop() throws {
        try withClientAndServer { client, server in
            server.route("/a") { _, connection in try connection.respond(status: 200, body: "a") }
            let loops = client.eventLoopGroup.loops
            try #require(loops.count == 2)
            let request = try get("\(server.baseURL)/a")
            // One connection per loop: made for a request on each loop, on that loop. The server
            // answers neither until both arrived, so neither can reuse the other's connection.
            // Each handler signals its own arrival and waits for the other's (handlers run on their
            // connections' threads). One shared counting semaphore would not do: a handler could
            // take back its own signal and answer at once.
            let arrived = [TestEvent(), TestEvent()]
            for side in 0..<2 {
                server.route("/hold\(side)") { _, connection in
                    arrived[side].signal()
                    _ = arrived[1 - side].wait(timeout: .seconds(10))
                    try connection.respond(status: 200, body: "h")
                }
            }
            let first = LoopRecorder(group: client.eventLoopGroup), second = LoopRecorder(group: client.eventLoopGroup)
            let hold0 = try get("\(server.baseURL)/hold0"), hold1 = try get("\(server.baseURL)/hold1")
            loops[0].execute { client.execute(hold0, delegate: first) }
            loops[1].execute { client.execute(hold1, delegate: second) }
            #expect(first.wait() && second.wait())
            #expect(server.connectionsAccepted == 2)
            #expect(first.reused == false && second.reused == false, "a hold request reused the other's connection")
            // Now alternate: the connection parked last is on the other loop each time, and the
            // request still gets its own loop's connection.
            for round in 0..<20 {
                let loop = loops[round % 2]
                let recorder = Self.run(client, request, from: loop)
                #expect(recorder.finishedOn === loop, "round \(round): served on another loop")
                #expect(recorder.reused == true)
            }
            #expect(server.connectionsAccepted == 2, "no connection was made for the rounds")
        }
    }

    @Test("a connection made for a request is made on the request's loop")
    func newConnectionsAreMadeOnTheRequestsLoop() throws {
        try withClientAndServer { client, server in
            // Every response closes its connection: each request makes a new one.
            server.route("/n") { _, connection in
                connection.closeAfterResponse = true
                try connection.respond(status: 200, body: "n")
            }
            let loops = client.eventLoopGroup.loops
            try #require(loops.count == 2)
            let request = try get("\(server.baseURL)/n")
            // Not alternating, so a round-robin choice of loop cannot match it by chance.
            let pattern = [1, 1, 0, 0, 1, 1, 0, 0, 1, 0]
            for (round, index) in pattern.enumerated() {
                let recorder = Self.run(client, request, from: loops[index])
                #expect(recorder.finishedOn === loops[index], "round \(round): made on another loop")
                #expect(recorder.reused == false)
            }
            #expect(server.connectionsAccepted == pattern.count)
        }
    }
}
