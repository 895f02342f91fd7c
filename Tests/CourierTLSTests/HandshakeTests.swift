import CourierCore
import CourierTLS
import Testing

@Suite("TLS handshake")
struct HandshakeTests {
    @Test("trusting ca.pem, valid-chain verifies for localhost", arguments: [Feeding.whole, .bytewise, .random(seed: 7, maxPiece: 40)])
    func validChainForLocalhost(feeding: Feeding) throws {
        let link = try Link(client: Contexts.client(), hostname: "localhost", server: Contexts.server(), feeding: feeding)
        link.handshake()
        #expect(link.clientError == nil)
        #expect(link.serverError == nil)
        #expect(link.bothComplete)
        let info = try #require(link.client.connectionInfo)
        #expect(info.version == "TLSv1.3")
        #expect(info.negotiatedVersion == .tls1_3)
        #expect(!info.cipher.isEmpty)
        #expect(info.alpn == "http/1.1")
        #expect(info.peerChain.map(\.subject) == ["/CN=localhost", "/CN=Courier Test Intermediate"])
        #expect(info.verifiedChain.map(\.subject) == ["/CN=localhost", "/CN=Courier Test Intermediate", "/CN=Courier Test Root"])
        #expect(link.server.connectionInfo?.alpn == "http/1.1")
    }

    @Test("an IP literal verifies against an IP subjectAltName", arguments: [
        ("127.0.0.1", "ip-chain.pem", "ip.key"), ("::1", "valid-chain.pem", "valid.key"), ("[::1]", "valid-chain.pem", "valid.key"),
    ])
    func ipSubjectAltName(host: String, chain: String, key: String) throws {
        let link = try Link(client: Contexts.client(), hostname: host, server: Contexts.server(chain: chain, key: key))
        link.handshake()
        #expect(link.clientError == nil)
        #expect(link.bothComplete)
    }

    @Test("SNI carries DNS names and never IP literals")
    func serverNameIndication() throws {
        let cases: [(host: String?, chain: String, key: String, expected: String?)] = [
            ("localhost", "valid-chain.pem", "valid.key", "localhost"),
            ("localhost.", "valid-chain.pem", "valid.key", "localhost"),
            ("127.0.0.1", "ip-chain.pem", "ip.key", nil),
            ("[::1]", "valid-chain.pem", "valid.key", nil),
            ("::1", "valid-chain.pem", "valid.key", nil),
            (nil, "valid-chain.pem", "valid.key", nil),
        ]
        for c in cases {
            let link = try Link(client: Contexts.client(), hostname: c.host, server: Contexts.server(chain: c.chain, key: c.key))
            link.handshake()
            #expect(link.bothComplete, "host \(c.host ?? "nil")")
            // Observed on the server: SSL_get_servername after the ClientHello arrived.
            #expect(link.server.serverName == c.expected, "host \(c.host ?? "nil")")
            #expect(link.server.connectionInfo?.serverName == c.expected, "host \(c.host ?? "nil")")
        }
    }

    @Test("an IPv6 literal with a zone is an IP literal: no SNI, checked against IP subjectAltNames")
    func ipv6Zone() throws {
        for host in ["fe80::1%eth0", "[fe80::1%25eth0]"] {
            let link = try Link(client: Contexts.client(), hostname: host, server: Contexts.server())
            link.handshake()
            #expect(link.server.serverName == nil, "\(host)")
            #expect(link.clientError?.reason == .certificateVerificationFailed(.ipAddressMismatch), "\(host)")
        }
    }

    @Test("a server limited to TLS 1.2 works with a client whose minimum is TLS 1.2", arguments: [Feeding.whole, .bytewise])
    func tls12(feeding: Feeding) throws {
        let link = try Link(client: Contexts.client(), hostname: "localhost",
                            server: Contexts.server { $0.maximumVersion = .tls1_2 }, feeding: feeding)
        link.handshake()
        #expect(link.bothComplete)
        #expect(link.client.connectionInfo?.version == "TLSv1.2")
        #expect(link.client.connectionInfo?.negotiatedVersion == .tls1_2)
        #expect(link.client.connectionInfo?.alpn == "http/1.1")
        #expect(try link.send(Array("over 1.2".utf8), from: link.client, to: link.server) == Array("over 1.2".utf8))
    }

    /// A client requiring TLS 1.3 against a server limited to TLS 1.2, and a client limited to
    /// TLS 1.2 against a server requiring TLS 1.3: either way both sides name the mismatch.
    @Test("a version range the server does not share fails as a protocol-version mismatch", arguments: [
        (clientMinimum: TLSVersion.tls1_3, clientMaximum: TLSVersion?.none, serverMinimum: TLSVersion.tls1_2, serverMaximum: TLSVersion?.some(.tls1_2)),
        (clientMinimum: .tls1_2, clientMaximum: .some(.tls1_2), serverMinimum: .tls1_3, serverMaximum: .none),
    ])
    func versionRangesThatDoNotMeet(_ ranges: (clientMinimum: TLSVersion, clientMaximum: TLSVersion?, serverMinimum: TLSVersion, serverMaximum: TLSVersion?)) throws {
        let link = try Link(
            client: Contexts.client { $0.minimumVersion = ranges.clientMinimum; $0.maximumVersion = ranges.clientMaximum },
            hostname: "localhost",
            server: Contexts.server { $0.minimumVersion = ranges.serverMinimum; $0.maximumVersion = ranges.serverMaximum })
        link.handshake()
        let client = try #require(link.clientError)
        let server = try #require(link.serverError)
        #expect(server.reason == .protocolVersionMismatch, "\(server)")
        #expect(client.reason == .protocolVersionMismatch, "\(client)")
        // The side that refuses the other's hello answers with protocol_version (70).
        #expect(client.peerAlert == 70, "\(client)")
    }

    @Test("a client limited to TLS 1.2 against a TLS 1.3 server negotiates 1.2")
    func clientMaximum() throws {
        let link = try Link(client: Contexts.client { $0.maximumVersion = .tls1_2 }, hostname: "localhost", server: Contexts.server())
        link.handshake()
        #expect(link.bothComplete)
        #expect(link.server.connectionInfo?.negotiatedVersion == .tls1_2)
    }

    @Test("ALPN: the server picks its preferred protocol among those offered, or none")
    func alpnNegotiation() throws {
        let cases: [(client: [String], server: [String], expected: String?)] = [
            (["http/1.1"], ["http/1.1"], "http/1.1"),
            (["h2", "http/1.1"], ["http/1.1", "h2"], "http/1.1"),
            (["http/1.1"], ["h2"], nil),
            ([], ["http/1.1"], nil),
            (["http/1.1"], [], nil),
        ]
        for c in cases {
            let link = try Link(client: Contexts.client { $0.applicationProtocols = c.client }, hostname: "localhost",
                                server: Contexts.server { $0.applicationProtocols = c.server })
            link.handshake()
            #expect(link.bothComplete, "\(c.client) vs \(c.server)")
            #expect(link.client.connectionInfo?.alpn == c.expected, "\(c.client) vs \(c.server)")
            #expect(link.server.connectionInfo?.alpn == c.expected, "\(c.client) vs \(c.server)")
        }
    }

    @Test("a server selecting an ALPN protocol that was not offered fails the handshake with alpnMismatch")
    func alpnMismatch() throws {
        let client = try TLSEngine(context: Contexts.client(), serverHostname: "localhost")
        let server = RawALPNServer(selecting: "h2")
        var outcome: Result<TLSHandshakeState, TLSError> = .success(.inProgress)
        for _ in 0..<10 {
            outcome = Result { () throws(TLSError) in try client.handshake() }
            server.exchange(with: client)
            if case .failure = outcome { break }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the handshake did not fail: \(outcome)")
            return
        }
        #expect(error.reason == .alpnMismatch, "\(error)")
    }

    @Test("connection info is nil before the handshake and reading before it is an invalid state")
    func beforeHandshake() throws {
        let engine = try TLSEngine(context: Contexts.client(), serverHostname: "localhost")
        #expect(engine.connectionInfo == nil)
        #expect(!engine.isHandshakeComplete)
        var buffer = ByteBuffer()
        #expect(throws: TLSError.self) { try engine.readPlaintext(into: &buffer, maxBytes: 10) }
        do {
            _ = try engine.readPlaintext(into: &buffer, maxBytes: 10)
        } catch {
            #expect(error.reason == .invalidState)
        }
        #expect(try engine.handshake() == .inProgress)
        #expect(engine.hasPendingCiphertext)  // the ClientHello
    }
}
