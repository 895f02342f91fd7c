import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

/// `HTTPClient.execute(_:maximumBodySize:) async` and Swift task cancellation (issue 9, item 2.4):
/// cancelling the Swift task cancels the request at once, whatever it is waiting for.
@Suite(.serialized) struct AsyncCancellationTests {
    @Test func cancellingTheSwiftTaskCancelsARequestTheServerHolds() throws {
        try withClientAndServer { client, server in
            let hold = server.holdingRoute("/stall") { connection in try connection.respond(body: "late") }
            let url = "\(server.baseURL)/stall"
            let call = ClientAsyncCall { () async throws(ClientError) in try await client.execute(try! get(url)) }
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
            let call = ClientAsyncCall { () async throws(ClientError) in
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
            let call = ClientAsyncCall { () async throws(ClientError) in try await client.execute(try! get(url)) }
            let response = try #require(call.wait()).get()
            #expect(response.status == 200)
            #expect(String(decoding: response.body.readableBytesArray(), as: UTF8.self) == "ok")
        }
    }
}

/// Runs `async` work on threads of its own, so that a synchronous test (which holds the
/// descriptor lock for its whole run) can wait for it without relying on the cooperative pool.
final class ClientTestExecutor: TaskExecutor {
    static let shared = ClientTestExecutor()
    private let queue = DispatchQueue(label: "courier.client-tests.async", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// An `async` call started at once in its own Swift task; ``wait(seconds:)`` blocks for its
/// result, ``cancel()`` cancels the Swift task.
final class ClientAsyncCall<Value: Sendable>: Sendable {
    /// Where the Swift task leaves its result.
    private final class Slot: Sendable {
        let result = Mutex<Result<Value, ClientError>?>(nil)
        let done = TestEvent()
    }

    private let slot = Slot()
    private let task: Task<Void, Never>

    init(_ body: @escaping @Sendable () async throws(ClientError) -> Value) {
        let slot = self.slot
        task = Task(executorPreference: ClientTestExecutor.shared) {
            let outcome: Result<Value, ClientError>
            do throws(ClientError) {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            slot.result.withLock { $0 = outcome }
            slot.done.signal()
        }
    }

    func cancel() { task.cancel() }

    /// The result, or nil when it did not arrive within `seconds`.
    func wait(seconds: Int = 20) -> Result<Value, ClientError>? {
        guard slot.done.wait(timeout: .seconds(seconds)) else { return nil }
        return slot.result.withLock { $0 }
    }
}
