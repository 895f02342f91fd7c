import CourierTestSupport
import Testing

/// -L, --max-redirs, -f, --fail-with-body, -s, -S.
@Suite struct RedirectAndFailTests {
    static func redirectingServer() throws -> ScriptedServer {
        let server = try CLI.server()
        server.route("/one") { _, connection in try connection.respond(status: 302, headers: [("Location", "/two")]) }
        server.route("/two") { _, connection in try connection.respond(status: 301, headers: [("Location", "/hello")]) }
        server.route("/loop") { _, connection in try connection.respond(status: 302, headers: [("Location", "/loop2")]) }
        server.route("/loop2") { _, connection in try connection.respond(status: 302, headers: [("Location", "/loop")]) }
        server.route("/missing") { _, connection in try connection.respond(status: 404, body: "not here") }
        return server
    }

    @Test func withoutLTheRedirectIsTheResponse() throws {
        let server = try Self.redirectingServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-s", "-w", "%{http_code} %{num_redirects} %{redirect_url}", server.baseURL + "/one"])
        #expect(run.status == 0)
        #expect(run.out == "302 0 /two")
    }

    @Test func followsRedirectsWithL() throws {
        let server = try Self.redirectingServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-sSfL", "-w", "\\n%{http_code} %{num_redirects} %{url_effective}", server.baseURL + "/one"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "hello\n200 2 \(server.baseURL)/hello")
    }

    @Test func tooManyRedirectsIs47() throws {
        let server = try Self.redirectingServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-L", "--max-redirs", "1", server.baseURL + "/one"])
        #expect(run.status == 47)
        #expect(run.err.hasPrefix("courier: (47) "))
        #expect(run.err.contains("redirect"))
    }

    @Test func failIs22WithoutTheBody() throws {
        let server = try Self.redirectingServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-f", server.baseURL + "/missing"])
        #expect(run.status == 22)
        #expect(run.out.isEmpty)
        #expect(run.err == "courier: (22) The requested URL returned error: 404 (phase validate)\n")
    }

    @Test func failWithBodyKeepsTheBody() throws {
        let server = try Self.redirectingServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["--fail-with-body", server.baseURL + "/missing"])
        #expect(run.status == 22)
        #expect(run.out == "not here")
    }

    @Test func silentHidesTheErrorAndShowErrorBringsItBack() throws {
        let server = try Self.redirectingServer()
        defer { server.shutdown() }
        let silent = try CourierRun.run(["-sf", server.baseURL + "/missing"])
        #expect(silent.status == 22)
        #expect(silent.err.isEmpty)
        let shown = try CourierRun.run(["-sSf", server.baseURL + "/missing"])
        #expect(shown.status == 22)
        #expect(shown.err.contains("(22)"))
    }

    @Test func withoutFailAn404IsSuccess() throws {
        let server = try Self.redirectingServer()
        defer { server.shutdown() }
        let run = try CourierRun.run([server.baseURL + "/missing"])
        #expect(run.status == 0)
        #expect(run.out == "not here")
    }
}
