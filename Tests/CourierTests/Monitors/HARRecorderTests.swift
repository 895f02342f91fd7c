import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// The HAR 1.2 recorder: its output checked against the format's field rules, and what it
/// records of redirects, retries, bodies and credentials.
@Suite(.serialized) struct HARRecorderTests {
    /// Runs `requests` one after another on a session with `recorder` and returns the archive as
    /// parsed JSON, once every task completed on the recorder's queue.
    static func record(
        _ recorder: HARRecorder, interceptor: (any RequestInterceptor)? = nil,
        routes: (ScriptedServer) -> Void, requests: (ScriptedServer) throws -> [Request]
    ) throws -> JSONValue {
        var json = JSONValue.null
        try withSession(configure: { configuration in
            configuration.eventMonitors = [recorder]
            configuration.interceptor = interceptor
        }) { manager, server in
            routes(server)
            for request in try requests(server) { _ = try runData(manager, request) }
            recorder.queue.sync {}  // the last completion has been recorded
            let data = try recorder.jsonData(prettyPrinted: true)
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        }
        return json
    }

    @Test func theArchiveFollowsTheHAR12FieldRules() throws {
        let recorder = HARRecorder()
        let json = try Self.record(recorder, interceptor: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0)) { server in
            server.route("/start") { _, connection in try connection.respond(status: 301, headers: [("Location", "/moved?x=1")]) }
            server.route("/moved") { _, connection in
                try connection.respond(headers: [("Content-Type", "text/plain; charset=utf-8")], body: "moved here")
            }
            let calls = Counter()
            server.route("/flaky") { _, connection in
                calls.add(1)
                try connection.respond(status: calls.value == 1 ? 503 : 200, body: calls.value == 1 ? "busy" : "ok")
            }
            server.route("/post") { _, connection in try connection.respond(status: 201, headers: [("Content-Type", "application/json")], body: "{}") }
        } requests: { server in
            var post = Request(url: url(server, "/post?a=1&b=two%20words"), method: .POST)
            post.body = .data(Data("{\"name\":\"x\"}".utf8))
            try post.setValue("application/json", forHTTPHeaderField: "Content-Type")
            return [Request(url: url(server, "/start")), Request(url: url(server, "/flaky")), post]
        }
        #expect(HARValidation.problems(in: json) == [])
        let entries = try #require(json["log"]?["entries"]?.arrayValue)
        #expect(entries.count == 5, "a redirect hop and a retry are entries of their own")
        #expect(entries.map { $0["response"]?["status"]?.intValue ?? -1 } == [301, 200, 503, 200, 201])
        #expect(entries[0]["response"]?["redirectURL"]?.stringValue == "/moved?x=1")
        #expect(entries[1]["request"]?["queryString"]?.arrayValue == [.object(["name": .string("x"), "value": .string("1")])])
        #expect(entries[1]["response"]?["content"]?["mimeType"]?.stringValue == "text/plain; charset=utf-8")
        #expect(entries[1]["response"]?["content"]?["size"]?.intValue == 10)
        #expect(entries[1]["response"]?["content"]?["text"] == nil, "bodies are left out by default")
        let post = try #require(entries.last)
        #expect(post["request"]?["method"]?.stringValue == "POST")
        #expect(post["request"]?["bodySize"]?.intValue == 12)
        #expect(post["request"]?["postData"] == nil)
        #expect(post["request"]?["queryString"]?.arrayValue?.last?["value"]?.stringValue == "two words")
        #expect(post["request"]?["httpVersion"]?.stringValue == "HTTP/1.1")
        // The first request opened a connection; the hop after it reused it.
        #expect((entries[0]["timings"]?["connect"]?.doubleValue ?? -1) >= 0)
        #expect(entries[1]["timings"]?["connect"]?.doubleValue == -1)
        #expect(entries[1]["timings"]?["ssl"]?.doubleValue == -1)
        #expect(json["log"]?["version"]?.stringValue == "1.2")
    }

    @Test func credentialsAreRedactedUnlessAskedFor() throws {
        for includesCredentials in [false, true] {
            let recorder = HARRecorder(includesCredentials: includesCredentials)
            let json = try Self.record(recorder) { server in
                server.route("/me") { _, connection in
                    try connection.respond(headers: [("Set-Cookie", "session=abc123; Path=/")], body: "me")
                }
            } requests: { server in
                var components = try #require(URLComponents(url: url(server, "/me"), resolvingAgainstBaseURL: false))
                components.user = "ann"
                components.password = "pw-in-url"
                var request = Request(url: try #require(components.url))
                try request.setValue("Bearer token-xyz", forHTTPHeaderField: "Authorization")
                try request.setValue("Bearer proxy-xyz", forHTTPHeaderField: "Proxy-Authorization")
                try request.setValue("a=1; theme=dark", forHTTPHeaderField: "Cookie")
                return [request]
            }
            #expect(HARValidation.problems(in: json) == [])
            let text = json.description
            let entry = try #require(json["log"]?["entries"]?[0])
            let headers = entry["request"]?["headers"]?.arrayValue ?? []
            let value = { (name: String) in headers.first { $0["name"]?.stringValue == name }?["value"]?.stringValue }
            if includesCredentials {
                #expect(value("Authorization") == "Bearer token-xyz")
                #expect(entry["request"]?["url"]?.stringValue?.contains("ann:pw-in-url@") == true)
                #expect(entry["request"]?["cookies"]?.arrayValue?.count == 2)
                #expect(entry["response"]?["cookies"]?[0]?["value"]?.stringValue == "abc123")
            } else {
                for secret in ["token-xyz", "proxy-xyz", "theme=dark", "abc123", "pw-in-url"] {
                    #expect(!text.contains(secret), "\(secret) is redacted")
                }
                #expect(value("Authorization") == "<redacted>")
                #expect(value("Proxy-Authorization") == "<redacted>")
                #expect(value("Cookie") == "<redacted>")
                #expect(entry["request"]?["url"]?.stringValue?.contains("ann:***@") == true)
                #expect(entry["request"]?["cookies"]?.arrayValue == [])
            }
        }
    }

    /// `displayedURL` writes a request's URL as the closure says; a nil answer leaves the URL
    /// itself, still redacted.
    @Test func aDisplayedURLReplacesTheRequestsOwn() throws {
        let recorder = HARRecorder(displayedURL: { request in
            request.url.path == "/shown" ? "http://shown.example/shown" : nil
        })
        let json = try Self.record(recorder) { server in
            server.route("/shown") { _, connection in try connection.respond(body: "a") }
            server.route("/plain") { _, connection in try connection.respond(body: "b") }
        } requests: { server in
            var components = try #require(URLComponents(url: url(server, "/plain"), resolvingAgainstBaseURL: false))
            components.user = "ann"
            components.password = "pw-in-url"
            return [Request(url: url(server, "/shown")), Request(url: try #require(components.url))]
        }
        #expect(HARValidation.problems(in: json) == [])
        let urls = (json["log"]?["entries"]?.arrayValue ?? []).compactMap { $0["request"]?["url"]?.stringValue }
        #expect(urls.count == 2)
        #expect(urls.first == "http://shown.example/shown")
        #expect(urls.last?.contains("ann:***@") == true && urls.last?.hasSuffix("/plain") == true)
    }

    @Test func bodiesAreRecordedWhenAskedFor() throws {
        let recorder = HARRecorder(includesBodies: true)
        let binary: [UInt8] = [0, 1, 2, 0xFF, 0xFE]
        let json = try Self.record(recorder) { server in
            server.route("/text") { _, connection in try connection.respond(headers: [("Content-Type", "text/plain")], body: "héllo") }
            server.route("/bin") { _, connection in
                try connection.respond(headers: [("Content-Type", "application/octet-stream")], body: binary)
            }
        } requests: { server in
            var post = Request(url: url(server, "/text"), method: .POST)
            post.body = .data(Data("q=1".utf8))
            try post.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            return [post, Request(url: url(server, "/bin"))]
        }
        #expect(HARValidation.problems(in: json) == [])
        let entries = try #require(json["log"]?["entries"]?.arrayValue)
        #expect(entries[0]["request"]?["postData"]?["text"]?.stringValue == "q=1")
        #expect(entries[0]["request"]?["postData"]?["mimeType"]?.stringValue == "application/x-www-form-urlencoded")
        #expect(entries[0]["response"]?["content"]?["text"]?.stringValue == "héllo")
        #expect(entries[0]["response"]?["content"]?["size"]?.intValue == 6)
        #expect(entries[1]["response"]?["content"]?["encoding"]?.stringValue == "base64")
        #expect(entries[1]["response"]?["content"]?["text"]?.stringValue == Data(binary).base64EncodedString())
    }

    @Test func aFailedRequestHasAnEntryWithoutAResponse() throws {
        let recorder = HARRecorder()
        let json = try Self.record(recorder) { server in
            server.route("/drop") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "10")])
                connection.close()
            }
        } requests: { server in [Request(url: url(server, "/drop"))] }
        #expect(HARValidation.problems(in: json) == [])
        let entry = try #require(json["log"]?["entries"]?[0])
        #expect(entry["response"]?["status"]?.intValue == 200, "the head arrived before the connection closed")
        #expect(entry["_error"]?.stringValue?.hasPrefix("transport") == true)
    }

    @Test func datesAreISO8601InUTC() {
        #expect(HARValidation.isISO8601("2009-04-16T12:07:25.123+01:00"))
        #expect(!HARValidation.isISO8601("16/04/2009"))
    }
}
