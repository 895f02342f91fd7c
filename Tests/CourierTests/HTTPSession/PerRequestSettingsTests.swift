import Courier
import CourierClient
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// Settings for one request through ``HTTPSessionManager``'s `requestModifier`: timeouts,
/// credentials, redirects and validation, without changing the manager — the next request
/// without a modifier behaves as before.
@Suite(.serialized) struct PerRequestSettingsTests {
    typealias Reply = Result<(any Sendable)?, CourierError>

    /// GET `path` with the manager's serializer and `modifier`; what the closures received.
    static func get(
        _ manager: HTTPSessionManager, _ path: String, modifier: HTTPSessionManager.RequestModifier? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Reply {
        let outcome = Outcome<Reply>()
        manager.GET(path, requestModifier: modifier, success: { _, value in outcome.set(.success(value)) },
                    failure: { _, error in outcome.set(.failure(error)) })
        return try #require(outcome.wait(), "the request did not finish", sourceLocation: sourceLocation)
    }

    static func serveJSON(_ server: ScriptedServer) {
        server.route("/ok") { _, connection in
            try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"ok":true}"#)
        }
        server.route("/missing") { _, connection in
            try connection.respond(status: 404, headers: [("Content-Type", "application/json")], body: #"{"error":"gone"}"#)
        }
        server.route("/text") { _, connection in
            try connection.respond(headers: [("Content-Type", "text/plain")], body: #"{"ok":true}"#)
        }
        server.route("/moved") { _, connection in
            try connection.respond(status: 302, headers: [("Location", "/ok"), ("Content-Type", "application/json")], body: "{}")
        }
    }

    @Test func perRequestValidationReplacesTheSerializersWithoutTouchingTheManager() throws {
        try withHTTPSession { manager, server in
            Self.serveJSON(server)
            // The 404 is acceptable for this request only.
            let accepted = try Self.get(manager, "missing") { $0.validation = ResponseValidator(acceptableStatusCodes: [404]) }
            #expect((try? accepted.get()) as? JSONValue == ["error": "gone"])
            guard case .failure(let refused) = try Self.get(manager, "missing") else {
                Issue.record("the manager's validation changed")
                return
            }
            #expect(refused.code == .unacceptableStatusCode)
            // Content types too: text/plain accepted for one request.
            let text = try Self.get(manager, "text") { $0.validation = ResponseValidator(acceptableContentTypes: ["text/plain"]) }
            #expect((try? text.get()) as? JSONValue == ["ok": true])
            #expect((try? Self.get(manager, "text").get()) == nil, "the JSON serializer's own types still apply")
            // A custom check fails one request.
            let checked = try Self.get(manager, "ok") { request in
                request.validation = ResponseValidator().adding { response, _ throws(CourierError) in
                    throw CourierError(.responseSerializationFailed, response: response, detail: "no signature")
                }
            }
            guard case .failure(let custom) = checked else {
                Issue.record("the custom check did not run")
                return
            }
            #expect(custom.detail == "no signature")
            #expect(custom.response?.statusCode == 200)
            #expect(manager.responseSerializer is AnyResponseSerializer<any Sendable>)
        }
    }

    @Test func perRequestRedirectsOverrideTheSessions() throws {
        try withHTTPSession { manager, server in
            Self.serveJSON(server)
            // Not followed: the 302 is the response (accepted by this request's validation).
            let stopped = try Self.get(manager, "moved") { request in
                request.redirects = .disabled
                request.validation = ResponseValidator(acceptableStatusCodes: [302])
            }
            #expect((try? stopped.get()) as? JSONValue == [:])
            #expect(server.requests.map(\.path) == ["/moved"])
            // No redirect allowed at all: following one is an error.
            let limited = try Self.get(manager, "moved") { $0.redirects = RedirectConfiguration(maximum: 0) }
            guard case .failure(let tooMany) = limited else {
                Issue.record("the redirect was followed")
                return
            }
            #expect(tooMany.code == .redirectRefused, "\(tooMany)")
            // The manager's own configuration still follows.
            server.clearRequestLog()
            let followed = try Self.get(manager, "moved")
            #expect((try? followed.get()) as? JSONValue == ["ok": true])
            #expect(server.requests.map(\.path) == ["/moved", "/ok"])
        }
    }

    @Test func perRequestCredentialsGoWithThatRequestOnly() throws {
        try withHTTPSession { manager, server in
            Self.serveJSON(server)
            #expect(throws: Never.self) {
                try Self.get(manager, "ok") { try $0.setBasicAuthorization(Credential(user: "alice", password: "s3cret")) }.get()
            }
            #expect(throws: Never.self) { try Self.get(manager, "ok").get() }
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[0].header("Authorization") == "Basic YWxpY2U6czNjcmV0")
            #expect(requests[1].header("Authorization") == nil)
            // Credentials Basic cannot carry fail that request before anything is sent.
            guard case .failure(let error) = try Self.get(manager, "ok", modifier: { try $0.setBasicAuthorization(Credential(user: "a:b", password: "c")) }) else {
                Issue.record("a user-id with a colon was sent")
                return
            }
            #expect(error.code == .invalidHeader)
            #expect(server.requests.count == 2)
        }
    }

    @Test func perRequestTimeoutsApplyToThatRequestOnly() throws {
        try withHTTPSession { manager, server in
            let release = TestEvent()
            defer { release.signal() }
            DeadlineAndCredentialsTests.stalling(server, release)
            guard case .failure(let error) = try Self.get(manager, "stall", modifier: { $0.totalTimeoutInterval = 1 }) else {
                Issue.record("the stalled request succeeded")
                return
            }
            #expect(error.code == .resourceTimeout, "\(error)")
            // The idle timeout is per request too.
            let idle = try Self.get(manager, "stall") { request in
                request.timeoutInterval = 1
                #expect(request.totalTimeoutInterval == nil, "the previous request's setting did not stick")
            }
            guard case .failure(let idleError) = idle else {
                Issue.record("the stalled request succeeded")
                return
            }
            #expect((idleError.underlying as? ClientError)?.code == .readTimeout, "\(idleError)")
        }
    }

    @Test func aThrowingModifierFailsTheRequestBeforeItIsMade() throws {
        struct Refusal: Error {}
        try withHTTPSession { manager, server in
            Self.serveJSON(server)
            let failed = Outcome<(DataTask?, CourierError)>()
            let task = manager.GET("ok", requestModifier: { _ in throw Refusal() }, success: nil) { failed.set(($0, $1)) }
            #expect(task == nil)
            let (failedTask, error) = try #require(failed.wait())
            #expect(failedTask == nil)
            #expect(error.code == .requestSerializationFailed)
            #expect(error.underlying is Refusal)
            // A CourierError goes through as it is.
            let typed = try Self.get(manager, "ok") { _ in throw CourierError(.invalidURL, detail: "refused by the caller") }
            guard case .failure(let passed) = typed else {
                Issue.record("the request was made")
                return
            }
            #expect(passed.code == .invalidURL && passed.detail == "refused by the caller")
            #expect(server.requests.isEmpty)
        }
    }

    @Test func theAsyncCallsTakeAModifierToo() throws {
        try withHTTPSession { manager, server in
            Self.serveJSON(server)
            let accepted = try runAsync { () async throws(CourierError) in
                try await manager.GET("missing") { $0.validation = ResponseValidator(acceptableStatusCodes: [404]) }
            }
            let (value, response, _) = try accepted.get()
            #expect(value as? JSONValue == ["error": "gone"])
            #expect(response.statusCode == 404)
            let refused = try runAsync { () async throws(CourierError) in try await manager.GET("missing") }
            #expect(throws: CourierError.self) { try refused.get() }
        }
    }
}
