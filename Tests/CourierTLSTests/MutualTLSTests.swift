import CourierCore
import CourierTLS
import Testing

@Suite("Mutual TLS")
struct MutualTLSTests {
    /// A server that requires a client certificate issued by the test root.
    static func server(maximum: TLSVersion? = nil) throws -> TLSContext {
        try Contexts.server {
            $0.clientCAFile = Certificates.path("ca.pem")
            $0.maximumVersion = maximum
        }
    }

    @Test("a client with client.pem and its key is accepted", arguments: [TLSVersion.tls1_2, .tls1_3])
    func withCertificate(version: TLSVersion) throws {
        let client = try Contexts.client {
            $0.certificateChainFile = Certificates.path("client.pem")
            $0.privateKeyFile = Certificates.path("client.key")
        }
        let link = try Link(client: client, hostname: "localhost", server: Self.server(maximum: version))
        link.handshake()
        #expect(link.bothComplete, "client \(String(describing: link.clientError)) server \(String(describing: link.serverError))")
        let info = try #require(link.server.connectionInfo)
        #expect(info.negotiatedVersion == version)
        // On the server the peer chain starts with the client's leaf.
        #expect(info.peerChain.map(\.der) == Certificates.der("client.pem"))
        #expect(info.verifiedChain.map(\.subject) == ["/CN=Courier Test Client", "/CN=Courier Test Root"])
        #expect(try link.send(Array("ping".utf8), from: link.client, to: link.server) == Array("ping".utf8))
    }

    /// An encrypted key opens with its password; a password given for a plain key does no harm.
    @Test("a key opens with the password given, and the handshake succeeds", arguments: [
        ("client-encrypted.key", "courier-test"), ("client.key", "unused"),
    ])
    func keyWithPassword(key: String, password: String) throws {
        let client = try Contexts.client {
            $0.certificateChainFile = Certificates.path("client.pem")
            $0.privateKeyFile = Certificates.path(key)
            $0.privateKeyPassword = password
        }
        let link = try Link(client: client, hostname: "localhost", server: Self.server())
        link.handshake()
        #expect(link.bothComplete, "client \(String(describing: link.clientError)) server \(String(describing: link.serverError))")
        #expect(try link.send(Array("ping".utf8), from: link.client, to: link.server) == Array("ping".utf8))
    }

    /// Without a password, or with a wrong one, the key does not load, and nothing is prompted
    /// for (OpenSSL's default would read the terminal).
    @Test("an encrypted key without its password, or with a wrong one, is a configuration error", arguments: [nil, "wrong", ""])
    func encryptedKeyWithoutItsPassword(password: String?) throws {
        do {
            _ = try Contexts.client {
                $0.certificateChainFile = Certificates.path("client.pem")
                $0.privateKeyFile = Certificates.path("client-encrypted.key")
                $0.privateKeyPassword = password
            }
            Issue.record("the key loaded")
        } catch let error as TLSError {
            #expect(error.reason == .configuration)
            let expected = password?.isEmpty == false ? "did not decrypt with the password given" : "is encrypted and no password was given"
            #expect(error.message.contains("client-encrypted.key \(expected)"), "\(error)")
        } catch {
            Issue.record("not a TLSError: \(error)")
        }
    }

    @Test("without a client certificate the server fails the handshake (TLS 1.2: both sides during the handshake)")
    func withoutCertificateTLS12() throws {
        let link = try Link(client: Contexts.client(), hostname: "localhost", server: Self.server(maximum: .tls1_2))
        link.handshake()
        let server = try #require(link.serverError)
        #expect(server.reason == .handshakeFailed)
        #expect(server.message.contains("peer did not return a certificate"), "\(server)")
        let client = try #require(link.clientError)
        #expect(client.reason == .handshakeFailed)
        #expect(client.peerAlert == 40, "\(client)")  // handshake_failure
    }

    @Test("without a client certificate over TLS 1.3 the client learns it on its first read")
    func withoutCertificateTLS13() throws {
        let link = try Link(client: Contexts.client(), hostname: "localhost", server: Self.server())
        link.handshake()
        let server = try #require(link.serverError)
        #expect(server.reason == .handshakeFailed)
        // In TLS 1.3 the client's handshake is over before the server judges its certificate
        // (RFC 8446 §4.4.2.4): the verdict is an alert the client reads afterwards.
        #expect(link.clientError == nil)
        var buffer = ByteBuffer()
        do {
            let result = try link.client.readPlaintext(into: &buffer, maxBytes: 1024)
            Issue.record("read returned \(result) instead of failing")
        } catch {
            #expect(error.reason == .handshakeFailed, "\(error)")
            #expect(error.peerAlert == 116, "\(error)")  // certificate_required
        }
    }

    @Test("a client certificate the server does not trust is rejected with a typed reason")
    func untrustedClientCertificate() throws {
        let client = try Contexts.client {
            $0.certificateChainFile = Certificates.path("selfsigned.pem")
            $0.privateKeyFile = Certificates.path("selfsigned.key")
        }
        let link = try Link(client: client, hostname: "localhost", server: Self.server(maximum: .tls1_2))
        link.handshake()
        let server = try #require(link.serverError)
        #expect(server.reason == .certificateVerificationFailed(.selfSigned), "\(server)")
        #expect(link.clientError?.reason == .handshakeFailed)
    }
}
