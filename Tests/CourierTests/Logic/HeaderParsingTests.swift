@testable import Courier
import FoundationEssentials
import Testing

/// The small parsers of response header values the session layer owns.
@Suite struct HeaderParsingTests {
    static let url = URL(string: "https://example.test:8443/a")!

    static func response(_ status: Int, _ fields: HTTPFields) -> Response {
        Response(url: url, statusCode: status, headers: fields)
    }

    @Test(arguments: [
        ("bytes 100-199/1000", 100, 1000),
        ("bytes 0-0/1", 0, 1),
        ("BYTES 5-9/*", 5, -1),
        ("  bytes 7-7/8  ", 7, 8),
    ])
    func contentRangeIsParsed(_ value: String, _ first: Int64, _ complete: Int64) throws {
        let range = try #require(ResumeData.contentRangeStart(value))
        #expect(range.first == first && range.complete == complete)
    }

    @Test(arguments: ["bytes 10-5/100", "bytes 0-9/5", "bytes -1-9/100", "bytes +1-9/100", "bytes 1-9/+100", "bytes 1-2-3/9", "items 0-9/100", "bytes 0-9", "bytes x-9/100", "", "bytes 0-99999999999999999999/1"])
    func malformedContentRangesAreRefused(_ value: String) {
        #expect(ResumeData.contentRangeStart(value) == nil)
    }

    @Test func strongETagsAreValidatorsWeakOnesAreNot() {
        #expect(ResumeData.validator(of: Self.response(200, ["ETag": "\"v1\""])) == "\"v1\"")
        #expect(ResumeData.validator(of: Self.response(200, ["ETag": "W/\"v1\""])) == nil)
        #expect(ResumeData.validator(of: Self.response(200, ["ETag": "W/\"v1\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]))
            == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func resumeDataRoundTripsAndRefusesGarbage() throws {
        let resume = ResumeData(url: "http://a/b", method: "GET", headers: [["X", "1"]], timeoutInterval: 60,
                                temporaryFilePath: "/nonexistent", bytesReceived: 42, validator: "\"e\"")
        #expect(ResumeData.decode(try #require(resume.encoded())) == resume)
        #expect(ResumeData.decode(Data("{}".utf8)) == nil)
        #expect(ResumeData.decode(Data([0xff, 0x00])) == nil)
        var future = resume
        future.version = 99
        #expect(ResumeData.decode(try #require(future.encoded())) == nil, "an unknown version is refused")
    }

    @Test func challengesNameTheirSchemeAndRealm() throws {
        let basic = try #require(AuthenticationChallenge.parse(
            Self.response(401, ["WWW-Authenticate": #"Basic realm="Staff \"only\"", charset="UTF-8""#]), previousFailureCount: 2))
        #expect(basic.scheme == "Basic")
        #expect(basic.realm == #"Staff "only""#)
        #expect(basic.previousFailureCount == 2 && !basic.isProxy)
        #expect(basic.host == "example.test" && basic.port == 8443)
        let proxy = try #require(AuthenticationChallenge.parse(Self.response(407, ["Proxy-Authenticate": "Digest REALM=proxy, nonce=1"]), previousFailureCount: 0))
        #expect(proxy.isProxy && proxy.scheme == "Digest" && proxy.realm == "proxy")
        #expect(AuthenticationChallenge.parse(Self.response(401, [:]), previousFailureCount: 0) == nil, "no challenge, nothing to answer")
        #expect(AuthenticationChallenge.parse(Self.response(403, ["WWW-Authenticate": "Basic"]), previousFailureCount: 0) == nil)
        #expect(AuthenticationChallenge.realm(in: #"Basic realm="unterminated"#) == nil)
    }

    @Test func contentCodingsOtherThanIdentityHideTheDecodedSize() {
        #expect(Self.response(200, ["Content-Encoding": "gzip"]).hasContentCoding)
        #expect(Self.response(200, ["Content-Encoding": "identity, gzip"]).hasContentCoding)
        #expect(!Self.response(200, ["Content-Encoding": "identity"]).hasContentCoding)
        #expect(!Self.response(200, [:]).hasContentCoding)
    }

    @Test func httpDatesFollowIMFFixdate() throws {
        let date = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(date.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT")?.timeIntervalSince1970 == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:60 GMT") != nil, "leap day and leap second")
        for bad in ["Sun, 06 Nov 999999999999 08:49:37 GMT", "Sun, 06 Nov 10000 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT", "", "Sun, 06 Foo 1994 08:49:37 GMT",
                    "Sun, 29 Feb 2027 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
                    "Sun, 06 Nov +994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sun Nov   6 08:49:37 1994", "Sun Nov  6 08:49:37 94"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    /// The IMF-fixdate form is read byte by byte at fixed offsets: a wrong byte at any offset
    /// (a separator, a letter of a name, a digit) makes the value invalid, never another date.
    @Test func everyByteOfAnIMFFixdateIsChecked() {
        let valid = Array("Sun, 06 Nov 1994 08:49:37 GMT".utf8)
        let digitOffsets: Set<Int> = [5, 6, 12, 13, 14, 15, 17, 18, 20, 21, 23, 24]
        for offset in valid.indices {
            for replacement: UInt8 in [0x20, 0x2F, 0x3A, 0x41, 0x7A, 0x00, 0x7F] where replacement != valid[offset] {
                var bytes = valid
                bytes[offset] = replacement
                let text = String(decoding: bytes, as: UTF8.self)
                // A space at either end is trimmed (OWS), which changes the length: still invalid.
                #expect(HTTPDate.parse(text) == nil, "byte \(offset) → \(replacement): \(text)")
            }
            if digitOffsets.contains(offset) {
                var bytes = valid
                bytes[offset] = UInt8(ascii: "0") + (valid[offset] - UInt8(ascii: "0") + 1) % 10
                let text = String(decoding: bytes, as: UTF8.self)
                if let parsed = HTTPDate.parse(text) {
                    #expect(parsed != HTTPDate.parse(String(decoding: valid, as: UTF8.self)), "\(text)")
                }
            }
        }
    }

    /// RFC 9110 §5.6.7: "A recipient that parses a timestamp value in an HTTP field MUST accept
    /// all three HTTP-date formats." (These two were refused before; the RFC says otherwise.)
    @Test func httpDatesInTheObsoleteFormatsAreAccepted() throws {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.parse("Wed Nov 16 08:49:37 1994")?.timeIntervalSince1970 == 784_975_777)
        // A two-digit year more than 50 years ahead is the previous century's.
        let in2026 = try #require(HTTPDate.parse("Thu, 26 Nov 2026 00:00:00 GMT"))
        #expect(HTTPDate.parse("Monday, 01-Jan-76 00:00:00 GMT", now: in2026) == HTTPDate.parse("Thu, 01 Jan 2076 00:00:00 GMT"))
        #expect(HTTPDate.parse("Monday, 01-Jan-77 00:00:00 GMT", now: in2026) == HTTPDate.parse("Sat, 01 Jan 1977 00:00:00 GMT"))
    }

    @Test func freshnessComesFromMaxAgeOrExpires() {
        let now = Date()
        let stored = { (fields: HTTPFields) in CachedResponse(response: Self.response(200, fields), data: Data(), storedAt: now) }
        #expect(CacheRules.isFresh(stored(["Cache-Control": "max-age=60"]), now: now + 59))
        #expect(!CacheRules.isFresh(stored(["Cache-Control": "max-age=60"]), now: now + 61))
        #expect(!CacheRules.isFresh(stored(["Cache-Control": "max-age=60", "Age": "30"]), now: now + 31), "Age counts")
        #expect(CacheRules.isFresh(stored(["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Sun, 06 Nov 1994 08:50:37 GMT"]), now: now + 30))
        #expect(!CacheRules.isFresh(stored(["Expires": "0"]), now: now), "an invalid Expires is in the past")
        #expect(!CacheRules.isFresh(stored([:]), now: now), "no explicit freshness, no reuse")
        #expect(!CacheRules.isFresh(stored(["Cache-Control": "max-age=abc"]), now: now))
    }

    @Test func onlyCacheableExchangesAreStored() {
        let get = Request(url: Self.url)
        let fresh: HTTPFields = ["Cache-Control": "public, max-age=60"]
        #expect(CacheRules.isStorable(Self.response(200, fresh), for: get))
        #expect(!CacheRules.isStorable(Self.response(200, ["Cache-Control": "max-age=60, no-store"]), for: get))
        #expect(!CacheRules.isStorable(Self.response(200, ["Cache-Control": "no-cache, max-age=60"]), for: get))
        // A status the cache does not store even with explicit freshness: it combines no partial
        // content (RFC 9111 §3.3). (404 is heuristically cacheable, RFC 9110 §15.1: stored.)
        #expect(!CacheRules.isStorable(Self.response(206, fresh), for: get))
        #expect(CacheRules.isStorable(Self.response(404, fresh), for: get))
        #expect(!CacheRules.isStorable(Self.response(200, [:]), for: get))
        #expect(!CacheRules.isStorable(Self.response(200, fresh), for: Request(url: Self.url, method: .POST)))
        #expect(!CacheRules.isStorable(Self.response(200, fresh), for: Request(url: Self.url, headers: ["Authorization": "Basic eA=="])))
        #expect(!CacheRules.requestAllowsCache(Request(url: Self.url, headers: ["Cache-Control": "no-cache"])))
        // Vary is a secondary key now (RFC 9111 §4.1); `Vary: *` never matches, so it is not stored.
        #expect(!CacheRules.isStorable(Self.response(200, ["Cache-Control": "max-age=60", "Vary": "*"]), for: get), "Vary: * never matches")
        #expect(CacheRules.isStorable(Self.response(200, ["Cache-Control": "max-age=60", "Vary": "Accept"]), for: get), "stored by its Vary values")
        #expect(CacheRules.directives(["Cache-Control": "=, ==, max-age=5,,"]) == ["max-age": "5"], "empty names are skipped, not trapped on")
    }

    @Test func theMemoryCacheEvictsTheLeastRecentlyUsed() {
        let cache = MemoryResponseCache(capacity: 10)
        let request = { (path: String) in Request(url: URL(string: "http://c.test/\(path)")!) }
        let entry = { (size: Int) in CachedResponse(response: Self.response(200, [:]), data: Data(count: size)) }
        cache.storeCachedResponse(entry(4), for: request("a"))
        cache.storeCachedResponse(entry(4), for: request("b"))
        _ = cache.cachedResponse(for: request("a"))  // a is now more recent than b
        cache.storeCachedResponse(entry(4), for: request("c"))
        #expect(cache.cachedResponse(for: request("b")) == nil, "b was the least recently used")
        #expect(cache.cachedResponse(for: request("a")) != nil && cache.cachedResponse(for: request("c")) != nil)
        #expect(cache.currentBytes == 8)
        cache.storeCachedResponse(entry(11), for: request("big"))
        #expect(cache.cachedResponse(for: request("big")) == nil && cache.currentBytes == 8, "larger than the cache: not stored")
        cache.removeAllCachedResponses()
        #expect(cache.currentBytes == 0)
    }

    @Test func progressFractionsAreHonest() {
        typealias Snapshot = TaskProgress.Snapshot
        #expect(Snapshot(completedUnitCount: 50, totalUnitCount: 100, isFinished: false).fractionCompleted == 0.5)
        #expect(Snapshot(completedUnitCount: 50, totalUnitCount: -1, isFinished: false).fractionCompleted == nil)
        #expect(Snapshot(completedUnitCount: 0, totalUnitCount: 0, isFinished: true).fractionCompleted == 1)
        #expect(Snapshot(completedUnitCount: 150, totalUnitCount: 100, isFinished: false).fractionCompleted == 1, "never above 1")
    }
}
