import CourierHTTP1
import Testing

/// An independent encoder for the check below: bits as text, six at a time (RFC 4648 §4).
private func referenceBase64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    var bits = bytes.map { b in (0..<8).map { (b >> (7 - $0)) & 1 == 1 ? "1" : "0" }.joined() }.joined()
    while bits.count % 6 != 0 { bits += "0" }
    var out = ""
    var index = bits.startIndex
    while index < bits.endIndex {
        let end = bits.index(index, offsetBy: 6)
        out.append(alphabet[Int(bits[index..<end], radix: 2)!])
        index = end
    }
    while out.count % 4 != 0 { out += "=" }
    return out
}

@Suite("Base64 and Basic authorization")
struct BasicAuthorizationTests {
    @Test(
        "RFC 4648 §10 test vectors",
        arguments: [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ])
    func vectors(_ input: String, _ expected: String) {
        #expect(Base64.encode(input) == expected)
        #expect(Base64.encode(Array(input.utf8)) == expected)
    }

    @Test("the whole alphabet, padding, and agreement with an independent encoder")
    func alphabet() {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.encode([0x00, 0x00, 0x00]) == "AAAA")
        #expect(Base64.encode([0xFF, 0xFF, 0xFF]) == "////")
        let all = (0...255).map(UInt8.init)
        #expect(Base64.encode(all) == referenceBase64(all))
        var state: UInt32 = 12345
        for length in 0..<40 {
            let bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 1_103_515_245 &+ 12345
                return UInt8(truncatingIfNeeded: state >> 16)
            }
            #expect(Base64.encode(bytes) == referenceBase64(bytes), "length \(length)")
        }
    }

    @Test("RFC 7617 examples")
    func rfc7617() throws {
        #expect(try basicAuthorizationValue(username: "Aladdin", password: "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        // §2.1: UTF-8 for "test" / "123£".
        #expect(try basicAuthorizationValue(username: "test", password: "123\u{A3}") == "Basic dGVzdDoxMjPCow==")
        #expect(try basicAuthorizationValue(username: "", password: "") == "Basic Og==")
        // A colon in the password is fine: the first colon splits.
        #expect(try basicAuthorizationValue(username: "user", password: "pa:ss") == "Basic dXNlcjpwYTpzcw==")
    }

    @Test(
        "refused credentials",
        arguments: [
            ("a:b", "x", BasicAuthorizationError.Reason.colonInUsername),
            (":", "", .colonInUsername),
            ("a\nb", "x", .controlCharacterInUsername),
            ("a\u{0}", "x", .controlCharacterInUsername),
            ("a\u{7F}", "x", .controlCharacterInUsername),
            ("a", "x\r", .controlCharacterInPassword),
            ("a", "\t", .controlCharacterInPassword),
        ])
    func refused(_ username: String, _ password: String, _ reason: BasicAuthorizationError.Reason) {
        #expect(throws: BasicAuthorizationError(reason: reason)) {
            try basicAuthorizationValue(username: username, password: password)
        }
    }
}
