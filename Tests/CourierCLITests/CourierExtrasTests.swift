import CourierTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What Courier reports beyond curl: DNS-cache hits, TLS session resumption, connection reuse,
/// the pins a server presented; and the remaining transport flags (--connect-timeout, --capath,
/// socks5).
@Suite struct CourierExtrasTests {
    /// `/close` answers and closes, so the next transfer needs a new connection.
    static func closingServer(tls: ServerTLS? = nil) throws -> ScriptedServer {
        let server = try CLI.server(tls: tls)
        server.route("/close") { _, connection in
            connection.closeAfterResponse = true
            try connection.respond(body: "bye")
        }
        return server
    }

    @Test func aSecondConnectionToANameIsADNSCacheHit() throws {
        let server = try Self.closingServer()
        defer { server.shutdown() }
        let url = "http://localhost:\(server.port)/close"
        let run = try CourierRun.run(["-s", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{dns_cache_hit}%{connection_reused},", url, url])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "00,10,")
    }

    @Test func aSecondTLSConnectionResumesTheSession() throws {
        let server = try Self.closingServer(tls: ExitCodeTests.validTLS)
        defer { server.shutdown() }
        let url = "https://localhost:\(server.port)/close"
        let run = try CourierRun.run(["-s", "--cacert", TestCertificates.path("ca.pem"), "-o", "/dev/null", "-o", "/dev/null",
                                      "-w", "%{tls_session_resumed},", "-v", url, url])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "0,1,")
        #expect(run.err.contains("full handshake"))
        #expect(run.err.contains("session resumed"))
    }

    @Test func aPinMismatchNamesThePinsTheServerPresented() throws {
        let server = try CLI.server(tls: ExitCodeTests.validTLS)
        defer { server.shutdown() }
        let wrong = "sha256//" + String(repeating: "B", count: 43) + "="
        let run = try CourierRun.run(["--cacert", TestCertificates.path("ca.pem"), "--pinnedpubkey", wrong,
                                      "https://localhost:\(server.port)/hello"])
        #expect(run.status == 90)
        #expect(run.err.contains("sha256/"))
    }

    @Test func connectTimeoutIs28InTheConnectPhase() throws {
        // A full accept queue drops SYNs, so a connect hangs (ScriptedServer's recipe): a server
        // that accepts nothing, with its queue filled by connections of the test's own.
        let server = try ScriptedServer(backlog: 0)
        defer { server.shutdown() }
        server.pauseAccepting()
        let fillers = (0..<3).map { _ in LoopbackConnect.started(port: server.port) }
        defer { for descriptor in fillers where descriptor >= 0 { close(descriptor) } }
        let run = try CourierRun.run(["--connect-timeout", "0.3", server.baseURL + "/hello"])
        #expect(run.status == 28, "\(run.err)")
        #expect(run.err.contains("phase connect"))
    }

    @Test func capathTrustsAHashedDirectory() throws {
        guard CLI.installed("openssl") else { return }
        let server = try CLI.server(tls: ExitCodeTests.validTLS)
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        let hash = try Process.run("/usr/bin/openssl", ["x509", "-hash", "-noout", "-in", TestCertificates.path("ca.pem")])
        let name = hash.out.split(separator: "\n").first.map(String.init) ?? ""
        try #require(!name.isEmpty)
        try CLI.write(try #require(CLI.read(TestCertificates.path("ca.pem"))), to: directory + "/" + name + ".0")
        let run = try CourierRun.run(["--capath", directory, "https://localhost:\(server.port)/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "hello")
    }

    @Test func socks5ResolvesLocally() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let socks = try SOCKS5Proxy()
        defer { socks.shutdown() }
        let run = try CourierRun.run(["-x", "socks5://127.0.0.1:\(socks.port)", "http://localhost:\(server.port)/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "hello")
        #expect(socks.destinations.first?.hasPrefix("localhost") == false)
    }
}
