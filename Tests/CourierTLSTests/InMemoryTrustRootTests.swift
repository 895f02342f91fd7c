import CourierCore
import CourierTLS
import Testing

/// `TrustRoot.certificates`: anchors held in memory (what certificate pinning uses), and
/// `TLSCertificate.matches(host:)`.
@Suite("In-memory trust anchors")
struct InMemoryTrustRootTests {
    static func certificate(_ name: String, _ index: Int = 0) throws -> TLSCertificate {
        try TLSCertificate.load(pemFile: Certificates.path(name))[index]
    }

    static func client(_ roots: [TrustRoot], verification: CertificateVerification = .full) throws -> TLSContext {
        var configuration = TLSConfiguration()
        configuration.trustRoots = roots
        configuration.verification = verification
        return try TLSContext(configuration: configuration)
    }

    static func handshake(roots: [TrustRoot], chain: String, key: String, host: String = "localhost") throws -> Link {
        let server = try TLSContext(server: TLSServerConfiguration(
            certificateChainFile: Certificates.path(chain), privateKeyFile: Certificates.path(key)))
        let link = try Link(client: client(roots), hostname: host, server: server)
        link.handshake()
        return link
    }

    @Test("the test root in memory works like the same root from a file")
    func rootInMemory() throws {
        let link = try Self.handshake(roots: [.certificates([Self.certificate("ca.pem")])], chain: "valid-chain.pem", key: "valid.key")
        #expect(link.bothComplete, "\(String(describing: link.clientError))")
        let verified = try #require(link.client.connectionInfo?.verifiedChain)
        #expect(verified.map(\.subject) == ["/CN=localhost", "/CN=Courier Test Intermediate", "/CN=Courier Test Root"])
    }

    @Test("an intermediate is an anchor by itself (partial chain)")
    func intermediateAnchor() throws {
        let link = try Self.handshake(
            roots: [.certificates([Self.certificate("intermediate.pem")])], chain: "valid-chain.pem", key: "valid.key")
        #expect(link.bothComplete, "\(String(describing: link.clientError))")
        #expect(link.client.connectionInfo?.verifiedChain.map(\.subject) == ["/CN=localhost", "/CN=Courier Test Intermediate"])
    }

    @Test("a leaf whose CA nobody trusts is an anchor by itself")
    func leafAnchor() throws {
        let link = try Self.handshake(
            roots: [.certificates([Self.certificate("untrusted.pem")])], chain: "untrusted-chain.pem", key: "untrusted.key")
        #expect(link.bothComplete, "\(String(describing: link.clientError))")
        #expect(link.client.connectionInfo?.verifiedChain.map(\.subject) == ["/CN=localhost"])
    }

    @Test("anchors still check validity and the host name")
    func anchorsStillCheck() throws {
        let expired = try Self.handshake(
            roots: [.certificates([Self.certificate("expired.pem")])], chain: "expired-chain.pem", key: "expired.key")
        #expect(expired.clientError?.reason == .certificateVerificationFailed(.expired), "\(String(describing: expired.clientError))")
        let wrongHost = try Self.handshake(
            roots: [.certificates([Self.certificate("ca.pem")])], chain: "wronghost-chain.pem", key: "wronghost.key")
        #expect(wrongHost.clientError?.reason == .certificateVerificationFailed(.hostnameMismatch))
    }

    @Test("an unrelated anchor does not make a chain trusted")
    func unrelatedAnchor() throws {
        let link = try Self.handshake(
            roots: [.certificates([Self.certificate("other-ca.pem")])], chain: "valid-chain.pem", key: "valid.key")
        #expect(link.clientError?.reason == .certificateVerificationFailed(.untrustedRoot), "\(String(describing: link.clientError))")
    }

    @Test("an empty anchor list is a configuration error")
    func emptyAnchors() throws {
        #expect(throws: TLSError.self) { try Self.client([.certificates([])]) }
        #expect((try? Self.client([.certificates([])])) == nil)
    }

    @Test("configurations with different anchors differ (pool and context cache keys)")
    func hashable() throws {
        var a = TLSConfiguration()
        a.trustRoots = [.certificates([try Self.certificate("ca.pem")])]
        var b = a
        #expect(a == b)
        b.trustRoots = [.certificates([try Self.certificate("intermediate.pem")])]
        #expect(a != b)
    }

    @Test("matches(host:) follows the subjectAltNames")
    func hostMatching() throws {
        let valid = try Self.certificate("valid.pem")  // DNS:localhost, IP:::1
        #expect(valid.matches(host: "localhost"))
        #expect(valid.matches(host: "LOCALHOST"))
        #expect(valid.matches(host: "localhost."))
        #expect(valid.matches(host: "::1"))
        #expect(valid.matches(host: "[::1]"))
        #expect(!valid.matches(host: "127.0.0.1"))
        #expect(!valid.matches(host: "example.com"))
        #expect(!valid.matches(host: ""))
        let ip = try Self.certificate("ip.pem")  // IP:127.0.0.1 only
        #expect(ip.matches(host: "127.0.0.1"))
        #expect(!ip.matches(host: "localhost"))
        let wrong = try Self.certificate("wronghost.pem")
        #expect(wrong.matches(host: "wrong.example"))
        #expect(!wrong.matches(host: "localhost"))
        // A subject Common Name is never a reference identity (RFC 9525 §6.3, RFC 9110 §4.3.4).
        let cnOnly = try Self.certificate("cnonly.pem")  // CN=localhost, no subjectAltName
        #expect(!cnOnly.matches(host: "localhost"))
        #expect(!cnOnly.matches(host: "LOCALHOST"))
    }
}
