@testable import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// curl's cookie files both ways, against a scripted loopback server: a file `curl -c` wrote is
/// read by the jar, and a file the jar wrote is sent by `curl -b`. Skipped where curl is missing
/// (`make deps` installs it).
@Suite(.serialized) struct CookieCurlInteropTests {
    static let curl = ChildProcess.find("curl")

    static func run(_ arguments: [String]) throws {
        let process = try ChildProcess(arguments)
        defer { process.stop() }
        let status = process.waitForExit(until: .now + .seconds(20))
        #expect(status == 0, "curl failed: \(process.outputText)")
    }

    @Test(.enabled(if: curl != nil, "curl is not installed: `make deps` installs it"))
    func aFileCurlWroteIsReadByTheJar() throws {
        let curl = try #require(Self.curl)
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/set") { _, connection in
            try connection.respond(
                headers: [
                    ("Set-Cookie", "plain=1; Path=/"), ("Set-Cookie", "api=2; Path=/api; HttpOnly"),
                    ("Set-Cookie", "lasting=3; Path=/; Max-Age=3600"),
                ], body: "ok")
        }
        let file = directory.path + "/curl-cookies.txt"
        try Self.run([curl, "-s", "-o", "/dev/null", "-c", file, server.baseURL + "/set"])
        let jar = CookieJar()
        let skipped = try jar.load(contentsOfFile: file)
        #expect(skipped == 0)
        #expect(jar.count == 3)
        #expect(jar.allCookies.first { $0.name == "api" }?.isHTTPOnly == true, "#HttpOnly_ lines")
        #expect(jar.allCookies.first { $0.name == "lasting" }?.isSessionCookie == false)
        let field = jar.cookieFieldValue(for: try HTTPURL(server.baseURL + "/api/x")) ?? ""
        // The longer path first; the others in the file's order (curl's own).
        #expect(field.hasPrefix("api=2; "), "\(field)")
        #expect(Set(field.split(separator: ";").map { String($0.drop(while: { $0 == " " })) }) == ["api=2", "plain=1", "lasting=3"])
    }

    @Test(.enabled(if: curl != nil, "curl is not installed: `make deps` installs it"))
    func aFileTheJarWroteIsSentByCurl() throws {
        let curl = try #require(Self.curl)
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/read") { _, connection in try connection.respond(body: "ok") }
        let jar = CookieJar()
        let base = try HTTPURL(server.baseURL + "/")
        try jar.store(setCookie: "session=abc; Path=/", for: base)
        try jar.store(setCookie: "token=t; Path=/read; HttpOnly; Max-Age=3600", for: base)
        try jar.store(setCookie: "other=x; Path=/elsewhere", for: base)
        let file = directory.path + "/courier-cookies.txt"
        try jar.write(toFile: file)
        try Self.run([curl, "-s", "-o", "/dev/null", "-b", file, server.baseURL + "/read"])
        #expect(server.waitForRequests(1))
        let sent = server.requests.first?.header("Cookie") ?? ""
        let pairs = Set(sent.split(separator: ";").map { String($0.drop(while: { $0 == " " })) })
        #expect(pairs == ["session=abc", "token=t"], "\(sent)")
    }
}
