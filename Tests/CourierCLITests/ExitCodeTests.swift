import CourierTestSupport
import Testing

/// curl's exit status for each failure class, with one `courier: (CODE) …` line naming the phase.
@Suite struct ExitCodeTests {
    static let validTLS = ServerTLS(certificateChain: "valid-chain.pem", privateKey: "valid.key")

    func expectFailure(_ run: CourierRun, _ code: Int32, phase: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == code, "stderr: \(run.err)", sourceLocation: sourceLocation)
        #expect(run.err.hasPrefix("courier: (\(code)) "), sourceLocation: sourceLocation)
        #expect(run.err.split(separator: "\n").count == 1, sourceLocation: sourceLocation)
        #expect(run.err.contains("(phase "), "the line names the phase", sourceLocation: sourceLocation)
        if let phase { #expect(run.err.contains("phase \(phase)"), sourceLocation: sourceLocation) }
    }

    @Test func malformedURLIs3() throws {
        expectFailure(try CourierRun.run(["http://[::1/"]), 3, phase: "serialize")
    }

    @Test func unsupportedSchemeIs1() throws {
        expectFailure(try CourierRun.run(["gopher://127.0.0.1/"]), 1, phase: "serialize")
    }

    @Test func unresolvableHostIs6() throws {
        // .invalid never resolves (RFC 6761 §6.4).
        expectFailure(try CourierRun.run(["http://courier-cli-test.invalid/"]), 6, phase: "resolve")
    }

    @Test func refusedConnectionIs7() throws {
        let server = try CLI.server()
        let url = server.baseURL + "/hello"
        server.shutdown()
        expectFailure(try CourierRun.run([url]), 7, phase: "connect")
    }

    @Test func writeErrorIs23() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        expectFailure(try CourierRun.run(["-o", "/dev/full", server.baseURL + "/hello"]), 23, phase: "file")
    }

    @Test func unreadableLocalFileIs26() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        expectFailure(try CourierRun.run(["-d", "@/nonexistent/courier-data", server.baseURL + "/echo"]), 26, phase: "serialize")
        expectFailure(try CourierRun.run(["-T", "/nonexistent/courier-data", server.baseURL + "/echo"]), 26)
        #expect(server.requests.isEmpty)
    }

    @Test func timeoutIs28() throws {
        let server = try CLI.server()
        let release = TestEvent()
        server.route("/stall") { _, connection in
            try connection.stall(until: release)
            try connection.respond(body: "late")
        }
        defer { release.signal(); server.shutdown() }
        let run = try CourierRun.run(["-m", "0.3", server.baseURL + "/stall"])
        release.signal()
        expectFailure(run, 28, phase: "receive")
    }

    @Test func resumeIgnoredByTheServerIs33() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        try CLI.write("hel", to: directory + "/part")
        let run = try CourierRun.run(["-C", "-", "-o", directory + "/part", server.baseURL + "/hello"])
        expectFailure(run, 33, phase: "receive")
        #expect(server.requests.first?.header("Range") == "bytes=3-")
        #expect(CLI.read(directory + "/part") == "hel")
    }

    @Test func tlsHandshakeFailureIs35() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        // A plain HTTP server answers the ClientHello with no TLS at all.
        let run = try CourierRun.run(["https://127.0.0.1:\(server.port)/hello"])
        expectFailure(run, 35, phase: "tls")
    }

    @Test func emptyReplyIs52() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/nothing") { _, connection in connection.close() }
        expectFailure(try CourierRun.run([server.baseURL + "/nothing"]), 52, phase: "receive")
    }

    @Test func resetDuringTheBodyIs56() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/reset") { _, connection in
            try connection.sendHead(headers: [("Content-Length", "100")])
            try connection.send("partial")
            connection.reset()
        }
        let run = try CourierRun.run(["-o", "/dev/null", server.baseURL + "/reset"])
        #expect(run.status == 56 || run.status == 18, "\(run.err)")
        #expect(run.err.contains("phase receive"))
    }

    @Test func untrustedCertificateIs60() throws {
        let server = try CLI.server(tls: Self.validTLS)
        defer { server.shutdown() }
        expectFailure(try CourierRun.run(["https://localhost:\(server.port)/hello"]), 60, phase: "trust")
    }

    @Test func badContentEncodingIs61() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/gzip") { _, connection in
            try connection.respond(headers: [("Content-Encoding", "gzip")], body: "this is not gzip at all")
        }
        expectFailure(try CourierRun.run(["--compressed", server.baseURL + "/gzip"]), 61, phase: "decode")
    }

    @Test func pinnedPublicKeyMismatchIs90() throws {
        let server = try CLI.server(tls: Self.validTLS)
        defer { server.shutdown() }
        let wrong = "sha256//" + String(repeating: "A", count: 43) + "="
        let run = try CourierRun.run(["--cacert", TestCertificates.path("ca.pem"), "--pinnedpubkey", wrong,
                                      "https://localhost:\(server.port)/hello"])
        expectFailure(run, 90, phase: "trust")
    }
}
