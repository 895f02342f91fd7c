import FoundationEssentials

/// Eviction (RFC 6265bis §5.7 step 22 and §6.1): expired cookies go first; past the per-domain
/// limit, the domain's non-secure cookies with the earliest last access, then its secure ones;
/// past the total limit, the cookies with the earliest last access anywhere.
extension CookieStore {
    mutating func evict(domain: String, now: Date) {
        guard var bucket = byDomain[domain] else { return }
        let before = bucket.count
        bucket.removeAll { $0.cookie.isExpired(at: now) }
        while bucket.count > limits.cookiesPerDomain {
            let insecure = bucket.indices.filter { !bucket[$0].cookie.isSecure }
            let pool = insecure.isEmpty ? Array(bucket.indices) : insecure
            guard let oldest = pool.min(by: { Self.accessedEarlier(bucket[$0], bucket[$1]) }) else { break }
            bucket.remove(at: oldest)
        }
        count -= before - bucket.count
        byDomain[domain] = bucket.isEmpty ? nil : bucket
        if count > limits.totalCookies { evictTotal(now: now) }
    }

    /// Past the total limit (rare: it reads the whole store): expired cookies, then those with
    /// the earliest last access.
    mutating func evictTotal(now: Date) {
        removeAll { $0.isExpired(at: now) }
        guard count > limits.totalCookies else { return }
        var entries = byDomain.values.flatMap { $0 }
        entries.sort(by: Self.accessedEarlier)
        let excess = count - limits.totalCookies
        let doomed = Set(entries.prefix(excess).map(\.sequence))
        for (domain, bucket) in byDomain {
            let kept = bucket.filter { !doomed.contains($0.sequence) }
            count -= bucket.count - kept.count
            byDomain[domain] = kept.isEmpty ? nil : kept
        }
    }

    static func accessedEarlier(_ a: Entry, _ b: Entry) -> Bool {
        a.cookie.lastAccessTime != b.cookie.lastAccessTime ? a.cookie.lastAccessTime < b.cookie.lastAccessTime : a.sequence < b.sequence
    }
}
