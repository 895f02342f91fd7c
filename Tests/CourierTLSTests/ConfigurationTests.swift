import CourierCore
import CourierTLS
import Testing

@Suite("TLS configuration errors")
struct ConfigurationTests {
    static func expectConfigurationError(_ message: String? = nil, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch {
            guard let error = error as? TLSError else {
                Issue.record("not a TLSError: \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(error.reason == .configuration, "\(error)", sourceLocation: sourceLocation)
            if let message {
                #expect(error.message.contains(message), "\(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("missing files are configuration errors")
    func missingFiles() {
        let missing = Certificates.path("does-not-exist.pem")
        Self.expectConfigurationError("cannot load certificate chain") {
            _ = try TLSContext(server: TLSServerConfiguration(certificateChainFile: missing, privateKeyFile: Certificates.path("valid.key")))
        }
        Self.expectConfigurationError("cannot load private key") {
            _ = try TLSContext(server: TLSServerConfiguration(certificateChainFile: Certificates.path("valid-chain.pem"), privateKeyFile: missing))
        }
        Self.expectConfigurationError("cannot load CA file") {
            var configuration = TLSConfiguration()
            configuration.trustRoots = [.file(missing)]
            _ = try TLSContext(configuration: configuration)
        }
        Self.expectConfigurationError("does not exist") {
            var configuration = TLSConfiguration()
            configuration.trustRoots = [.directory(missing)]
            _ = try TLSContext(configuration: configuration)
        }
        Self.expectConfigurationError("cannot load client CA file") {
            var configuration = TLSServerConfiguration(certificateChainFile: Certificates.path("valid-chain.pem"), privateKeyFile: Certificates.path("valid.key"))
            configuration.clientCAFile = missing
            _ = try TLSContext(server: configuration)
        }
    }

    @Test("a key that does not match the certificate is a configuration error")
    func keyMismatch() {
        Self.expectConfigurationError("does not match") {
            _ = try TLSContext(server: TLSServerConfiguration(
                certificateChainFile: Certificates.path("valid-chain.pem"), privateKeyFile: Certificates.path("ip.key")))
        }
        Self.expectConfigurationError("does not match") {
            var configuration = TLSConfiguration()
            configuration.certificateChainFile = Certificates.path("client.pem")
            configuration.privateKeyFile = Certificates.path("valid.key")
            _ = try TLSContext(configuration: configuration)
        }
    }

    @Test("a certificate file that is a key, a chain without a key, and bad ALPN names are rejected")
    func malformed() {
        Self.expectConfigurationError {
            _ = try TLSContext(server: TLSServerConfiguration(
                certificateChainFile: Certificates.path("valid.key"), privateKeyFile: Certificates.path("valid.key")))
        }
        Self.expectConfigurationError("both") {
            var configuration = TLSConfiguration()
            configuration.certificateChainFile = Certificates.path("client.pem")
            _ = try TLSContext(configuration: configuration)
        }
        Self.expectConfigurationError("ALPN") {
            var configuration = TLSConfiguration()
            configuration.applicationProtocols = [""]
            _ = try TLSContext(configuration: configuration)
        }
        Self.expectConfigurationError("ALPN") {
            var configuration = TLSConfiguration()
            configuration.applicationProtocols = [String(repeating: "x", count: 256)]
            _ = try TLSContext(configuration: configuration)
        }
        Self.expectConfigurationError("below minimum") {
            var configuration = TLSConfiguration()
            configuration.minimumVersion = .tls1_3
            configuration.maximumVersion = .tls1_2
            _ = try TLSContext(configuration: configuration)
        }
    }

    @Test("a bracketed host that is not an IPv6 address is rejected")
    func bracketedName() throws {
        let context = try Contexts.client()
        Self.expectConfigurationError("not an IPv6 address") { _ = try TLSEngine(context: context, serverHostname: "[localhost]") }
        // An empty name means no name: no SNI and no name check.
        let link = try Link(client: TLSEngine(context: context, serverHostname: ""), server: TLSEngine(serverContext: Contexts.server()))
        link.handshake()
        #expect(link.bothComplete)
        #expect(link.server.serverName == nil)
    }

    @Test("a context is shared by many sessions, also across threads")
    func sharedContext() async throws {
        let client = try Contexts.client()
        let server = try Contexts.server()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let link = try Link(client: client, hostname: "localhost", server: server)
                    link.handshake()
                    return link.bothComplete
                }
            }
            for try await complete in group { #expect(complete) }
        }
    }
}
