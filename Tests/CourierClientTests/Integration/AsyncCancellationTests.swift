import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

/// `HTTPClient.execute(_:) async` and Swift task cancellation (issue 9, item 2.4):
/// cancelling the Swift task cancels the request at once, whatever it is waiting for.
@Suite(.serialized) struct AsyncCancellationTests {
    @Test func cancellingTheSwiftTaskCancelsARequestTheServerHolds() throws {
        try withClientAndServer { client, server in
            let hold = server.holdingRoute("/stall") { connection in try connection.respond(body: "late") }
            let url = "\(server.baseURL)/stall"
            let call = AsyncCall { () async throws(ClientError) in try await client.execute(try! get(url)) }
            // The server has the request: the call is now waiting for a response that will not
            // come until the hold is released (60 s idle read timeout).
            #expect(hold.arrived.wait())
            call.cancel()
            // Ending while the server still holds the response can only be the cancellation.
            let result = try #require(call.wait(seconds: 20), "cancelling the Swift task did not end the call")
            guard case .failure(let error) = result else {
                Issue.record("a cancelled call succeeded")
                return
            }
            #expect(error.code == .cancelled)
            #expect(error.phase == .cancelled)
            // The client closed the connection: once the handler returns, the server reads EOF.
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    @Test func aSwiftTaskCancelledBeforeTheCallStartsNoRequest() throws {
        try withClientAndServer { client, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let url = "\(server.baseURL)/x"
            let started = TestEvent()
            let go = TestEvent()
            let call = AsyncCall { () async throws(ClientError) in
                started.signal()
                _ = go.wait(timeout: .seconds(20))
                return try await client.execute(try! get(url))
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
            settle(client)
            #expect(server.connectionsAccepted == 0, "a task cancelled before the call opens no connection")
            #expect(server.requests.isEmpty)
        }
    }

    @Test func anUncancelledCallStillSucceeds() throws {
        try withClientAndServer { client, server in
            server.route("/ok") { _, connection in try connection.respond(body: "ok") }
            let url = "\(server.baseURL)/ok"
            let call = AsyncCall { () async throws(ClientError) in
                let response = try await client.execute(try! get(url))
                return (response, try await response.body.collect(upTo: 1024))
            }
            let (response, body) = try #require(call.wait()).get()
            #expect(response.status == 200)
            #expect(String(decoding: body.readableBytesArray(), as: UTF8.self) == "ok")
        }
    }
}
