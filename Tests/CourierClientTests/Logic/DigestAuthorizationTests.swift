import CourierClient
import CourierHTTP1
import CourierTLS
import Testing

/// Digest access authentication (RFC 7616) without sockets: the §3.9.1 example, the variants,
/// and credentials that would break the header.
@Suite("Digest authorization values")
struct DigestAuthorizationTests {
    static let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
    static let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
    static let opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"

    static func challenge(_ extra: String, realm: String = "http-auth@example.org") throws -> DigestChallenge {
        let value = #"Digest realm="\#(realm)", nonce="\#(nonce)", opaque="\#(opaque)""# + extra
        let parsed = try #require(try AuthChallenge.parse(Array(value.utf8)).first)
        return try DigestChallenge(parsed)
    }

    static func answer(_ challenge: DigestChallenge, user: String = "Mufasa", password: String = "Circle of Life", count: UInt32 = 1) throws -> String {
        try digestAuthorizationValue(
            challenge: challenge, username: user, password: password, method: "GET", uri: "/dir/index.html",
            nonceCount: count, cnonce: cnonce)
    }

    /// The parameters of an Authorization value, parsed back with the challenge parser.
    static func parameters(_ value: String) throws -> [String: String] {
        let parsed = try #require(try AuthChallenge.parse(Array(value.utf8)).first)
        #expect(parsed.hasScheme("Digest"))
        return Dictionary(uniqueKeysWithValues: parsed.parameters.map { ($0.name, $0.value) })
    }

    @Test func rfc7616Section391MD5() throws {
        let value = try Self.answer(try Self.challenge(#", qop="auth, auth-int", algorithm=MD5"#))
        #expect(value == """
            Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=MD5, \
            nonce="\(Self.nonce)", nc=00000001, cnonce="\(Self.cnonce)", qop=auth, \
            response="8ca523f5e9506fed4657c9700eebdbec", opaque="\(Self.opaque)"
            """)
    }

    @Test func rfc7616Section391SHA256() throws {
        let value = try Self.answer(try Self.challenge(#", qop="auth, auth-int", algorithm=SHA-256"#))
        let parameters = try Self.parameters(value)
        #expect(parameters["response"] == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
        #expect(parameters["algorithm"] == "SHA-256")
        #expect(parameters["opaque"] == Self.opaque)
    }

    @Test func noAlgorithmMeansMD5AndNoQopIsTheRFC2069Form() throws {
        let challenge = try Self.challenge("")
        #expect(challenge.algorithm == .md5)
        #expect(!challenge.usesQop)
        let parameters = try Self.parameters(try Self.answer(challenge))
        // response = MD5(HA1 ":" nonce ":" HA2)
        let ha1 = HashFunction.md5.hexHash(Array("Mufasa:http-auth@example.org:Circle of Life".utf8))
        let ha2 = HashFunction.md5.hexHash(Array("GET:/dir/index.html".utf8))
        #expect(parameters["response"] == HashFunction.md5.hexHash(Array("\(ha1):\(Self.nonce):\(ha2)".utf8)))
        #expect(parameters["nc"] == nil && parameters["cnonce"] == nil && parameters["qop"] == nil)
    }

    @Test func sessionVariantsFoldNonceAndCnonceIntoA1() throws {
        let challenge = try Self.challenge(#", qop="auth", algorithm=SHA-256-sess"#)
        #expect(challenge.algorithm == .sha256Session)
        let parameters = try Self.parameters(try Self.answer(challenge, count: 0x1A))
        let h = { (s: String) in HashFunction.sha256.hexHash(Array(s.utf8)) }
        let ha1 = h(h("Mufasa:http-auth@example.org:Circle of Life") + ":\(Self.nonce):\(Self.cnonce)")
        let ha2 = h("GET:/dir/index.html")
        #expect(parameters["response"] == h("\(ha1):\(Self.nonce):0000001a:\(Self.cnonce):auth:\(ha2)"))
        #expect(parameters["nc"] == "0000001a")
        #expect(parameters["algorithm"] == "SHA-256-sess")
    }

    @Test func userhashSendsTheHashedName() throws {
        let challenge = try Self.challenge(#", qop="auth", algorithm=SHA-256, userhash=true"#)
        #expect(challenge.userhash)
        let parameters = try Self.parameters(try Self.answer(challenge))
        #expect(parameters["username"] == HashFunction.sha256.hexHash(Array("Mufasa:http-auth@example.org".utf8)))
        #expect(parameters["userhash"] == "true")
    }

    @Test func nonASCIIUserNamesUseTheExtendedForm() throws {
        // RFC 7616 §3.9.2's user name, sent as username* (RFC 8187) when userhash is off.
        let value = try Self.answer(try Self.challenge(#", qop="auth""#), user: "J\u{E4}s\u{F8}n Doe")
        #expect(value.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm="))
    }

    @Test func quotedValuesAreEscaped() throws {
        let challenge = try Self.challenge(#", qop="auth""#, realm: #"a \"quoted\" \\realm"#)
        #expect(challenge.realmText == #"a "quoted" \realm"#)
        let value = try Self.answer(challenge, user: #"o"brien\"#)
        #expect(value.contains(#"username="o\"brien\\""#))
        #expect(value.contains(#"realm="a \"quoted\" \\realm""#))
        // The parser reads back exactly what was hashed.
        #expect(try Self.parameters(value)["username"] == #"o"brien\"#)
    }

    @Test func controlCharactersInTheUserNameAreRefused() throws {
        let challenge = try Self.challenge(#", qop="auth""#)
        for user in ["evil\r\nX-Injected: 1", "tab\u{7F}", "nul\u{0}"] {
            #expect(throws: DigestAuthorizationError(reason: .controlCharacterInUsername, detail: "username")) {
                try Self.answer(challenge, user: user)
            }
        }
        // The password is only hashed: it never reaches the header.
        #expect(try !Self.answer(challenge, password: "pass\r\nword").contains("pass"))
    }

    @Test func unsupportedChallengesNameWhatIsMissing() throws {
        func reason(_ value: String) -> String? {
            guard let parsed = try? AuthChallenge.parse(Array(value.utf8)).first else { return "unparsed" }
            do { _ = try DigestChallenge(parsed); return nil } catch { return error.detail }
        }
        #expect(reason(#"Digest realm="r", nonce="n", algorithm=SHA-512"#) == "Digest algorithm=SHA-512")
        #expect(reason(#"Digest realm="r", nonce="n", qop="auth-int""#) == "Digest qop=auth-int")
        #expect(reason(#"Digest nonce="n""#) == "Digest without realm")
        #expect(reason(#"Digest realm="r""#) == "Digest without nonce")
        #expect(reason(#"Basic realm="r""#) == "scheme Basic")
        #expect(reason(#"Digest realm="r", nonce="n", algorithm=sha-512-256-SESS, stale=TRUE"#) == nil)
        let stale = try DigestChallenge(try #require(try AuthChallenge.parse(Array(#"Digest realm="r", nonce="n", stale=TRUE"#.utf8)).first))
        #expect(stale.isStale)
    }

    @Test func hashFunctionsMatchKnownVectors() {
        #expect(HashFunction.md5.hexHash(Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(HashFunction.sha256.hexHash(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(HashFunction.sha512_256.hexHash(Array("abc".utf8)) == "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23")
        #expect(makeDigestClientNonce().count == 32)
        #expect(makeDigestClientNonce() != makeDigestClientNonce())
    }
}
