import CourierTestSupport
import Testing

/// The request flags: URLs, -X, -H, -A, -e, and curl's ways of writing them.
@Suite struct RequestFlagTests {
    @Test func aGetWritesTheBodyToStdout() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run([server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(run.out == "hello")
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.header("Accept") == "*/*")
        #expect(request.header("User-Agent")?.hasPrefix("courier/") == true)
    }

    @Test func methodHeadersAgentAndRefererCurlStyle() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        // Attached value, cluster, repeated -H, options after the URL.
        let run = try CourierRun.run([server.baseURL + "/echo", "-XPUT", "-H", "X-One: 1", "-H", "X-Two: 2", "-sA", "agent/1",
                                      "-e", "http://ref.example/", "-H", "Accept:"])
        #expect(run.status == 0)
        let request = try #require(server.requests.first)
        #expect(request.method == "PUT")
        #expect(request.header("X-One") == "1")
        #expect(request.header("X-Two") == "2")
        #expect(request.header("User-Agent") == "agent/1")
        #expect(request.header("Referer") == "http://ref.example/")
        #expect(request.header("Accept") == nil)
    }

    @Test func severalURLsOneAfterAnotherOnOneConnection() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-w", "%{connection_reused}\\n", server.baseURL + "/hello", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(run.out == "hello0\nhello1\n")
        #expect(server.connectionsAccepted == 1)
    }

    @Test func aURLWithoutSchemeIsHTTP() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-s", server.authority + "/hello"])
        #expect(run.status == 0)
        #expect(run.out == "hello")
    }

    @Test func helpIsGroupedWithExamples() throws {
        let run = try CourierRun.run(["--help"])
        #expect(run.status == 0)
        for group in ["Request:", "Body:", "Output:", "Redirects and errors:", "TLS:", "Proxies:", "Examples:"] {
            #expect(run.out.contains(group))
        }
    }

    @Test func aMissingValueIsAUsageError() throws {
        let run = try CourierRun.run(["http://127.0.0.1:9/", "-H"])
        #expect(run.status == 2)
        #expect(run.err.contains("--header"))
    }

    @Test func anInjectedHeaderIsRefusedBeforeAnythingIsSent() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-H", "X-Evil: a\r\nHost: other", server.baseURL + "/hello"])
        #expect(run.status == 43)
        #expect(run.err.hasPrefix("courier: (43) "))
        #expect(server.requests.isEmpty)
    }

    @Test func urlGlobsExpandAndNameTheirOutputs() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.setDefaultHandler { request, connection in try connection.respond(body: request.path) }
        let directory = try CLI.scratchDirectory()
        let run = try CourierRun.run(["-o", directory + "/out_#1_#2", server.baseURL + "/{a,b}/[1-2]"])
        #expect(run.status == 0, "\(run.err)")
        #expect(server.requests.map(\.path) == ["/a/1", "/a/2", "/b/1", "/b/2"])
        #expect(CLI.read(directory + "/out_b_2") == "/b/2")
        let literal = try CourierRun.run(["-g", "-s", server.baseURL + "/x[1-2]"])
        #expect(literal.status == 0)
        #expect(server.requests.last?.path.hasPrefix("/x") == true)
        #expect(server.requests.count == 5)
    }

    @Test func anUnknownLongOptionIsNamedWithoutItsValue() throws {
        let run = try CourierRun.run(["--no-such=1", "http://127.0.0.1:9/"])
        #expect(run.status == 2)
        #expect(run.err.hasPrefix("courier: option --no-such: is unknown"))
    }
}
