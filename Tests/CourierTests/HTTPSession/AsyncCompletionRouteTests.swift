import Courier
import CourierCore
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// How an `async` call's result comes back: straight from the transport to the awaiting Swift
/// task when nothing needs the completion queue, and through the completion queue (after the
/// hooks) when something does.
@Suite(.serialized) struct AsyncCompletionRouteTests {
    @Test(.timeLimit(.minutes(1))) func withoutHooksTheResultDoesNotWaitForTheCompletionQueue() throws {
        let queue = DispatchQueue(label: "test.completion")
        try withHTTPSession(completionQueue: queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/r")
            // A completion queue that runs nothing: the call can only return by the direct route.
            queue.suspend()
            defer { queue.resume() }
            let (value, response, _) = try runAsync { () async throws(CourierError) in try await manager.GET("r") }.get()
            #expect(response.statusCode == 200)
            #expect(value as? JSONValue == HTTPSessionFixtures.echoed("GET", "/r"))
        }
    }

    @Test func aSerializerErrorOnTheDirectRouteIsThrownAsBefore() throws {
        try withHTTPSession { manager, server in
            server.route("/bad") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/json")], body: "{not json")
            }
            let result = try runAsync { () async throws(CourierError) in try await manager.GET("bad") }
            guard case .failure(let error) = result else {
                Issue.record("a body that is not JSON was accepted")
                return
            }
            #expect(error.code == .responseSerializationFailed)
            #expect(error.response?.statusCode == 200)
        }
    }

    @Test func aCompletionHookStillSeesTheTaskAndItsSerializedError() throws {
        let queue = DispatchQueue(label: "test.completion")
        try withHTTPSession(completionQueue: queue) { manager, server in
            server.route("/bad") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/json")], body: "{not json")
            }
            let seen = Mutex<[CourierError.Code?]>([])
            manager.session.updateHooks { hooks in
                hooks.taskDidComplete = { _, error in
                    dispatchPrecondition(condition: .onQueue(queue))
                    seen.withLock { $0.append(error?.code) }
                }
            }
            let result = try runAsync { () async throws(CourierError) in try await manager.GET("bad") }
            #expect(throws: CourierError.self) { try result.get() }
            // The hook ran before the call returned: the result came through the completion queue.
            #expect(seen.withLock { $0 } == [.responseSerializationFailed])
        }
    }
}
