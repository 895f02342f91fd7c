@testable import Courier
import Dispatch
import FoundationEssentials
import Testing

/// The storage and retrieval models (RFC 6265bis §5.7, §5.8.3) on a jar with a test clock.
@Suite struct CookieJarTests {
    /// The examples of RFC 6265bis §3.1.
    @Test func theRFCExamples() {
        let clock = TestClock()
        let jar = testJar(clock)
        #expect(store(jar, "SID=31d4d96e407aad42", from: "http://example.com/") == nil)
        #expect(cookieField(jar, "http://example.com/") == "SID=31d4d96e407aad42")
        #expect(cookieField(jar, "http://www.example.com/") == "", "host-only")

        let jar2 = testJar(clock)
        store(jar2, "SID=31d4d96e407aad42; Path=/; Domain=example.com", from: "http://example.com/")
        #expect(cookieField(jar2, "http://www.example.com/x") == "SID=31d4d96e407aad42", "a Domain attribute covers subdomains")

        let jar3 = testJar(clock)
        store(jar3, "SID=31d4d96e407aad42; Path=/; Secure; HttpOnly", from: "https://example.com/")
        store(jar3, "lang=en-US; Path=/; Domain=example.com", from: "https://example.com/")
        #expect(cookieField(jar3, "https://example.com/") == "SID=31d4d96e407aad42; lang=en-US")
        #expect(cookieField(jar3, "http://example.com/") == "lang=en-US", "a Secure cookie only over https")
        // "lang=en-US; Expires=Wed, 09 Jun 2021 10:18:14 GMT" then an Expires in the past removes it.
        store(jar3, "lang=; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Domain=example.com; Path=/", from: "https://example.com/")
        #expect(cookieField(jar3, "https://example.com/") == "SID=31d4d96e407aad42")
    }

    @Test func longerPathsFirstThenEarlierCreation() {
        let clock = TestClock()
        let jar = testJar(clock)
        store(jar, "a=1; Path=/", from: "http://example.com/")
        clock.advance(1)
        store(jar, "b=2; Path=/docs", from: "http://example.com/")
        clock.advance(1)
        store(jar, "c=3; Path=/", from: "http://example.com/")
        store(jar, "d=4; Path=/docs/api", from: "http://example.com/")
        #expect(cookieField(jar, "http://example.com/docs/api/x") == "d=4; b=2; a=1; c=3")
        #expect(cookieField(jar, "http://example.com/docsearch") == "a=1; c=3", "a path matches at a / boundary only")
        // A replacement keeps the creation time of what it replaced (§5.7 step 20).
        clock.advance(1)
        store(jar, "a=new; Path=/", from: "http://example.com/")
        #expect(cookieField(jar, "http://example.com/") == "a=new; c=3")
    }

    @Test func theDefaultPathIsTheRequestsDirectory() {
        let jar = testJar()
        store(jar, "a=1", from: "http://example.com/docs/page.html")
        store(jar, "b=2; Path=relative", from: "http://example.com/docs/page.html")
        #expect(jar.allCookies.map(\.path).sorted() == ["/docs", "/docs"])
        #expect(cookieField(jar, "http://example.com/") == "")
        #expect(CookieMatching.defaultPath("") == "/")
        #expect(CookieMatching.defaultPath("/x") == "/")
        #expect(CookieMatching.defaultPath("/a/b/c") == "/a/b")
    }

    @Test func maxAgeWinsOverExpiresAndLifetimesAreCapped() throws {
        let clock = TestClock()
        let jar = testJar(clock)
        let cookie = try jar.store(setCookie: "a=1; Max-Age=10; Expires=Sun, 06 Nov 1994 08:49:37 GMT", for: httpURL("http://example.com/"))
        #expect(cookie.expires == clock.now.addingTimeInterval(10))
        let expiresFirst = try jar.store(setCookie: "b=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=10", for: httpURL("http://example.com/"))
        #expect(expiresFirst.expires == clock.now.addingTimeInterval(10), "whatever the order")
        let long = try jar.store(setCookie: "c=1; Max-Age=999999999", for: httpURL("http://example.com/"))
        #expect(long.expires == clock.now.addingTimeInterval(400 * 86_400), "400 days at most (§5.5)")
        #expect(cookieField(jar, "http://example.com/") == "a=1; b=1; c=1")
        clock.advance(11)
        #expect(cookieField(jar, "http://example.com/") == "c=1", "expired cookies are not sent")
        store(jar, "c=gone; Max-Age=0", from: "http://example.com/")
        #expect(cookieField(jar, "http://example.com/") == "")
        #expect(jar.count == 0)
    }

    @Test func domainAttributesForOtherSitesAndPublicSuffixesAreRefused() {
        let jar = testJar()
        #expect(store(jar, "a=1; Domain=other.org", from: "http://example.com/") == .domainMismatch)
        #expect(store(jar, "a=1; Domain=ample.com", from: "http://example.com/") == .domainMismatch)
        #expect(store(jar, "a=1; Domain=www.example.com", from: "http://example.com/") == .domainMismatch, "a subdomain of the host")
        #expect(store(jar, "a=1; Domain=com", from: "http://example.com/") == .publicSuffix)
        #expect(store(jar, "a=1; Domain=.com", from: "http://example.com/") == .publicSuffix)
        #expect(store(jar, "a=1; Domain=co.uk", from: "http://www.example.co.uk/") == .publicSuffix)
        #expect(store(jar, "a=1; Domain=127.0.0.1", from: "http://127.0.0.1/") == nil, "an IP address: its own")
        #expect(store(jar, "a=1; Domain=0.0.1", from: "http://127.0.0.1/") == .domainMismatch, "no parent domains for an IP address")
        #expect(store(jar, "a=1; Domain=exämple.com", from: "http://example.com/") == .nonASCIIDomain)
        #expect(store(jar, "a=1; Domain=EXAMPLE.com", from: "http://www.example.com/") == nil)
        // A public suffix naming the host itself makes a host-only cookie (§5.7 step 6).
        #expect(store(jar, "b=1; Domain=localhost", from: "http://localhost/") == nil)
        #expect(jar.allCookies.first { $0.name == "b" }?.isHostOnly == true)
        if PublicSuffixList.system.isFullList {
            #expect(store(jar, "a=1; Domain=github.io", from: "http://me.github.io/") == .publicSuffix, "a private suffix")
        }
    }

    @Test func theConservativeRuleWithoutAList() {
        let list = PublicSuffixList.conservative
        #expect(!list.isFullList)
        #expect(list.isPublicSuffix("com") && list.isPublicSuffix("localhost"))
        #expect(list.isPublicSuffix("co.uk") && list.isPublicSuffix("com.au") && list.isPublicSuffix("ac.jp"))
        #expect(!list.isPublicSuffix("example.com") && !list.isPublicSuffix("example.co.uk") && !list.isPublicSuffix("bbc.uk"))
        let jar = testJar(suffixes: list)
        #expect(store(jar, "a=1; Domain=co.uk", from: "http://www.example.co.uk/") == .publicSuffix)
        #expect(store(jar, "a=1; Domain=example.co.uk", from: "http://www.example.co.uk/") == nil)
    }

    @Test func theListFormat() throws {
        let list = try #require(PublicSuffixList(listText: "// comment\ncom\nuk\nco.uk\n*.ck\n!www.ck\n"))
        #expect(list.isPublicSuffix("co.uk") && list.isPublicSuffix("anything.ck") && !list.isPublicSuffix("www.ck"))
        #expect(!list.isPublicSuffix("example.com") && list.isPublicSuffix("unlisted"))
        #expect(PublicSuffixList(listText: "// only comments\n") == nil)
    }

    @Test func secureAndPrefixRules() {
        let jar = testJar()
        #expect(store(jar, "a=1; Secure", from: "http://example.com/") == .secureFromInsecureOrigin)
        #expect(store(jar, "a=1; SameSite=None", from: "https://example.com/") == .sameSiteNoneWithoutSecure)
        #expect(store(jar, "__Secure-a=1", from: "https://example.com/") == .securePrefix)
        #expect(store(jar, "__secure-a=1", from: "https://example.com/") == .securePrefix, "case-insensitive")
        #expect(store(jar, "__Secure-a=1; Secure", from: "https://example.com/") == nil)
        #expect(store(jar, "__Host-a=1; Secure", from: "https://example.com/") == .hostPrefix, "no Path=/")
        #expect(store(jar, "__Host-a=1; Secure; Path=/; Domain=example.com", from: "https://example.com/") == .hostPrefix)
        #expect(store(jar, "__Host-a=1; Path=/", from: "https://example.com/") == .hostPrefix)
        #expect(store(jar, "__Host-a=1; Secure; Path=/", from: "https://example.com/") == nil)
        #expect(store(jar, "__Host-x", from: "https://example.com/") == .prefixInNamelessValue)
        #expect(store(jar, "s=1; SameSite=None; Secure", from: "https://example.com/") == nil)
        // A non-secure cookie from http cannot shadow a secure one (§5.7 step 13).
        #expect(store(jar, "s=2", from: "http://example.com/") == .overwritesSecureCookie)
        #expect(store(jar, "s=2; Domain=example.com", from: "http://www.example.com/") == .overwritesSecureCookie)
        #expect(store(jar, "s=2; Path=/other", from: "http://example.com/other") == .overwritesSecureCookie)
        #expect(cookieField(jar, "https://example.com/") == "__Secure-a=1; __Host-a=1; s=1")
    }

    @Test func thePerDomainLimitEvictsTheLeastRecentlyUsedNonSecureFirst() {
        let clock = TestClock()
        let jar = testJar(clock, limits: .init(cookiesPerDomain: 3, totalCookies: 100))
        store(jar, "secure=1; Secure", from: "https://example.com/")
        clock.advance(1)
        store(jar, "a=1", from: "https://example.com/")
        clock.advance(1)
        store(jar, "b=1", from: "https://example.com/")
        clock.advance(1)
        store(jar, "c=1", from: "https://example.com/")
        #expect(cookieField(jar, "https://example.com/") == "secure=1; b=1; c=1", "a, the oldest non-secure, went")
        clock.advance(1)
        #expect(jar.cookies(for: httpURL("https://example.com/")).count == 3)
        store(jar, "d=1", from: "https://example.com/")  // all equally recent now: the oldest stored non-secure
        #expect(jar.count == 3)
        #expect(cookieField(jar, "https://example.com/").contains("secure=1"))
    }

    @Test func theTotalLimitEvictsTheLeastRecentlyUsed() {
        let clock = TestClock()
        let jar = testJar(clock, limits: .init(cookiesPerDomain: 50, totalCookies: 3))
        for host in ["a.example", "b.example", "c.example", "d.example"] {
            store(jar, "k=1", from: "http://\(host)/")
            clock.advance(1)
        }
        #expect(jar.count == 3)
        #expect(cookieField(jar, "http://a.example/") == "")
        #expect(cookieField(jar, "http://d.example/") == "k=1")
    }

    @Test func theDefaultLimitsAreTheRFCs() {
        let jar = testJar()
        for i in 0..<60 { store(jar, "n\(i)=v", from: "http://example.com/") }
        #expect(jar.count == 50)
        #expect(CookieJar.Limits().totalCookies == 3000)
    }

    @Test func aLookupReadsOnlyTheHostsDomains() {
        #expect(CookieMatching.candidateDomains(of: "a.b.example.com", isIPAddress: false) == ["a.b.example.com", "b.example.com", "example.com", "com"])
        #expect(CookieMatching.candidateDomains(of: "127.0.0.1", isIPAddress: true) == ["127.0.0.1"])
        #expect(CookieMatching.domainMatches(host: "www.example.com", isIPAddress: false, domain: "example.com"))
        #expect(!CookieMatching.domainMatches(host: "wwwexample.com", isIPAddress: false, domain: "example.com"))
        #expect(!CookieMatching.domainMatches(host: "1.2.3.4", isIPAddress: true, domain: "2.3.4"))
    }

    @Test func sessionCookiesAndRemoval() {
        let jar = testJar()
        store(jar, "session=1", from: "http://example.com/")
        store(jar, "persistent=1; Max-Age=100", from: "http://example.com/")
        jar.removeSessionCookies()
        #expect(cookieField(jar, "http://example.com/") == "persistent=1")
        jar.removeAll()
        #expect(jar.count == 0)
    }

    @Test func unixSocketURLsAndOverlongHostsHaveNoCookies() {
        let jar = testJar()
        #expect(store(jar, "a=1", from: "http+unix://%2Ftmp%2Fs.sock/") == .unsupportedURL)
        #expect(cookieField(jar, "http+unix://%2Ftmp%2Fs.sock/") == "")
        let long = String(repeating: "a.", count: 200) + "example.com"
        #expect(store(jar, "a=1", from: "http://\(long)/") == .unsupportedURL)
        #expect(cookieField(jar, "http://\(long)/") == "")
    }

    /// Stores and lookups from many threads at once (the jar's one lock; TSan checks it).
    @Test func concurrentStoresAndLookups() {
        let jar = testJar(limits: .init(cookiesPerDomain: 20, totalCookies: 200))
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<200 {
                let host = "h\(i % 7).example.com"
                store(jar, "c\(thread)-\(i % 30)=v; Domain=example.com", from: "http://\(host)/")
                _ = jar.cookieFieldValue(for: httpURL("http://\(host)/x"))
            }
        }
        #expect(jar.count == jar.allCookies.count)
        #expect(jar.count <= 20, "one domain field: the per-domain limit holds")
    }

    @Test func theCallersCookieFieldIsMerged() {
        #expect(CookieFieldMerge.merge(caller: [], stored: "a=1; b=2") == "a=1; b=2")
        #expect(CookieFieldMerge.merge(caller: ["b=mine"], stored: "a=1; b=2") == "b=mine; a=1")
        #expect(CookieFieldMerge.merge(caller: ["a=x", "b=y"], stored: "a=1; b=2") == nil, "nothing to add")
    }
}
