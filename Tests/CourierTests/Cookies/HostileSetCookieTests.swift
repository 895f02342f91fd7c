@testable import Courier
import FoundationEssentials
import Testing

/// Hostile `Set-Cookie` lines: each ends in a typed refusal (or a harmless cookie) and never
/// traps, fed whole and cut short at every byte (a line's every prefix and suffix), and the jar
/// stays consistent.
@Suite struct HostileSetCookieTests {
    static let manyAttributes = "a=b" + String(repeating: "; Path=/x; Secure; Domain=example.com; Max-Age=1", count: 2000)

    /// (line, what storing it from https://www.example.com/dir/page says)
    static let lines: [([UInt8], CookieError.Reason?)] = [
        (Array("a=b\u{0}c".utf8), .controlCharacter),
        (Array("a=b; Path=/\u{0}".utf8), .controlCharacter),
        (Array("a=b\r\nSet-Cookie: evil=1".utf8), .controlCharacter),
        (Array("a=b\u{7F}".utf8), .controlCharacter),
        (Array("a=\u{1B}[31m".utf8), .controlCharacter),
        (Array("a=b\tc".utf8), nil),  // HTAB is allowed
        (Array("=".utf8), .emptyNameAndValue),
        (Array("   ;Path=/".utf8), .emptyNameAndValue),
        (Array(("a=" + String(repeating: "x", count: 100_000)).utf8), .tooLarge),
        (Array((String(repeating: "n", count: 4097) + "=").utf8), .tooLarge),
        (Array(manyAttributes.utf8), nil),
        (Array(String(repeating: ";", count: 50_000).utf8), .emptyNameAndValue),
        ([0x61, 0x3D, 0xFF, 0xFE], .notUTF8),
        (Array("a=b; Domain=com".utf8), .publicSuffix),
        (Array("a=b; Domain=evil.org".utf8), .domainMismatch),
        (Array("a=b; Domain=ww.example.com".utf8), .domainMismatch),
        (Array("a=b; Domain=\u{441}\u{43E}m".utf8), .nonASCIIDomain),
        (Array("__Host-a=b; Secure; Path=/dir".utf8), .hostPrefix),
        (Array("__Secure-a=b".utf8), .securePrefix),
        (Array("a=b; SameSite=None".utf8), .sameSiteNoneWithoutSecure),
        (Array("a=b; Expires=Sun, 06 Nov 99999 08:49:37 GMT; Max-Age=-99999999999999999999".utf8), nil),
        (Array("a=b; Path=/\(String(repeating: "../", count: 400))".utf8), nil),
    ]

    @Test func eachLineIsRefusedForItsReason() throws {
        for (line, reason) in Self.lines {
            let jar = testJar()
            let outcome: CookieError.Reason?
            do { try jar.store(setCookie: line, for: httpURL("https://www.example.com/dir/page")); outcome = nil } catch { outcome = error.reason }
            #expect(outcome == reason, "\(String(decoding: line.prefix(60), as: UTF8.self))")
            #expect(jar.count == (reason == nil && !line.starts(with: Array("a=b; Expires".utf8)) ? 1 : 0))
        }
    }

    /// `Fuzz/FailCases/FuzzCookies/path-slash-then-combining-mark`: `Path=/` followed by a
    /// combining mark (U+073B) is a path that starts with "/" (RFC 6265bis §5.6.4 reads the first
    /// octet), though `String.hasPrefix("/")` says no: "/" and the mark are one character. The
    /// jar keeps the attribute's bytes; the fuzzer's check was the one comparing characters.
    @Test func aPathStartingWithSlashThenACombiningMarkKeepsItsBytes() throws {
        let jar = testJar()
        let url = try HTTPURL("http://www.example.com/dir/page")
        let cookie = try jar.store(setCookie: [0x34, 0x3B] + Array("Path=/".utf8) + [0xDC, 0xBB], for: url)
        #expect(Array(cookie.path.utf8) == [0x2F, 0xDC, 0xBB])
        #expect(!cookie.path.hasPrefix("/"), "the premise: as characters, the path does not start with /")
        #expect(cookieField(jar, "http://www.example.com/dir/page") == "", "not on the path")
        // A request's path is compared as its target is sent, percent-encoded: the raw bytes of
        // this path match no request, so the cookie is stored and never sent.
        #expect(cookieField(jar, "http://www.example.com/%DC%BB") == "")
        #expect(jar.count == 1)
    }

    @Test func aSecureCookieFromHTTPIsRefused() {
        let jar = testJar()
        #expect(store(jar, "a=b; Secure", from: "http://www.example.com/") == .secureFromInsecureOrigin)
        #expect(store(jar, "__Host-a=b; Secure; Path=/", from: "http://www.example.com/") == .secureFromInsecureOrigin)
    }

    /// Every prefix and suffix of every line: the parser and the storage model answer with a
    /// cookie or a ``CookieError``, nothing else, and the jar's count agrees with what it holds.
    @Test func everyPrefixAndSuffixOfEachLine() {
        let jar = testJar(limits: .init(cookiesPerDomain: 5, totalCookies: 20))
        let url = httpURL("https://www.example.com/dir/page")
        for (line, _) in Self.lines where line.count < 5000 {
            for cut in 0...line.count {
                for piece in [line[..<cut], line[cut...]] {
                    if let cookie = try? jar.store(setCookie: piece, for: url) {
                        #expect(cookie.name.utf8.count + cookie.value.utf8.count <= 4096)
                        #expect(!cookie.name.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 }))
                        #expect(!cookie.value.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 }))
                    }
                }
            }
        }
        #expect(jar.count == jar.allCookies.count)
        #expect(jar.count <= 20)
        // What is sent has no line breaks whatever was stored.
        let field = cookieField(jar, "https://www.example.com/dir/page")
        #expect(!field.utf8.contains(0x0A) && !field.utf8.contains(0x0D) && !field.utf8.contains(0))
    }
}
