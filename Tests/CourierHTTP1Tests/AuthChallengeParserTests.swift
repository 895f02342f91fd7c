import CourierHTTP1
import Testing

/// `WWW-Authenticate` / `Proxy-Authenticate` values fed whole to the RFC 9110 §11.6.1 parser.
@Suite("Authentication challenge parsing")
struct AuthChallengeParserTests {
    static func parse(_ value: String) throws -> [AuthChallenge] {
        try AuthChallenge.parse(Array(value.utf8))
    }

    static func values(_ challenge: AuthChallenge) -> [String: String] {
        Dictionary(uniqueKeysWithValues: challenge.parameters.map { ($0.name.lowercased(), $0.value) })
    }

    @Test func rfc9110ExampleWithTwoChallengesInOneField() throws {
        // RFC 9110 §11.6.1's example: a quoted-string with quoted-pairs, and a second challenge.
        let challenges = try Self.parse(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
        #expect(challenges.map(\.scheme) == ["Newauth", "Basic"])
        #expect(Self.values(challenges[0]) == ["realm": "apps", "type": "1", "title": #"Login to "apps""#])
        #expect(Self.values(challenges[1]) == ["realm": "simple"])
    }

    @Test func digestChallengeOfRFC7616() throws {
        let value = """
            Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, \
            nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", \
            Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, \
            nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
            """
        let challenges = try Self.parse(value)
        #expect(challenges.count == 2)
        #expect(challenges.allSatisfy { $0.hasScheme("digest") })
        #expect(challenges[0][parameter: "ALGORITHM"]?.value == "SHA-256")
        #expect(challenges[1][parameter: "algorithm"]?.value == "MD5")
        #expect(challenges[0][parameter: "qop"]?.value == "auth, auth-int")
        #expect(challenges[1][parameter: "nonce"]?.value == "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v")
    }

    @Test func token68AndBareSchemes() throws {
        let challenges = try Self.parse("Negotiate, Bearer, Custom abc+/def==, Basic realm=x")
        #expect(challenges.map(\.scheme) == ["Negotiate", "Bearer", "Custom", "Basic"])
        #expect(challenges[2].token68 == "abc+/def==")
        #expect(challenges[2].parameters.isEmpty)
        #expect(challenges[3][parameter: "realm"]?.value == "x")
        #expect(try Self.parse("Negotiate YIIGhgYGKwYBBQUCoIIGejCC==")[0].token68 == "YIIGhgYGKwYBBQUCoIIGejCC==")
        // `realm=` alone is a token68 by the grammar, not a parameter without a value.
        #expect(try Self.parse("Basic realm=")[0].token68 == "realm=")
    }

    @Test func whitespaceAndEmptyListElements() throws {
        // BWS around "=", OWS around commas, empty elements (RFC 9110 §5.6.1.2, §11.2).
        let challenges = try Self.parse(" , Basic realm = \"a b\" ,, charset=UTF-8 ,\tDigest realm=r, nonce=n ,")
        #expect(challenges.map(\.scheme) == ["Basic", "Digest"])
        #expect(Self.values(challenges[0]) == ["realm": "a b", "charset": "UTF-8"])
        #expect(Self.values(challenges[1]) == ["realm": "r", "nonce": "n"])
        #expect(try Self.parse("").isEmpty)
        #expect(try Self.parse(" ,, ").isEmpty)
    }

    @Test func quotedPairsKeepExactBytes() throws {
        let challenge = try #require(try Self.parse(#"Basic realm="a\\b\"c\d""#).first)
        #expect(challenge[parameter: "realm"]?.value == #"a\b"cd"#)
        // obs-text is kept byte for byte (RFC 9110 §5.5).
        let latin1: [UInt8] = Array("Basic realm=\"caf".utf8) + [0xE9] + Array("\"".utf8)
        #expect(try AuthChallenge.parse(latin1).first?[parameter: "realm"]?.valueBytes == Array("caf".utf8) + [0xE9])
    }

    @Test func malformedValuesAreRefusedAtTheirByte() {
        let cases: [(String, AuthChallengeError.Reason, Int)] = [
            (#"Basic realm="unterminated"#, .unterminatedQuotedString, 25),
            (#"Basic realm="x\"#, .unterminatedQuotedString, 15),
            ("Basic a=b, realm=", .missingValue, 17),
            ("Basic realm=x y", .unexpectedByte, 14),
            ("=x", .missingScheme, 0),
            ("Basic realm=a, realm=b", .repeatedParameter, 15),
            ("Basic\trealm=a", .unexpectedByte, 5),
            ("Basic realm=\"a\u{01}\"", .unexpectedByte, 14),
        ]
        for (value, reason, offset) in cases {
            #expect(throws: AuthChallengeError(reason: reason, offset: offset), "\(value)") { try Self.parse(value) }
        }
    }

    @Test func severalFieldsAreOneList() {
        let fields = [Array("Basic realm=a".utf8), Array("Digest realm=\"oops".utf8), Array("Digest realm=b, nonce=c".utf8)]
        let challenges = AuthChallenge.parse(fields: fields)
        #expect(challenges.map(\.scheme) == ["Basic", "Digest"], "the malformed field is skipped")
        #expect(challenges[1][parameter: "realm"]?.value == "b")
    }

    @Test func descriptionsNameParametersNotValues() throws {
        let challenge = try #require(try Self.parse(#"Digest realm="secret-realm", nonce="n""#).first)
        #expect(challenge.description == "Digest(realm, nonce)")
    }
}
