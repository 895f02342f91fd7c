import CourierCore
import CourierTLS
import Testing

@Suite("Peer chain export")
struct CertificateExportTests {
    @Test("the peer chain's DER is the PEM files' DER, and the verified chain ends at ca.pem")
    func derMatchesPEM() throws {
        let link = try Link(client: Contexts.client(), hostname: "localhost", server: Contexts.server())
        link.handshake()
        let info = try #require(link.client.connectionInfo)
        let sent = Certificates.der("valid-chain.pem")
        #expect(sent.count == 2)
        #expect(info.peerChain.map(\.der) == sent)
        #expect(info.verifiedChain.map(\.der) == sent + Certificates.der("ca.pem"))
        #expect(Certificates.der("valid.pem") == [sent[0]])
    }

    @Test("SPKI SHA-256 matches a digest computed without OpenSSL", arguments: ["valid-chain.pem", "ip-chain.pem", "selfsigned.pem"])
    func spkiDigest(chain: String) throws {
        let key = chain.replacingSuffix("-chain.pem", with: ".key").replacingSuffix(".pem", with: ".key")
        let link = try Link(client: Contexts.client(trust: []) { $0.verification = .none }, hostname: nil,
                            server: Contexts.server(chain: chain, key: key))
        link.handshake()
        let info = try #require(link.client.connectionInfo)
        #expect(info.peerChain.count == Certificates.der(chain).count)
        for certificate in info.peerChain {
            // Second route: walk the DER to the SubjectPublicKeyInfo and hash it in Swift.
            let expected = referenceSHA256(subjectPublicKeyInfo(ofCertificate: certificate.der))
            #expect(hex(certificate.spkiSHA256) == hex(expected), "\(certificate.subject)")
            #expect(certificate.spkiSHA256.count == 32)
        }
        // Distinct keys give distinct pins.
        #expect(Set(info.peerChain.map(\.spkiSHA256)).count == info.peerChain.count)
    }

    @Test("the fingerprint and the public SHA-256 helpers match digests computed without OpenSSL", arguments: ["valid-chain.pem", "selfsigned.pem"])
    func publicDigests(chain: String) throws {
        for certificate in try TLSCertificate.load(pemFile: Certificates.path(chain)) {
            #expect(hex(certificate.sha256Fingerprint) == hex(referenceSHA256(certificate.der)), "\(certificate.subject)")
            #expect(TLSCertificate.sha256(certificate.der) == certificate.sha256Fingerprint)
            let spki = subjectPublicKeyInfo(ofCertificate: certificate.der)
            #expect(TLSCertificate.sha256(spki) == certificate.spkiSHA256)
            #expect(try TLSCertificate.spkiSHA256(certificateDER: certificate.der) == referenceSHA256(spki))
        }
        #expect(hex(TLSCertificate.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(throws: TLSError.self) { try TLSCertificate.spkiSHA256(certificateDER: [0x30, 0x03, 0x01, 0x02]) }
    }

    @Test("the reference SHA-256 itself is right (FIPS 180-4 test vectors)")
    func referenceDigest() {
        #expect(hex(referenceSHA256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(referenceSHA256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(referenceSHA256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("certificates load from PEM and parse from DER to the same values as the session exports")
    func loadAndParse() throws {
        let loaded = try TLSCertificate.load(pemFile: Certificates.path("valid-chain.pem"))
        #expect(loaded.map(\.der) == Certificates.der("valid-chain.pem"))
        let link = try Link(client: Contexts.client(), hostname: "localhost", server: Contexts.server())
        link.handshake()
        #expect(link.client.connectionInfo?.peerChain == loaded)
        let parsed = try TLSCertificate(der: loaded[0].der)
        #expect(parsed == loaded[0])
        #expect(parsed.subject == "/CN=localhost")
        #expect(throws: TLSError.self) { try TLSCertificate(der: [0x30, 0x03, 0x01, 0x02]) }
        #expect(throws: TLSError.self) { try TLSCertificate.load(pemFile: Certificates.path("valid.key")) }
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}
