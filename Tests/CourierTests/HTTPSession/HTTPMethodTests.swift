import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// GET, HEAD, POST, PUT, PATCH and DELETE with success/failure closures: what the server sees,
/// what the closures get, and where they run.
@Suite(.serialized) struct HTTPMethodTests {
    /// What one closure call delivered.
    struct Reply: Sendable {
        var task: DataTask?
        var value: (any Sendable)?
        var error: CourierError?
        var onCompletionQueue: Bool
        var succeeded: Bool { error == nil }
    }

    static let parameters: [String: any Sendable] = ["q": "a b", "n": 2]
    /// The parameters as AFNetworking writes them: keys sorted, a space as `%20`.
    static let encodedParameters = "n=2&q=a%20b"

    /// Calls the closure API for `method`, recording which closure ran and on which queue.
    static func send(
        _ method: String, _ manager: HTTPSessionManager, _ path: String, parameters: (any Sendable)? = nil,
        headers: HTTPFields = HTTPFields(), marker: QueueMarker, outcome: Outcome<Reply>
    ) -> DataTask? {
        let success: @Sendable (DataTask, (any Sendable)?) -> Void = { task, value in
            outcome.set(Reply(task: task, value: value, error: nil, onCompletionQueue: marker.isCurrent))
        }
        let failure: @Sendable (DataTask?, CourierError) -> Void = { task, error in
            outcome.set(Reply(task: task, value: nil, error: error, onCompletionQueue: marker.isCurrent))
        }
        switch method {
        case "GET": return manager.GET(path, parameters: parameters, headers: headers, success: success, failure: failure)
        case "HEAD":
            return manager.HEAD(path, parameters: parameters, headers: headers, success: { success($0, nil) }, failure: failure)
        case "POST": return manager.POST(path, parameters: parameters, headers: headers, success: success, failure: failure)
        case "PUT": return manager.PUT(path, parameters: parameters, headers: headers, success: success, failure: failure)
        case "PATCH": return manager.PATCH(path, parameters: parameters, headers: headers, success: success, failure: failure)
        case "DELETE": return manager.DELETE(path, parameters: parameters, headers: headers, success: success, failure: failure)
        default:
            Issue.record("unknown method \(method)")
            return nil
        }
    }

    /// Sends and waits.
    static func run(
        _ method: String, _ manager: HTTPSessionManager, _ path: String, parameters: (any Sendable)? = nil,
        headers: HTTPFields = HTTPFields(), marker: QueueMarker, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (returned: DataTask?, reply: Reply) {
        let outcome = Outcome<Reply>()
        let task = send(method, manager, path, parameters: parameters, headers: headers, marker: marker, outcome: outcome)
        let reply = try #require(outcome.wait(), "no closure was called", sourceLocation: sourceLocation)
        return (task, reply)
    }

    static func expectDefaultHeaders(_ request: RecordedRequest, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(request.header("User-Agent")?.hasPrefix("Courier/") == true, sourceLocation: sourceLocation)
        #expect(request.headerValues("User-Agent") == [CourierLibrary.userAgent], sourceLocation: sourceLocation)
        #expect(request.headerValues("Accept-Language") == [AcceptLanguage.current], sourceLocation: sourceLocation)
        #expect(request.header("X-Extra") == "extra value", sourceLocation: sourceLocation)
    }

    static let extraHeaders: HTTPFields = ["X-Extra": "extra value"]

    @Test(arguments: ["GET", "DELETE"])
    func parametersGoIntoTheQuery(_ method: String) throws {
        let marker = QueueMarker()
        try withHTTPSession(baseURLPath: "/v1", completionQueue: marker.queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/v1/items")
            let (returned, reply) = try Self.run(
                method, manager, "items", parameters: Self.parameters, headers: Self.extraHeaders, marker: marker)
            let target = "/v1/items?" + Self.encodedParameters
            #expect(reply.succeeded, "\(String(describing: reply.error))")
            #expect(reply.onCompletionQueue, "success runs on the completion queue")
            #expect(reply.value as? JSONValue == HTTPSessionFixtures.echoed(method, target), "the default serializer parses JSON")
            #expect(returned != nil && reply.task === returned, "success gets the task that was returned")
            #expect(returned?.state == .completed)
            let seen = try #require(server.requests.first)
            #expect(seen.method == method)
            #expect(seen.target == target)
            #expect(seen.body.isEmpty)
            #expect(seen.header("Content-Type") == nil)
            Self.expectDefaultHeaders(seen)
        }
    }

    @Test(arguments: ["POST", "PUT", "PATCH"])
    func parametersGoIntoAFormBody(_ method: String) throws {
        let marker = QueueMarker()
        try withHTTPSession(baseURLPath: "/v1", completionQueue: marker.queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/v1/items")
            let (returned, reply) = try Self.run(
                method, manager, "items", parameters: Self.parameters, headers: Self.extraHeaders, marker: marker)
            let body = Self.encodedParameters
            #expect(reply.succeeded, "\(String(describing: reply.error))")
            #expect(reply.onCompletionQueue)
            #expect(reply.value as? JSONValue == HTTPSessionFixtures.echoed(method, "/v1/items", bodyLength: body.utf8.count))
            #expect(reply.task === returned)
            let seen = try #require(server.requests.first)
            #expect(seen.method == method)
            #expect(seen.target == "/v1/items", "no query")
            #expect(seen.bodyString == body)
            #expect(seen.headerValues("Content-Type") == ["application/x-www-form-urlencoded"])
            #expect(seen.header("Content-Length") == String(body.utf8.count))
            #expect(!seen.wasChunked)
            Self.expectDefaultHeaders(seen)
        }
    }

    @Test func headSucceedsWithTheTaskOnly() throws {
        let marker = QueueMarker()
        try withHTTPSession(baseURLPath: "/v1", completionQueue: marker.queue) { manager, server in
            server.route("/v1/probe") { _, connection in
                // A HEAD response: the head says what a GET would send, with no body.
                try connection.respond(headers: [("Content-Type", "application/json")], body: #"{"never":"sent"}"#)
            }
            let (returned, reply) = try Self.run("HEAD", manager, "probe", parameters: ["id": 7], headers: Self.extraHeaders, marker: marker)
            #expect(reply.succeeded, "\(String(describing: reply.error))")
            #expect(reply.onCompletionQueue)
            #expect(reply.task === returned)
            #expect(returned?.response?.statusCode == 200)
            #expect(returned?.response?.expectedContentLength == 16)
            let seen = try #require(server.requests.first)
            #expect(seen.method == "HEAD")
            #expect(seen.target == "/v1/probe?id=7")
            Self.expectDefaultHeaders(seen)
        }
    }

    @Test func headersGivenToARequestReplaceTheDefaults() throws {
        let marker = QueueMarker()
        try withHTTPSession(completionQueue: marker.queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/h")
            let (_, reply) = try Self.run("GET", manager, "h", headers: ["User-Agent": "Custom/1", "Accept-Language": "fr"], marker: marker)
            #expect(reply.succeeded)
            let seen = try #require(server.requests.first)
            #expect(seen.headerValues("User-Agent") == ["Custom/1"])
            #expect(seen.headerValues("Accept-Language") == ["fr"])
        }
    }

    @Test func aNotFoundFailsValidationWithTheResponseAndBody() throws {
        let marker = QueueMarker()
        try withHTTPSession(baseURLPath: "/v1", completionQueue: marker.queue) { manager, server in
            let calls = Counter()
            server.setDefaultHandler { request, connection in
                try connection.respond(status: 404, headers: [("Content-Type", "application/json")], body: #"{"error":"no \#(request.path)"}"#)
            }
            let outcome = Outcome<Reply>()
            let returned = manager.GET("missing", parameters: nil, success: { task, value in
                calls.add(1)
                outcome.set(Reply(task: task, value: value, error: nil, onCompletionQueue: marker.isCurrent))
            }, failure: { task, error in
                calls.add(1)
                outcome.set(Reply(task: task, value: nil, error: error, onCompletionQueue: marker.isCurrent))
            })
            let reply = try #require(outcome.wait())
            let error = try #require(reply.error, "the failure closure ran")
            #expect(reply.onCompletionQueue, "failure runs on the completion queue")
            #expect(reply.task != nil && reply.task === returned)
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.phase == .validate)
            #expect(error.response?.statusCode == 404)
            #expect(error.response?.url.absoluteString == server.baseURL + "/v1/missing")
            #expect(error.bodyPrefix == Data(#"{"error":"no /v1/missing"}"#.utf8))
            #expect(error.failingURL?.absoluteString == server.baseURL + "/v1/missing")
            // Exactly one closure: the completion queue is serial, so anything else would have run by now.
            marker.queue.sync {}
            #expect(calls.value == 1)
        }
    }

    @Test func anUnacceptableContentTypeFailsValidation() throws {
        let marker = QueueMarker()
        try withHTTPSession(completionQueue: marker.queue) { manager, server in
            server.route("/page") { _, connection in
                try connection.respond(headers: [("Content-Type", "text/html; charset=utf-8")], body: "<p>hi</p>")
            }
            let (_, reply) = try Self.run("GET", manager, "page", marker: marker)
            let error = try #require(reply.error)
            #expect(reply.onCompletionQueue)
            #expect(error.code == .unacceptableContentType)
            #expect(error.phase == .validate)
            #expect(error.response?.statusCode == 200)
            #expect(error.response?.mimeType == "text/html")
            #expect(error.bodyPrefix == Data("<p>hi</p>".utf8))
        }
    }

    @Test func aJSONRequestSerializerWritesAJSONBody() throws {
        let marker = QueueMarker()
        try withHTTPSession(baseURLPath: "/api", completionQueue: marker.queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/api/things")
            manager.requestSerializer = JSONRequestSerializer()
            let parameters: [String: any Sendable] = ["name": "Courier", "tags": ["a", "b"], "count": 3, "ok": true]
            let (_, reply) = try Self.run("POST", manager, "things", parameters: parameters, headers: Self.extraHeaders, marker: marker)
            #expect(reply.succeeded, "\(String(describing: reply.error))")
            let seen = try #require(server.requests.first)
            #expect(seen.method == "POST" && seen.target == "/api/things")
            #expect(seen.headerValues("Content-Type") == ["application/json"])
            let body = try JSONDecoder().decode(JSONValue.self, from: Data(seen.body))
            #expect(body == ["name": "Courier", "tags": ["a", "b"], "count": 3, "ok": true])
            Self.expectDefaultHeaders(seen)
            // GET keeps its parameters in the query with the JSON serializer too.
            let (_, get) = try Self.run("GET", manager, "things", parameters: ["k": "v"], marker: marker)
            #expect(get.succeeded)
            #expect(server.requests.last?.target == "/api/things?k=v")
            #expect(server.requests.last?.body.isEmpty == true)
        }
    }

    @Test(arguments: ["relative/path", "ftp://127.0.0.1/file"])
    func aRequestThatCannotBeBuiltFailsWithoutATask(_ path: String) throws {
        let marker = QueueMarker()
        try withHTTPSession(baseURLPath: nil, completionQueue: marker.queue) { manager, server in
            for method in ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] {
                let outcome = Outcome<Reply>()
                let returned = Self.send(method, manager, path, parameters: ["a": 1], marker: marker, outcome: outcome)
                #expect(returned == nil, "\(method) returns nil")
                let reply = try #require(outcome.wait())
                #expect(reply.task == nil, "\(method): the failure gets no task")
                #expect(reply.onCompletionQueue, "\(method): the failure still runs on the completion queue")
                #expect(reply.error?.code == .invalidURL, "\(method): \(String(describing: reply.error))")
                #expect(reply.error?.phase == .serialize)
            }
            let outcome = Outcome<(UploadTask?, CourierError, Bool)>()
            let upload = manager.POST(path, parameters: nil, constructingBodyWith: { (_) throws(CourierError) in }, success: { _, _ in
                Issue.record("a multipart POST to \(path) succeeded")
            }, failure: { task, error in outcome.set((task, error, marker.isCurrent)) })
            #expect(upload == nil)
            let (task, error, onQueue) = try #require(outcome.wait())
            #expect(task == nil && onQueue && error.code == .invalidURL)
            #expect(server.requests.isEmpty, "nothing was sent")
            #expect(manager.session.tasks.isEmpty)
        }
    }

    @Test func closuresThatKeepTheirTaskDoNotKeepTheSessionAlive() throws {
        // withHTTPSession's descriptor check fails if the session's event loops outlive it, which
        // they would if a finished task kept the closures that keep it.
        try withHTTPSession { manager, server in
            HTTPSessionFixtures.echo(server, "/c")
            let kept = Recorder<SessionTask>()
            let outcome = Outcome<CourierError?>()
            let task = manager.GET("c", progress: { _ in _ = kept.count }, success: { task, _ in
                kept.append(task)
                outcome.set(nil)
            }, failure: { _, error in outcome.set(error) })
            kept.append(try #require(task))
            #expect(try #require(outcome.wait()) == nil)
            // The session API directly, with a completion that refers to its own task.
            let done = Outcome<Int>()
            let direct = manager.session.dataTask(with: Request(url: url(server, "/c"))) { response in
                done.set(response.response?.statusCode ?? -1)
                _ = kept.count
            }
            kept.append(direct)
            direct.resume()
            #expect(done.wait() == 200)
            #expect(kept.count == 3)
        }
    }
}
