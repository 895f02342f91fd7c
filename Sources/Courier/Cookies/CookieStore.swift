import FoundationEssentials

/// The cookie store as a value (the jar keeps it behind its lock): cookies indexed by their
/// domain field, so that a lookup reads only the buckets of the request host's domain and its
/// parents (RFC 6265bis §5.8.3) and never the whole store. The storage model (§5.7) is in
/// `CookieStore+Storing.swift`; eviction (§5.7 step 22, §6.1) in `CookieStore+Eviction.swift`.
struct CookieStore: Sendable {
    /// A stored cookie and the order it was first stored in (ties of creation time).
    struct Entry: Sendable {
        var cookie: Cookie
        var sequence: UInt64
    }

    var byDomain: [String: [Entry]] = [:]
    var count = 0
    var nextSequence: UInt64 = 0
    let limits: CookieJar.Limits

    init(limits: CookieJar.Limits) {
        self.limits = limits
    }

    /// The cookies to send to `url` in the order of §5.8.3 step 2 (longer paths first, then
    /// earlier creation), their last-access time set to `now`; expired ones found meanwhile are
    /// removed.
    mutating func cookies(for url: CookieURL, now: Date) -> [Cookie] {
        var found: [Entry] = []
        for domain in CookieMatching.candidateDomains(of: url.host, isIPAddress: url.isIPAddress) {
            guard var bucket = byDomain[domain] else { continue }
            var changed = false
            var index = bucket.startIndex
            while index < bucket.endIndex {
                let cookie = bucket[index].cookie
                if cookie.isExpired(at: now) {
                    bucket.remove(at: index)
                    count -= 1
                    changed = true
                    continue
                }
                if (cookie.isHostOnly ? url.host == cookie.domain : true),
                   CookieMatching.pathMatches(requestPath: url.path, cookiePath: cookie.path),
                   !cookie.isSecure || url.isSecure {
                    bucket[index].cookie.lastAccessTime = now
                    found.append(bucket[index])
                    changed = true
                }
                index += 1
            }
            if changed { byDomain[domain] = bucket.isEmpty ? nil : bucket }
        }
        found.sort { a, b in
            let (pa, pb) = (a.cookie.path.utf8.count, b.cookie.path.utf8.count)
            if pa != pb { return pa > pb }
            if a.cookie.creationTime != b.cookie.creationTime { return a.cookie.creationTime < b.cookie.creationTime }
            return a.sequence < b.sequence
        }
        return found.map(\.cookie)
    }

    /// Puts `cookie` in, replacing one with the same name, domain, host-only flag and path and
    /// keeping that one's creation time when `keepCreationTime` (§5.7 step 20), then evicts.
    mutating func insert(_ cookie: Cookie, keepCreationTime: Bool, now: Date) {
        var cookie = cookie
        var bucket = byDomain[cookie.domain] ?? []
        var sequence = nextSequence
        if let old = bucket.firstIndex(where: { $0.cookie.key == cookie.key }) {
            if keepCreationTime { cookie.creationTime = bucket[old].cookie.creationTime }
            sequence = bucket[old].sequence
            bucket.remove(at: old)
            count -= 1
        } else {
            nextSequence += 1
        }
        bucket.append(Entry(cookie: cookie, sequence: sequence))
        count += 1
        byDomain[cookie.domain] = bucket
        evict(domain: cookie.domain, now: now)
    }

    /// Every cookie, in no particular order (a whole-store read: for files and inspection).
    var all: [Cookie] { byDomain.values.flatMap { $0.map(\.cookie) } }

    mutating func removeAll(where shouldRemove: (Cookie) -> Bool) {
        for (domain, bucket) in byDomain {
            let kept = bucket.filter { !shouldRemove($0.cookie) }
            count -= bucket.count - kept.count
            byDomain[domain] = kept.isEmpty ? nil : kept
        }
    }
}
