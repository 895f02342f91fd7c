import Courier
import CourierTestSupport
import Testing

/// --cacert, --capath, -k, --pinnedpubkey, --cert/--key.
@Suite struct TLSFlagTests {
    @Test func cacertTrustsTheTestCA() throws {
        let server = try CLI.server(tls: ExitCodeTests.validTLS)
        defer { server.shutdown() }
        let run = try CourierRun.run(["--cacert", TestCertificates.path("ca.pem"), "-w", " %{tls_version} %{time_appconnect}",
                                      "https://localhost:\(server.port)/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.hasPrefix("hello TLS"))
        #expect(!run.out.hasSuffix(" 0.000000"))
    }

    @Test func insecureAcceptsAnUntrustedServer() throws {
        let server = try CLI.server(tls: ExitCodeTests.validTLS)
        defer { server.shutdown() }
        let run = try CourierRun.run(["-k", "https://127.0.0.1:\(server.port)/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "hello")
    }

    @Test func theRightPinPasses() throws {
        let server = try CLI.server(tls: ExitCodeTests.validTLS)
        defer { server.shutdown() }
        let leaf = try #require(SecurityPolicy.certificates(pemFile: TestCertificates.path("valid.pem")).first)
        let pin = SecurityPolicy.publicKeyPin(of: leaf)   // sha256/…
        let curlPin = "sha256//" + pin.dropFirst("sha256/".count)
        let run = try CourierRun.run(["--cacert", TestCertificates.path("ca.pem"), "--pinnedpubkey", curlPin,
                                      "https://localhost:\(server.port)/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "hello")
    }

    @Test func aClientCertificateIsPresented() throws {
        let tls = ServerTLS(certificateChain: "valid-chain.pem", privateKey: "valid.key", clientCA: "ca.pem")
        let server = try CLI.server(tls: tls)
        defer { server.shutdown() }
        let run = try CourierRun.run(["--cacert", TestCertificates.path("ca.pem"), "--cert", TestCertificates.path("client.pem"),
                                      "--key", TestCertificates.path("client.key"), "https://localhost:\(server.port)/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "hello")
    }
}
