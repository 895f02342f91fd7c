import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTestSupport
import Dispatch
import Synchronization
import Testing
@testable import CourierClient

/// `HTTPClient.shutdown()` (blocking and `async`) returns only after every request's final
/// delegate call, and a redirect that would start after shutdown began fails with
/// `poolShutdown` rather than being dropped (issue 10 §4).
@Suite(.serialized) struct ShutdownOrderingTests {
    /// Runs `client.shutdown()` on a thread of its own; `returned` is signalled after it.
    final class ShutdownThread: Sendable {
        let returned = TestEvent()
        init(_ client: HTTPClient) {
            let returned = self.returned
            DispatchQueue.global().async {
                client.shutdown()
                returned.signal()
            }
        }
    }

    /// Waits until `client` has begun shutting down (an event inside the pool, observed).
    static func waitForShutdownToBegin(_ client: HTTPClient) -> Bool {
        let tick = TestEvent()
        for _ in 0..<10_000 where !client.pool.isShutDown { _ = tick.wait(timeout: .milliseconds(1)) }
        return client.pool.isShutDown
    }

    @Test func aRedirectAfterShutdownBeganFailsWithPoolShutdown() throws {
        try withClientAndServer { client, server in
            let hold = server.holdingRoute("/from") { connection in
                try connection.respond(status: 302, headers: [("Location", "/to")], body: "moved")
            }
            server.route("/to") { _, connection in try connection.respond(body: "never") }
            let (_, delegate) = start(client, try get("\(server.baseURL)/from"))
            #expect(hold.arrived.wait())
            let shutdown = ShutdownThread(client)
            #expect(Self.waitForShutdownToBegin(client))
            // The redirect response arrives now; the next hop must fail, not vanish.
            hold.release()
            #expect(shutdown.returned.wait(timeout: .seconds(20)), "shutdown did not return")
            #expect(delegate.wait(seconds: 0), "shutdown returned before the request's final call")
            #expect(delegate.error?.code == .poolShutdown)
            #expect(delegate.events.last == .failed("poolShutdown"))
            #expect(server.requests.map(\.target) == ["/from"], "the redirect was not sent")
        }
    }

    /// A delegate whose `didFinish` waits for the test.
    final class SlowFinishDelegate: HTTPClientResponseDelegate, Sendable {
        let finishing = TestEvent()
        let mayFinish = TestEvent()
        let finished = TestEvent()
        func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {}
        func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand { .more }
        func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
            finishing.signal()
            _ = mayFinish.wait(timeout: .seconds(20))
            finished.signal()
        }
        func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
            finished.signal()
        }
    }

    /// A client on a group the test owns: stopping the loops (which joins their threads) cannot
    /// hide an early return of the client's own shutdown.
    static func withClientOnSharedGroup(_ body: (HTTPClient, ScriptedServer) throws -> Void) throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let group = try EventLoopGroup(numberOfThreads: 2)
                defer { group.shutdown() }
                let client = HTTPClient(eventLoopGroup: group)
                defer { client.shutdown() }
                let server = try ScriptedServer()
                defer { server.shutdown() }
                try body(client, server)
            }
        }
    }

    @Test func shutdownWaitsForTheFinalCallback() throws {
        try Self.withClientOnSharedGroup { client, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let delegate = SlowFinishDelegate()
            client.execute(try get("\(server.baseURL)/x"), delegate: delegate)
            #expect(delegate.finishing.wait(timeout: .seconds(20)))
            // The connection is already back in the pool; the delegate is still in `didFinish`.
            let shutdown = ShutdownThread(client)
            #expect(!shutdown.returned.wait(timeout: .milliseconds(300)), "shutdown returned while a final callback was running")
            delegate.mayFinish.signal()
            #expect(shutdown.returned.wait(timeout: .seconds(20)))
            #expect(delegate.finished.isSignaled)
            #expect(client.openConnectionCount == 0)
        }
    }

    @Test func asyncShutdownWaitsForRequestsInFlight() throws {
        try withClientAndServer { client, server in
            let hold = server.holdingRoute("/slow") { connection in try connection.respond(body: "done") }
            let (_, delegate) = start(client, try get("\(server.baseURL)/slow"))
            #expect(hold.arrived.wait())
            let call = AsyncCall { () async throws(Never) in await client.shutdown() }
            #expect(Self.waitForShutdownToBegin(client))
            #expect(call.wait(seconds: 0) == nil, "shutdown returned with a request in flight")
            hold.release()
            #expect(call.wait() != nil)
            #expect(delegate.wait(seconds: 0))
            #expect(delegate.error == nil)
            #expect(delegate.bodyString == "done")
            #expect(client.openConnectionCount == 0)
            // After shutdown a request fails at once.
            let late = run(client, try get("\(server.baseURL)/slow"))
            #expect(late.error?.code == .poolShutdown)
        }
    }
}
