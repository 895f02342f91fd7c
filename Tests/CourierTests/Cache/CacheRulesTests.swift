@testable import Courier
import FoundationEssentials
import Testing

/// RFC 9111's rules as pure functions: freshness arithmetic, storability, the lookup decision,
/// the 304 update, invalidation and Vary keys. No sockets, no stores.
@Suite struct CacheRulesTests {
    static let url = URL(string: "https://example.test/a")!
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func stored(_ fields: HTTPFields, status: Int = 200, storedAt: Date = now, body: String = "body") -> CachedResponse {
        CachedResponse(response: Response(url: url, statusCode: status, headers: fields), data: Data(body.utf8), storedAt: storedAt)
    }

    static func date(_ offset: Double) -> String {
        // IMF-fixdate of now + offset.
        let seconds = Int(now.timeIntervalSince1970 + offset)
        let days = seconds / 86_400
        let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let (year, month, day) = civil(days)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let time = seconds % 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(names[days % 7]), \(two(day)) \(months[month - 1]) \(year) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    // MARK: Freshness

    @Test func explicitFreshnessAndAge() {
        #expect(CacheRules.isFresh(Self.stored(["Cache-Control": "max-age=60"]), now: Self.now + 59))
        #expect(!CacheRules.isFresh(Self.stored(["Cache-Control": "max-age=60"]), now: Self.now + 60))
        #expect(!CacheRules.isFresh(Self.stored(["Cache-Control": "max-age=60", "Age": "50"]), now: Self.now + 10))
        #expect(CacheRules.isFresh(Self.stored(["Cache-Control": "max-age=60", "Age": "junk"]), now: Self.now + 59), "an invalid Age is ignored")
        #expect(CacheRules.currentAge(Self.stored(["Age": "30"]), now: Self.now + 5) == 35)
        let expires = Self.stored(["Date": Self.date(0), "Expires": Self.date(100)])
        #expect(CacheRules.freshnessLifetime(expires.response) == 100)
        #expect(CacheRules.isFresh(expires, now: Self.now + 99) && !CacheRules.isFresh(expires, now: Self.now + 100))
        #expect(CacheRules.freshnessLifetime(Self.stored(["Cache-Control": "max-age=5", "Expires": Self.date(100)]).response) == 5, "max-age wins")
        #expect(CacheRules.freshnessLifetime(Self.stored(["Expires": "garbage"]).response) == 0)
    }

    @Test func heuristicFreshnessIsATenthOfTheAgeOfTheResourceBounded() {
        // Modified 1000 s before Date: fresh for 100 s.
        let recent = Self.stored(["Date": Self.date(0), "Last-Modified": Self.date(-1000)])
        #expect(CacheRules.freshnessLifetime(recent.response) == 100)
        #expect(CacheRules.isFresh(recent, now: Self.now + 99) && !CacheRules.isFresh(recent, now: Self.now + 101))
        // Modified a year ago: at most a day.
        let old = Self.stored(["Date": Self.date(0), "Last-Modified": Self.date(-365 * 86_400)])
        #expect(CacheRules.freshnessLifetime(old.response) == CacheFreshness.heuristicCeiling)
        // Last-Modified after Date: no freshness.
        #expect(CacheRules.freshnessLifetime(Self.stored(["Date": Self.date(0), "Last-Modified": Self.date(50)]).response) == 0)
        // Only for heuristically cacheable statuses.
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            #expect(CacheRules.freshnessLifetime(Self.stored(["Date": Self.date(0), "Last-Modified": Self.date(-1000)], status: status).response) == 100)
        }
        for status in [201, 206, 302, 307, 400, 500, 503] {
            #expect(CacheRules.freshnessLifetime(Self.stored(["Date": Self.date(0), "Last-Modified": Self.date(-1000)], status: status).response) == nil)
        }
    }

    // MARK: Storing

    @Test func whatIsStored() {
        let get = Request(url: Self.url)
        func storable(_ status: Int, _ fields: HTTPFields, _ request: Request = Request(url: Self.url)) -> Bool {
            CacheRules.isStorable(Response(url: Self.url, statusCode: status, headers: fields), for: request)
        }
        #expect(storable(200, ["Cache-Control": "private, max-age=60"]), "a private cache stores private responses")
        #expect(storable(200, ["ETag": "\"v1\""]), "validators alone: stored, revalidated on use")
        #expect(storable(200, ["Last-Modified": Self.date(-1000)]))
        #expect(storable(200, ["Cache-Control": "no-cache", "ETag": "\"v1\""]), "no-cache with a validator: stored, always revalidated")
        #expect(!storable(200, ["Cache-Control": "no-cache"]), "no-cache without validators is of no use")
        #expect(!storable(200, ["Cache-Control": "no-store", "ETag": "\"v1\""]))
        #expect(!storable(302, ["ETag": "\"v1\""]), "not heuristically cacheable and no explicit lifetime")
        #expect(storable(302, ["Cache-Control": "max-age=60"]))
        #expect(!storable(304, ["Cache-Control": "max-age=60"]))
        #expect(!storable(200, ["Cache-Control": "max-age=60"], Request(url: Self.url, headers: ["Cache-Control": "no-store"])))
        #expect(!storable(200, ["Cache-Control": "max-age=60"], Request(url: URL(string: "https://u:p@example.test/a")!)))
        #expect(CacheRules.requestMayUseCache(get))
        #expect(CacheRules.requestMayUseCache(Request(url: Self.url, headers: ["Cache-Control": "no-cache"])), "no-cache validates; it does not bypass")
    }

    // MARK: Decisions

    @Test func freshIsServedStaleIsValidatedWithItsValidators() throws {
        let get = Request(url: Self.url)
        let fresh = Self.stored(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        guard case .fresh = CacheRules.decide(get, stored: fresh, policy: .useProtocolCachePolicy, now: Self.now + 10) else {
            Issue.record("a fresh entry is served")
            return
        }
        let stale = Self.stored(["Cache-Control": "max-age=60", "ETag": "\"v1\"", "Last-Modified": Self.date(-1000)])
        guard case .validate(_, let conditional) = CacheRules.decide(get, stored: stale, policy: .useProtocolCachePolicy, now: Self.now + 61) else {
            Issue.record("a stale entry with validators is revalidated")
            return
        }
        #expect(conditional[first: "If-None-Match"] == "\"v1\"")
        #expect(conditional[first: "If-Modified-Since"] == Self.date(-1000))
        let request = CacheRules.conditionalRequest(Request(url: Self.url, headers: ["If-None-Match": "\"old\""]), conditional)
        #expect(request.headers.values(for: "If-None-Match") == ["\"v1\""], "the stored validator replaces any other")
        // Stale without validators: the network, unconditionally.
        guard case .miss = CacheRules.decide(get, stored: Self.stored(["Cache-Control": "max-age=1"]), policy: .useProtocolCachePolicy, now: Self.now + 5) else {
            Issue.record("no validators: a miss")
            return
        }
    }

    @Test func requestAndResponseDirectivesSteerTheDecision() {
        func decision(_ request: HTTPFields, _ stored: HTTPFields, at offset: Double) -> String {
            switch CacheRules.decide(Request(url: Self.url, headers: request), stored: Self.stored(stored), policy: .useProtocolCachePolicy, now: Self.now + offset) {
            case .fresh: "fresh"
            case .validate: "validate"
            case .miss: "miss"
            case .unavailable: "unavailable"
            }
        }
        let etag: HTTPFields = ["Cache-Control": "max-age=60", "ETag": "\"v\""]
        #expect(decision([:], etag, at: 10) == "fresh")
        #expect(decision(["Cache-Control": "no-cache"], etag, at: 10) == "validate")
        #expect(decision(["Pragma": "no-cache"], etag, at: 10) == "validate")
        #expect(decision(["Cache-Control": "max-age=5"], etag, at: 10) == "validate")
        #expect(decision(["Cache-Control": "min-fresh=55"], etag, at: 10) == "validate")
        #expect(decision(["Cache-Control": "max-stale=30"], etag, at: 80) == "fresh")
        #expect(decision(["Cache-Control": "max-stale=10"], etag, at: 80) == "validate")
        #expect(decision(["Cache-Control": "max-stale"], ["Cache-Control": "max-age=60, must-revalidate", "ETag": "\"v\""], at: 80) == "validate",
                "must-revalidate forbids serving stale")
        #expect(decision([:], ["Cache-Control": "no-cache, max-age=60", "ETag": "\"v\""], at: 1) == "validate")
        #expect(decision(["Cache-Control": "only-if-cached"], etag, at: 500) == "fresh", "only-if-cached takes what is stored")
        #expect(decision([:], ["Cache-Control": "max-age=60", "Vary": "*", "ETag": "\"v\""], at: 1) == "fresh", "Vary is the store's to match")
    }

    @Test func policies() {
        let get = { (policy: CachePolicy) in Request(url: Self.url) }
        let stale = Self.stored(["Cache-Control": "max-age=1", "ETag": "\"v\""])
        func name(_ decision: CacheDecision) -> String {
            switch decision {
            case .fresh: "fresh"
            case .validate: "validate"
            case .miss: "miss"
            case .unavailable: "unavailable"
            }
        }
        let at = Self.now + 100
        #expect(name(CacheRules.decide(get(.useProtocolCachePolicy), stored: stale, policy: .useProtocolCachePolicy, now: at)) == "validate")
        #expect(name(CacheRules.decide(get(.reloadIgnoringCacheData), stored: stale, policy: .reloadIgnoringCacheData, now: at)) == "miss")
        #expect(name(CacheRules.decide(get(.returnCacheDataElseLoad), stored: stale, policy: .returnCacheDataElseLoad, now: at)) == "fresh")
        #expect(name(CacheRules.decide(get(.returnCacheDataElseLoad), stored: nil, policy: .returnCacheDataElseLoad, now: at)) == "miss")
        #expect(name(CacheRules.decide(get(.returnCacheDataDontLoad), stored: stale, policy: .returnCacheDataDontLoad, now: at)) == "fresh")
        #expect(name(CacheRules.decide(get(.returnCacheDataDontLoad), stored: nil, policy: .returnCacheDataDontLoad, now: at)) == "unavailable")
        #expect(name(CacheRules.decide(Request(url: Self.url, headers: ["Cache-Control": "only-if-cached"]), stored: nil,
                                       policy: .useProtocolCachePolicy, now: at)) == "unavailable")
    }

    // MARK: 304, invalidation, Vary

    @Test func a304UpdatesTheStoredHeadAndKeepsTheBody() {
        let stored = Self.stored(["Cache-Control": "max-age=1", "ETag": "\"v1\"", "Content-Length": "4", "X-Old": "kept", "Age": "40"])
        let notModified = Response(url: Self.url, statusCode: 304, headers: ["Cache-Control": "max-age=600", "ETag": "\"v1\"", "Content-Length": "0", "X-New": "1"])
        let updated = CacheRules.updated(stored, with: notModified, receivedAt: Self.now + 100)
        #expect(updated.response.statusCode == 200)
        #expect(updated.data == Data("body".utf8))
        #expect(updated.response.headers[first: "Cache-Control"] == "max-age=600")
        #expect(updated.response.headers[first: "Content-Length"] == "4", "the stored body's framing stays")
        #expect(updated.response.headers[first: "X-Old"] == "kept" && updated.response.headers[first: "X-New"] == "1")
        #expect(updated.response.headers[first: "Age"] == nil, "the stored Age belonged to the old arrival")
        #expect(CacheRules.isFresh(updated, now: Self.now + 200))
    }

    @Test func unsafeMethodsInvalidateTheTargetAndSameOriginLocations() {
        let post = Request(url: Self.url, method: .POST)
        let response = Response(url: Self.url, statusCode: 201, headers: ["Location": "/b", "Content-Location": "https://other.test/c"])
        let urls = CacheRules.invalidatedURLs(request: post, response: response).map(\.absoluteString)
        #expect(urls == ["https://example.test/a", "https://example.test/b"], "another origin's Content-Location is left alone")
        #expect(CacheRules.invalidatedURLs(request: Request(url: Self.url), response: response).isEmpty, "GET is safe")
        #expect(CacheRules.invalidatedURLs(request: post, response: Response(url: Self.url, statusCode: 500, headers: [:])).isEmpty, "errors do not invalidate")
        for method in [HTTPMethod.PUT, .DELETE, .PATCH] {
            #expect(CacheRules.invalidatedURLs(request: Request(url: Self.url, method: method), response: Response(url: Self.url, statusCode: 204, headers: [:])).count == 1)
        }
    }

    @Test func varyKeysTakeTheRequestsValues() {
        let names = ["accept-encoding", "accept-language"]
        let a = CacheRules.variantKey(names: names, request: ["Accept-Language": "en", "Accept-Encoding": "gzip,  br"])
        let b = CacheRules.variantKey(names: names, request: ["accept-encoding": "gzip, br", "Accept-Language": "en"])
        let c = CacheRules.variantKey(names: names, request: ["Accept-Language": "fr"])
        #expect(a == b, "names are case-insensitive; whitespace around commas does not count")
        #expect(a != c)
        #expect(CacheRules.variantKey(names: [], request: ["Accept": "x"]).isEmpty)
        let star = Self.stored(["Vary": "*"])
        #expect(!CacheRules.varyMatches(star, storedKey: "", request: Request(url: Self.url)), "Vary: * never matches")
        #expect(CacheFreshness.varyNames(["Vary": "Accept-Language, accept-encoding", "vary": "ACCEPT-LANGUAGE"]) == names)
    }
}
