// What COURIER_SESSION_EXTRA=state fills the session with before it runs: the issue 12 budget
// is stated for a jar of 1,000 cookies over 100 domains and a cache of 10,000 entries.
import Courier
import FoundationEssentials

enum StateFixtures {
    /// 1,000 cookies: with `matching`, 10 host-only cookies for the benchmark's own host (sent
    /// with every request) and 10 domain cookies on each of 99 other domains (never sent);
    /// without, 10 on each of 100 other domains (none sent).
    static func cookieJar(for urlString: String, matching: Bool) -> CookieJar {
        let jar = CookieJar()
        guard let target = try? HTTPURL(urlString) else { fatalError("bad URL \(urlString)") }
        if matching {
            for n in 0..<10 {
                _ = try? jar.store(setCookie: "session\(n)=value-\(n)-0123456789abcdef; Path=/", for: target)
            }
        }
        for domain in (matching ? 1 : 0)..<100 {
            guard let site = try? HTTPURL("http://www.site\(domain).example/") else { continue }
            for n in 0..<10 {
                _ = try? jar.store(setCookie: "c\(n)=v\(n); Domain=site\(domain).example; Path=/", for: site)
            }
        }
        guard jar.count == 1000 else { fatalError("the jar holds \(jar.count) cookies, not 1000") }
        return jar
    }

    /// 10,000 fresh responses for other paths of the benchmark's origin.
    static func responseCache(for urlString: String) -> MemoryResponseCache {
        let cache = MemoryResponseCache(capacity: 64 * 1024 * 1024)
        guard let base = URL(string: urlString) else { fatalError("bad URL \(urlString)") }
        let body = Data("Hello, world\n".utf8)
        for n in 0..<10_000 {
            guard let url = URL(string: "/item/\(n)", relativeTo: base)?.absoluteURL else { continue }
            let headers: HTTPFields = ["Cache-Control": "max-age=86400", "Content-Length": "13"]
            let response = Response(url: url, statusCode: 200, headers: headers)
            cache.storeCachedResponse(CachedResponse(response: response, data: body), for: Request(url: url))
        }
        guard cache.count == 10_000 else { fatalError("the cache holds \(cache.count) entries, not 10000") }
        return cache
    }
}
