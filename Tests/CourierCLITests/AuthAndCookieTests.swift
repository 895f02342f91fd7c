import CourierTestSupport
import Testing

/// -u (Basic, --digest), -b, -c.
@Suite struct AuthAndCookieTests {
    @Test func userSendsBasicPreemptively() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-u", "user:pass", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(server.requests.first?.header("Authorization") == "Basic dXNlcjpwYXNz")
    }

    @Test func digestAnswersTheChallenge() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/digest") { request, connection in
            if let authorization = request.header("Authorization"), authorization.hasPrefix("Digest "),
               authorization.contains("username=\"user\"") {
                try connection.respond(body: "in")
            } else {
                try connection.respond(status: 401, headers: [("WWW-Authenticate", "Digest realm=\"r\", nonce=\"abc\", qop=\"auth\", algorithm=SHA-256")])
            }
        }
        let run = try CourierRun.run(["--digest", "-u", "user:pass", "-w", " %{http_code}", server.baseURL + "/digest"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "in 200")
        #expect(server.requests.count == 2)
        #expect(server.requests.first?.header("Authorization") == nil)
    }

    @Test func cookiesFromAStringAndFromAFileAndIntoAJar() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/set") { _, connection in
            try connection.respond(headers: [("Set-Cookie", "fresh=1; Path=/; Max-Age=3600")], body: "set")
        }
        let literal = try CourierRun.run(["-b", "a=1; b=2", server.baseURL + "/hello"])
        #expect(literal.status == 0)
        #expect(server.requests.last?.header("Cookie") == "a=1; b=2")

        let directory = try CLI.scratchDirectory()
        let jar = directory + "/jar.txt"
        let stored = try CourierRun.run(["-c", jar, server.baseURL + "/set"])
        #expect(stored.status == 0)
        let file = try #require(CLI.read(jar))
        #expect(file.hasPrefix("# Netscape HTTP Cookie File"))
        #expect(file.contains("\tfresh\t1"))

        let sent = try CourierRun.run(["-b", jar, server.baseURL + "/hello"])
        #expect(sent.status == 0)
        #expect(server.requests.last?.header("Cookie") == "fresh=1")
    }

    @Test func cookieJarToStdout() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/set") { _, connection in
            try connection.respond(headers: [("Set-Cookie", "k=v; Path=/")], body: "")
        }
        let run = try CourierRun.run(["-c", "-", server.baseURL + "/set"])
        #expect(run.status == 0)
        #expect(run.out.hasPrefix("# Netscape HTTP Cookie File"))
        #expect(run.out.contains("\tk\tv"))
    }
}
