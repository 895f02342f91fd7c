import CCourierOpenSSL
import CourierCore
import CourierTLS
import CourierTestSupport
import Testing

/// One rejected server certificate.
struct RejectionCase: Sendable, CustomStringConvertible {
    var chain: String
    var key: String
    var host: String
    var expected: CertificateVerificationFailure
    var description: String { "\(chain) for \(host)" }
}

@Suite("Certificate verification")
struct VerificationTests {
    @Test("a rejected certificate maps to its typed reason", arguments: [
        RejectionCase(chain: "wronghost-chain.pem", key: "wronghost.key", host: "localhost", expected: .hostnameMismatch),
        // CN=localhost and no subjectAltName: a CN-ID, which a client must not use (RFC 9525 §6.3).
        RejectionCase(chain: "cnonly-chain.pem", key: "cnonly.key", host: "localhost", expected: .hostnameMismatch),
        RejectionCase(chain: "valid-chain.pem", key: "valid.key", host: "127.0.0.1", expected: .ipAddressMismatch),
        RejectionCase(chain: "expired-chain.pem", key: "expired.key", host: "localhost", expected: .expired),
        RejectionCase(chain: "notyet-chain.pem", key: "notyet.key", host: "localhost", expected: .notYetValid),
        RejectionCase(chain: "selfsigned.pem", key: "selfsigned.key", host: "localhost", expected: .selfSigned),
        // untrusted-chain.pem holds only the leaf (see make-certs.sh): its issuer, other-ca, is
        // neither sent nor trusted, so OpenSSL stops at X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY (20).
        RejectionCase(chain: "untrusted-chain.pem", key: "untrusted.key", host: "localhost", expected: .untrustedRoot),
    ])
    func rejected(_ c: RejectionCase) throws {
        let link = try Link(client: Contexts.client(), hostname: c.host, server: Contexts.server(chain: c.chain, key: c.key))
        link.handshake()
        let error = try #require(link.clientError)
        #expect(error.reason == .certificateVerificationFailed(c.expected), "\(error)")
        #expect(link.client.connectionInfo == nil)
        // The client's fatal alert reached the server, which fails too.
        let server = try #require(link.serverError)
        #expect(server.reason == .handshakeFailed)
        #expect(server.peerAlert != nil, "\(server)")
        // A failed engine stays failed.
        #expect(throws: error) { try link.client.handshake() }
    }

    @Test("an untrusted chain that includes its self-signed root is selfSignedInChain")
    func untrustedRootSent() throws {
        // The server sends leaf + other-ca. OpenSSL then finds a self-signed certificate at the
        // top of the sent chain that is not a trust anchor: X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN (19).
        let directory = try ScratchDirectory("tls")
        defer { directory.remove() }
        try directory.write("chain.pem", Array((Certificates.text("untrusted-chain.pem") + Certificates.text("other-ca.pem")).utf8))
        let server = try TLSContext(server: TLSServerConfiguration(
            certificateChainFile: directory.path + "/chain.pem", privateKeyFile: Certificates.path("untrusted.key")))
        let link = try Link(client: Contexts.client(), hostname: "localhost", server: server)
        link.handshake()
        #expect(link.clientError?.reason == .certificateVerificationFailed(.selfSignedInChain), "\(String(describing: link.clientError))")
    }

    @Test("with only the system trust store the test chain is untrusted")
    func systemStoreOnly() throws {
        let link = try Link(client: Contexts.client(trust: [.system]), hostname: "localhost", server: Contexts.server())
        link.handshake()
        // The server sends leaf + intermediate; the intermediate's issuer (the test root) is in no
        // system store: X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY (20).
        #expect(link.clientError?.reason == .certificateVerificationFailed(.untrustedRoot), "\(String(describing: link.clientError))")
    }

    @Test("the system store plus ca.pem trusts the test chain")
    func systemStorePlusFile() throws {
        let link = try Link(client: Contexts.client(trust: [.system, .file(Certificates.path("ca.pem"))]),
                            hostname: "localhost", server: Contexts.server())
        link.handshake()
        #expect(link.bothComplete)
    }

    @Test("no trust roots at all rejects even a valid chain")
    func noTrustRoots() throws {
        let link = try Link(client: Contexts.client(trust: []), hostname: "localhost", server: Contexts.server())
        link.handshake()
        #expect(link.clientError?.reason == .certificateVerificationFailed(.untrustedRoot))
    }

    @Test("a hashed CA directory is a trust root")
    func hashedDirectory() throws {
        let directory = try ScratchDirectory("tls")
        defer { directory.remove() }
        // The file name is the subject hash OpenSSL looks up (what `openssl rehash` writes).
        let bio = BIO_new_file(Certificates.path("ca.pem"), "r")
        let x509 = try #require(PEM_read_bio_X509(bio, nil, nil, nil))
        BIO_free(bio)
        let hash = X509_subject_name_hash(x509)
        X509_free(x509)
        var name = String(hash, radix: 16)
        name = String(repeating: "0", count: max(0, 8 - name.count)) + name + ".0"
        try directory.write(name, Array(Certificates.text("ca.pem").utf8))

        let link = try Link(client: Contexts.client(trust: [.directory(directory.path)]), hostname: "localhost", server: Contexts.server())
        link.handshake()
        #expect(link.bothComplete, "\(String(describing: link.clientError))")

        // The same directory without the root's file trusts nothing.
        let empty = try ScratchDirectory("tls")
        defer { empty.remove() }
        let untrusted = try Link(client: Contexts.client(trust: [.directory(empty.path)]), hostname: "localhost", server: Contexts.server())
        untrusted.handshake()
        #expect(untrusted.clientError?.reason == .certificateVerificationFailed(.untrustedRoot))
    }

    @Test(".noHostnameVerification accepts a wrong host name but still rejects an untrusted chain")
    func noHostnameVerification() throws {
        let client = try Contexts.client { $0.verification = .noHostnameVerification }
        let wrongHost = try Link(client: client, hostname: "localhost", server: Contexts.server(chain: "wronghost-chain.pem", key: "wronghost.key"))
        wrongHost.handshake()
        #expect(wrongHost.bothComplete, "\(String(describing: wrongHost.clientError))")
        // SNI is still sent: the server may need it to choose a certificate.
        #expect(wrongHost.server.serverName == "localhost")

        let wrongIP = try Link(client: client, hostname: "127.0.0.1", server: Contexts.server())
        wrongIP.handshake()
        #expect(wrongIP.bothComplete, "\(String(describing: wrongIP.clientError))")

        let untrusted = try Link(client: client, hostname: "localhost", server: Contexts.server(chain: "untrusted-chain.pem", key: "untrusted.key"))
        untrusted.handshake()
        #expect(untrusted.clientError?.reason == .certificateVerificationFailed(.untrustedRoot))
        let expired = try Link(client: client, hostname: "localhost", server: Contexts.server(chain: "expired-chain.pem", key: "expired.key"))
        expired.handshake()
        #expect(expired.clientError?.reason == .certificateVerificationFailed(.expired))
    }

    @Test(".none accepts a self-signed certificate and still exports what the peer sent")
    func verificationNone() throws {
        let link = try Link(client: Contexts.client(trust: []) { $0.verification = .none }, hostname: "wrong.example",
                            server: Contexts.server(chain: "selfsigned.pem", key: "selfsigned.key"))
        link.handshake()
        #expect(link.bothComplete, "\(String(describing: link.clientError))")
        let info = try #require(link.client.connectionInfo)
        #expect(info.peerChain.map(\.der) == Certificates.der("selfsigned.pem"))
        // Nothing was verified, so there is no verified chain for a pinning policy to trust.
        #expect(info.verifiedChain.isEmpty)
    }

    @Test("the default configuration verifies fully against the system store")
    func defaults() {
        let configuration = TLSConfiguration.clientDefault
        #expect(configuration.trustRoots == [.system])
        #expect(configuration.verification == .full)
        #expect(configuration.minimumVersion == .tls1_2)
        #expect(configuration.maximumVersion == nil)
        #expect(configuration.applicationProtocols == ["http/1.1"])
        #expect(TLSVersion.tls1_2 < .tls1_3)
    }
}
