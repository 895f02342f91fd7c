@testable import Courier
import FoundationEssentials
import Testing

/// RFC 6265bis §5.6: parsing one Set-Cookie value.
@Suite struct SetCookieParserTests {
    @Test func nameValueAndAttributes() throws {
        let cookie = try SetCookie.parse(" SID = 31d4d96e407aad42 ; Path=/docs; Domain=.Example.COM; Secure; HttpOnly; SameSite=lax; Max-Age=60; Expires=Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(cookie.name == "SID" && cookie.value == "31d4d96e407aad42")
        #expect(cookie.path == "/docs")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.maxAge == 60)
        #expect(cookie.expires?.timeIntervalSince1970 == CookieDateTests.nov6)
    }

    @Test func withoutAnEqualsSignTheLineIsTheValue() throws {
        let cookie = try SetCookie.parse("justavalue; Path=/")
        #expect(cookie.name == "" && cookie.value == "justavalue")
    }

    @Test func theLastOfEachAttributeCountsAndBadOnesAreIgnored() throws {
        let cookie = try SetCookie.parse("a=b; Path=/one; Path=/two; Domain=; Max-Age=12x; Max-Age=+5; Expires=never; SameSite=Bogus; Unknown=1")
        #expect(cookie.path == "/two")
        #expect(cookie.domain == nil, "an empty Domain is ignored")
        #expect(cookie.maxAge == nil, "neither Max-Age is valid")
        #expect(cookie.expires == nil)
        #expect(cookie.sameSite == .default)
        let negative = try SetCookie.parse("a=b; Max-Age=-1")
        #expect(negative.maxAge == -1)
        let huge = try SetCookie.parse("a=b; Max-Age=99999999999999999999999999")
        #expect(huge.maxAge == .max, "saturated")
    }

    @Test func anAttributeValueOver1024BytesIsIgnored() throws {
        let cookie = try SetCookie.parse("a=b; Path=/" + String(repeating: "p", count: 1024) + "; Domain=example.com")
        #expect(cookie.path == nil)
        #expect(cookie.domain == "example.com")
    }

    @Test func theSizeLimitIsOnNameAndValueTogether() throws {
        let fits = "n=" + String(repeating: "v", count: 4095)
        #expect(try SetCookie.parse(fits).value.utf8.count == 4095)
        #expect(throws: CookieError(.tooLarge)) { try SetCookie.parse("n=" + String(repeating: "v", count: 4096)) }
    }
}
