import Courier
import CourierTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// curl and courier on the same transfers: the same `-w` fields (timings by presence and order
/// only), and cookie files that each reads from the other.
@Suite(.enabled(if: CLI.installed("curl"), "curl is not installed (make deps installs it)"))
struct CurlGoldenTests {
    static let fields = ["http_code", "size_download", "size_upload", "num_redirects", "num_connects", "url_effective",
                         "remote_ip", "remote_port", "content_type", "exitcode"]
    static let times = ["time_namelookup", "time_connect", "time_pretransfer", "time_starttransfer", "time_total"]

    /// One config file (`-K`), read by both: options with and without dashes, quoted values
    /// with escapes, comments, an unknown option (a warning, on stderr, from each).
    @Test func aConfigFileMeansTheSameToBoth() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        let config = directory + "/transfer.config"
        try CLI.write("""
            # the request
            request = PUT
            --data-binary "one two"
            header: "X-Quoted: a \\"b\\""
            -H "X-Second: 2"
            url = "\(server.baseURL)/echo"
            output /dev/null
            write-out = "%{http_code} %{size_upload} %{url_effective}\\n"
            not-an-option
            """, to: config)
        let curl = try Process.run("/usr/bin/curl", ["-K", config])
        let courier = try CourierRun.run(["-K", config])
        #expect(courier.status == 0 && curl.status == 0, "\(courier.err)")
        #expect(courier.out == curl.out)
        #expect(courier.out == "200 7 \(server.baseURL)/echo\n")
        #expect(courier.err.contains("transfer.config:9: warning: 'not-an-option' is unknown"), "\(courier.err)")
        // curl wraps its warnings at 79 columns.
        #expect(curl.err.contains("transfer.config:9: warning: 'not-an-option'"), "\(curl.err)")
        let requests = server.requests
        try #require(requests.count == 2)
        for request in requests {
            #expect(request.method == "PUT")
            #expect(request.bodyString == "one two")
            #expect(request.header("X-Quoted") == "a \"b\"")
            #expect(request.header("X-Second") == "2")
        }
    }

    @Test(arguments: [
        ["/hello"],
        ["-d", "a=1", "-d", "b=2", "/echo"],
        ["-L", "/redirect"],
        ["/missing", "-f"],
        ["-I", "/hello"],
        ["-X", "PUT", "--data-binary", "xyz", "/echo"],
        ["-G", "-d", "q=1", "/hello"],
    ])
    func writeOutAgreesWithCurl(_ arguments: [String]) throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/redirect") { _, connection in try connection.respond(status: 302, headers: [("Location", "/hello")]) }
        server.route("/missing") { _, connection in try connection.respond(status: 404, body: "no") }
        let resolved = arguments.map { $0.hasPrefix("/") ? server.baseURL + $0 : $0 }
        let common = ["-s", "-o", "/dev/null", "-w", "%{json}"] + resolved
        let curl = try Process.run("/usr/bin/curl", common)
        let courier = try CourierRun.run(common)
        #expect(courier.status == curl.status)
        let expected = try CLI.json(curl.out)
        let actual = try CLI.json(courier.out)
        for field in Self.fields {
            #expect(actual[field] == expected[field], "\(field): courier \(actual[field].map { "\($0)" } ?? "nil"), curl \(expected[field].map { "\($0)" } ?? "nil")")
        }
        let times = Self.times.map { actual[$0]?.doubleValue }
        #expect(times.allSatisfy { $0 != nil })
        #expect(times.compactMap { $0 } == times.compactMap { $0 }.sorted())
        #expect(Self.times.allSatisfy { expected[$0]?.doubleValue != nil })
    }

    @Test func anHTTPSTransferAgreesWithCurl() throws {
        let server = try CLI.server(tls: ExitCodeTests.validTLS)
        defer { server.shutdown() }
        let common = ["-s", "--cacert", TestCertificates.path("ca.pem"), "-o", "/dev/null", "-w", "%{json}",
                      "https://localhost:\(server.port)/hello"]
        let curl = try Process.run("/usr/bin/curl", common)
        let courier = try CourierRun.run(common)
        #expect(courier.status == curl.status)
        let expected = try CLI.json(curl.out)
        let actual = try CLI.json(courier.out)
        for field in ["http_code", "size_download", "num_connects", "url_effective", "remote_port", "content_type", "exitcode", "scheme"] {
            #expect(actual[field] == expected[field], "\(field)")
        }
        let order = ["time_namelookup", "time_connect", "time_appconnect", "time_pretransfer", "time_starttransfer", "time_total"]
        let times = order.compactMap { actual[$0]?.doubleValue }
        #expect(times.count == order.count)
        #expect(times == times.sorted())
        #expect((actual["time_appconnect"]?.doubleValue ?? 0) > 0)
        #expect((expected["time_appconnect"]?.doubleValue ?? 0) > 0)
    }

    @Test func aRefusedConnectionAgreesWithCurl() throws {
        let server = try CLI.server()
        let url = server.baseURL + "/hello"
        server.shutdown()
        let common = ["-s", "-w", "%{json}", url]
        let curl = try Process.run("/usr/bin/curl", common)
        let courier = try CourierRun.run(common)
        #expect(courier.status == curl.status)
        let expected = try CLI.json(curl.out)
        let actual = try CLI.json(courier.out)
        for field in ["http_code", "exitcode", "size_download", "num_connects", "url_effective"] {
            #expect(actual[field] == expected[field], "\(field)")
        }
    }

    @Test func cookieFilesRoundTripBetweenCurlAndCourier() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/login") { _, connection in
            try connection.respond(headers: [("Set-Cookie", "session=abc123; Path=/; Max-Age=3600"), ("Set-Cookie", "theme=dark; Path=/")], body: "ok")
        }
        server.route("/rotate") { request, connection in
            try connection.respond(headers: [("Set-Cookie", "session=def456; Path=/; Max-Age=3600")], body: request.header("Cookie") ?? "")
        }
        let directory = try CLI.scratchDirectory()
        // curl writes the jar; courier sends it and writes its own; curl reads that back.
        let curlWrites = try Process.run("/usr/bin/curl", ["-s", "-c", directory + "/curl.txt", server.baseURL + "/login"])
        #expect(curlWrites.status == 0)
        let courier = try CourierRun.run(["-s", "-b", directory + "/curl.txt", "-c", directory + "/courier.txt", server.baseURL + "/rotate"])
        #expect(courier.status == 0, "\(courier.err)")
        let sent = Set(courier.out.split(separator: ";").map { String($0.drop { $0 == " " }) })
        #expect(sent == ["session=abc123", "theme=dark"])
        let curlReads = try Process.run("/usr/bin/curl", ["-s", "-b", directory + "/courier.txt", server.baseURL + "/echo-cookie"])
        #expect(curlReads.status == 0)
        let last = try #require(server.requests.last)
        let readBack = Set((last.header("Cookie") ?? "").split(separator: ";").map { String($0.drop { $0 == " " }) })
        #expect(readBack == ["session=def456", "theme=dark"])
    }
}

/// Runs another program (curl) with its output captured, through ``CourierRun``'s spawning code.
enum Process {
    static func run(_ program: String, _ arguments: [String]) throws -> CourierRun {
        try CourierRun.run(arguments, program: program)
    }
}
