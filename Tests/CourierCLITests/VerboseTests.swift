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
    }
}
