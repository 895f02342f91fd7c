import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// `HTTPRequestExecution.cancel()` in every phase of a request: each ends with exactly one
/// `didFail(.cancelled)` (or the earlier `didFinish`), a connection with the request in flight
/// is closed, and a request cancelled in the pool queue leaves the connections alone.
@Suite(.serialized) struct CancellationTests {
    @Test func cancelWhileWaitingInPool() throws {
        try withClientAndServer(configure: { $0.maximumConnectionsPerHost = 1 }) { client, server in
            server.route("/quick") { _, connection in try connection.respond(status: 200, body: "quick") }
            let holder = try HeldRequest(client, server)
            let (execution, queued) = start(client, try get("\(server.baseURL)/quick"))
            execution.cancel()
            #expect(queued.wait())
            #expect(queued.events == [.failed("cancelled")])
            #expect(queued.error?.phase == .cancelled)
            // The connection in use is untouched: the first request finishes on it...
            holder.finish()
            // ...and it is reused afterwards.
            let next = run(client, try get("\(server.baseURL)/quick"))
            #expect(next.bodyString == "quick")
            #expect(next.metrics?.reusedConnection == true)
            #expect(server.connectionsAccepted == 1)
            #expect(server.requests.map(\.path) == ["/hold", "/quick"])
            settle(client)
            #expect(queued.endCount == 1)
        }
    }

    @Test func cancelWhileConnecting() throws {
        try withClientAndServer(backlog: 1) { client, server in
            server.pauseAccepting()
            guard let filler = AcceptQueueFiller(port: server.port) else {
                withKnownIssue("loopback connect does not hang on this kernel") { Issue.record("no hang") }
                return
            }
            defer { filler.close() }
            let (execution, delegate) = start(client, try get("\(server.baseURL)/"))
            execution.cancel()
            #expect(delegate.wait(seconds: 5))
            #expect(delegate.events == [.failed("cancelled")])
            settle(client)
            #expect(delegate.endCount == 1)
        }
    }

    @Test func cancelDuringTLSHandshake() throws {
        try withClientAndServer(configure: { $0.tls = testTLS }, tls: ServerTLS()) { client, server in
            let hold = server.holdingAccepts()
            let (execution, delegate) = start(client, try get("\(server.baseURL)/"))
            #expect(hold.arrived.wait())
            execution.cancel()
            #expect(delegate.wait(seconds: 5))
            #expect(delegate.events == [.failed("cancelled")])
            settle(client)
            #expect(delegate.endCount == 1)
            // The request only waited for the connection: the handshake goes on, and the
            // connection then serves the next request.
            server.route("/after") { _, connection in try connection.respond(status: 200, body: "after") }
            hold.release()
            let next = run(client, try get("\(server.baseURL)/after"))
            #expect(next.bodyString == "after")
            #expect(server.connectionsAccepted == 1)
            #expect(server.requests.map(\.path) == ["/after"])
        }
    }

    @Test func cancelAfterHeadSentBeforeResponse() throws {
        try withClientAndServer { client, server in
            let hold = server.holdingRoute("/wait")
            let (execution, delegate) = start(client, try get("\(server.baseURL)/wait"))
            #expect(hold.arrived.wait())
            execution.cancel()
            #expect(delegate.wait(seconds: 5))
            #expect(delegate.events == [.headSent, .failed("cancelled")])
            // The connection was closed: once the handler returns, the server reads EOF.
            hold.release()
            expectAllConnectionsClosed(client, server)
            #expect(delegate.endCount == 1)
        }
    }

    @Test func cancelMidBody() throws {
        try withClientAndServer { client, server in
            let hold = Hold()
            server.route("/body") { _, connection in
                try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
                try hold.wait(connection)
            }
            let (_, delegate) = start(client, try get("\(server.baseURL)/body")) { delegate in
                // Cancel from inside the delegate, on the loop, as soon as body bytes arrive.
                delegate.onBodyPart = { execution in execution.cancel() }
            }
            #expect(delegate.wait(seconds: 5))
            #expect(delegate.events == [.headSent, .head(200), .body(10), .failed("cancelled")])
            hold.release()
            expectAllConnectionsClosed(client, server)
            #expect(delegate.endCount == 1)
        }
    }

    @Test func cancelAfterCompletionIsNoOp() throws {
        try withClientAndServer { client, server in
            server.route("/done") { _, connection in try connection.respond(status: 200, body: "done") }
            let (execution, delegate) = start(client, try get("\(server.baseURL)/done"))
            #expect(delegate.wait())
            execution.cancel()
            execution.cancel()
            settle(client)
            #expect(delegate.events == [.headSent, .head(200), .body(4), .finished])
            // The connection stays pooled and is reused.
            let next = run(client, try get("\(server.baseURL)/done"))
            #expect(next.metrics?.reusedConnection == true)
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func doubleCancelInFlight() throws {
        try withClientAndServer { client, server in
            let hold = server.holdingRoute("/wait")
            let (execution, delegate) = start(client, try get("\(server.baseURL)/wait"))
            #expect(hold.arrived.wait())
            execution.cancel()
            execution.cancel()
            #expect(delegate.wait(seconds: 5))
            execution.cancel()
            settle(client)
            #expect(delegate.events == [.headSent, .failed("cancelled")])
            #expect(delegate.endCount == 1)
            hold.release()
            #expect(server.waitForAllConnectionsClosed(timeout: .seconds(5)))
        }
    }

    /// Cancelled before the execution even reached a loop: still exactly one `didFail(.cancelled)`,
    /// and no connection is opened for it.
    @Test func cancelImmediately() throws {
        try withClientAndServer { client, server in
            server.route("/x") { _, connection in try connection.respond(status: 200, body: "x") }
            let (execution, delegate) = start(client, try get("\(server.baseURL)/x"))
            execution.cancel()
            execution.cancel()
            #expect(delegate.wait(seconds: 5))
            settle(client)
            #expect(delegate.endCount == 1)
            #expect(delegate.error?.code == .cancelled || delegate.events.last == .finished)
        }
    }
}
