import CCourierOpenSSL
@testable import CourierTLS
import Testing

/// The system trust store is parsed once per process and shared (`SystemTrustStore`).
@Suite("System trust store")
struct SystemTrustStoreTests {
    static func store(of context: TLSContext) -> OpaquePointer? { SSL_CTX_get_cert_store(context.ctx) }

    static func objectCount(_ store: OpaquePointer?) -> Int32 {
        guard let store, let objects = X509_STORE_get0_objects(store) else { return -1 }
        X509_STORE_lock(store)
        defer { X509_STORE_unlock(store) }
        return OPENSSL_sk_num(objects)
    }

    @Test("contexts that trust only the system store share one X509_STORE")
    func shared() throws {
        let first = try TLSContext(configuration: .clientDefault)
        var other = TLSConfiguration.clientDefault
        other.applicationProtocols = ["h2", "http/1.1"]
        other.minimumVersion = .tls1_3
        let second = try TLSContext(configuration: other)
        let system = try SystemTrustStore.shared.get()
        #expect(Self.store(of: first) == system.store)
        #expect(Self.store(of: second) == system.store)
        #expect(Self.objectCount(system.store) > 0, "the system bundle holds certificates")
    }

    @Test("a context adding roots has a store of its own, seeded with the shared certificates")
    func ownStoreForMoreRoots() throws {
        let system = try SystemTrustStore.shared.get()
        let before = Self.objectCount(system.store)
        var configuration = TLSConfiguration.clientDefault
        configuration.trustRoots = [.system, .file(Certificates.path("ca.pem"))]
        let context = try TLSContext(configuration: configuration)
        let own = Self.store(of: context)
        #expect(own != system.store)
        #expect(Self.objectCount(own) >= before + 1, "every system certificate plus ca.pem")
        // ca.pem went into the context's store only.
        let link = try Link(client: TLSContext(configuration: .clientDefault), hostname: "localhost", server: Contexts.server())
        link.handshake()
        #expect(link.clientError?.reason == .certificateVerificationFailed(.untrustedRoot))
        let trusted = try Link(client: context, hostname: "localhost", server: Contexts.server())
        trusted.handshake()
        #expect(trusted.bothComplete, "\(String(describing: trusted.clientError))")
    }

    @Test("in-memory anchors never reach the shared store")
    func anchorsStayPrivate() throws {
        let system = try SystemTrustStore.shared.get()
        var configuration = TLSConfiguration.clientDefault
        configuration.trustRoots.append(.certificates(try TLSCertificate.load(pemFile: Certificates.path("selfsigned.pem"))))
        let pinned = try TLSContext(configuration: configuration)
        #expect(Self.store(of: pinned) != system.store)
        let link = try Link(client: TLSContext(configuration: .clientDefault), hostname: "localhost",
                            server: Contexts.server(chain: "selfsigned.pem", key: "selfsigned.key"))
        link.handshake()
        #expect(link.clientError?.reason == .certificateVerificationFailed(.selfSigned))
    }
}
