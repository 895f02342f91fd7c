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

    /// An encrypted key: its password after the certificate's name (curl's `--cert file:password`)
    /// or in `--pass`; a wrong one is curl's exit 58 before anything is sent.
    @Test(arguments: [
        (["--cert", "client.pem:courier-test"], Int32(0)),
        (["--cert", "client.pem", "--pass", "courier-test"], Int32(0)),
        (["--cert", "client.pem:wrong"], Int32(58)),
        (["--cert", "client.pem"], Int32(58)),
    ])
    func anEncryptedClientKey(_ flags: [String], _ status: Int32) throws {
        let tls = ServerTLS(certificateChain: "valid-chain.pem", privateKey: "valid.key", clientCA: "ca.pem")
        let server = try CLI.server(tls: tls)
        defer { server.shutdown() }
        let resolved = flags.map { $0.hasPrefix("client.pem") ? TestCertificates.path($0) : $0 }
        let run = try CourierRun.run(["--cacert", TestCertificates.path("ca.pem")] + resolved
            + ["--key", TestCertificates.path("client-encrypted.key"), "https://localhost:\(server.port)/hello"])
        #expect(run.status == status, "\(run.err)")
        if status == 0 {
            #expect(run.out == "hello")
        } else {
            #expect(run.err.contains("client-encrypted.key"), "\(run.err)")
            #expect(server.requests.isEmpty)
        }
    }
}
