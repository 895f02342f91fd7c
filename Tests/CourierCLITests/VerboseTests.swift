import CourierTestSupport
import Testing

/// -v: the request head (`> `), the response head (`< `) and Courier's measurements (`* `).
@Suite struct VerboseTests {
    @Test func verboseShowsBothHeadsAndTheTimings() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-v", server.baseURL + "/hello", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(run.out == "hellohello")
        #expect(run.err.contains("> GET /hello HTTP/1.1\n"))
        #expect(run.err.contains("> Host: \(server.authority)\n"))
        #expect(run.err.contains("< HTTP/1.1 200 OK\n"))
        #expect(run.err.contains("< Content-Type: text/plain\n"))
        #expect(run.err.contains("* Connected to 127.0.0.1 port \(server.port) (new connection"))
        #expect(run.err.contains("* Re-using existing connection with 127.0.0.1 port \(server.port)"))
        #expect(run.err.contains("* Timings (s) request 1: resolve="))
        // curl's order: the connection, the request, the response; the timings after.
        let lines = run.err.split(separator: "\n").map(String.init)
        let connected = try #require(lines.firstIndex { $0.hasPrefix("* Connected to") })
        let reused = try #require(lines.firstIndex { $0.hasPrefix("* Re-using") })
        let requests = lines.indices.filter { lines[$0] == "> GET /hello HTTP/1.1" }
        let responses = lines.indices.filter { lines[$0] == "< HTTP/1.1 200 OK" }
        let timings = try #require(lines.firstIndex { $0.hasPrefix("* Timings") })
        try #require(requests.count == 2 && responses.count == 2)
        #expect(connected < requests[0] && requests[0] < responses[0] && responses[0] < timings)
        #expect(responses[0] < reused && reused < requests[1] && requests[1] < responses[1])
    }

    /// The `> ` head is the one written, framing included: a body's Content-Length.
    @Test func verboseShowsTheFramingOfABody() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-v", "-d", "a=1", server.baseURL + "/echo"])
        #expect(run.status == 0)
        #expect(run.err.contains("> POST /echo HTTP/1.1\n"))
        #expect(run.err.contains("> Content-Length: 3\n"))
        #expect(run.err.contains("> Content-Type: application/x-www-form-urlencoded\n"))
    }
}
