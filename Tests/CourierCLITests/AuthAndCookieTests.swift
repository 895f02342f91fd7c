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

    /// `-u user` without a password asks for it as curl does: the prompt on stderr (even with
    /// `-s`), the line read from the terminal or, with none (as here), from standard input.
    @Test func userWithoutAPasswordIsAskedForIt() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-s", "-u", "bob", server.baseURL + "/hello"], stdin: Array("s3cret\n".utf8))
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err == "Enter host password for user 'bob':\n")
        #expect(server.requests.last?.header("Authorization") == "Basic Ym9iOnMzY3JldA==")

        // Only the password line is read: a body from standard input follows it.
        let body = try CourierRun.run(["-u", "bob", "--data-binary", "@-", server.baseURL + "/hello"], stdin: Array("pw\nthe body".utf8))
        #expect(body.status == 0, "\(body.err)")
        #expect(server.requests.last?.header("Authorization") == "Basic Ym9iOnB3")
        #expect(server.requests.last?.body == Array("the body".utf8))

        // No input at all: an empty password, as curl's.
        let empty = try CourierRun.run(["-u", "bob", server.baseURL + "/hello"])
        #expect(empty.status == 0)
        #expect(server.requests.last?.header("Authorization") == "Basic Ym9iOg==")

        // `user:` is an empty password on purpose: not asked.
        let given = try CourierRun.run(["-u", "bob:", server.baseURL + "/hello"], stdin: Array("unread\n".utf8))
        #expect(given.err.isEmpty)
        #expect(server.requests.last?.header("Authorization") == "Basic Ym9iOg==")
    }

    /// curl reads the same answer the same way (the golden check of the prompt's behaviour).
    @Test(.enabled(if: CLI.installed("curl"), "curl is not installed (make deps installs it)"))
    func curlAsksTheSameWay() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let curl = try CourierRun.run(["-s", "-u", "bob", server.baseURL + "/hello"], stdin: Array("s3cret\n".utf8), program: "/usr/bin/curl")
        #expect(curl.status == 0)
        let courier = try CourierRun.run(["-s", "-u", "bob", server.baseURL + "/hello"], stdin: Array("s3cret\n".utf8))
        #expect(courier.err == curl.err)
        #expect(server.requests.count == 2)
        #expect(server.requests[0].header("Authorization") == server.requests[1].header("Authorization"))
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
