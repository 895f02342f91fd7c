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
        /// `name=value` as the Cookie field carries it (``Cookie/pair``), made once when stored:
        /// a request's field is then built by copying bytes.
        let pair: [UInt8]

        init(cookie: Cookie, sequence: UInt64) {
            self.cookie = cookie
            self.sequence = sequence
            self.pair = Array(cookie.pair.utf8)
        }
    }

    var byDomain: [String: [Entry]] = [:]
    var count = 0
    var nextSequence: UInt64 = 0
    let limits: CookieJar.Limits
    /// Scratch of ``forEachMatch(for:now:_:)``: the buckets in which it found expired cookies.
    private var expiredBuckets: [String] = []

    init(limits: CookieJar.Limits) {
        self.limits = limits
    }

    /// The cookies to send to `url` in the order of §5.8.3 step 2 (longer paths first, then
    /// earlier creation), their last-access time set to `now`; expired ones found meanwhile are
    /// removed.
    mutating func cookies(for url: CookieURL, now: Date) -> [Cookie] {
        var found: [Cookie] = []
        forEachMatch(for: url, now: now) { found.append($0.cookie) }
        return found
    }

    /// The `Cookie` field value for `url` (§5.8.3 step 4: the pairs in step 2's order joined by
    /// "; "), nil when no cookie matches; the same matching and last-access update as
    /// ``cookies(for:now:)``, with no array of cookies made on the way (this runs per request).
    mutating func fieldValue(for url: CookieURL, now: Date) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        var first = true
        // A nameless cookie with an empty value is sent as an empty pair: matched, yet "".
        let matched = forEachMatch(for: url, now: now) { entry in
            if !first {
                bytes.append(UInt8(ascii: ";"))
                bytes.append(UInt8(ascii: " "))
            }
            first = false
            bytes.append(contentsOf: entry.pair)
        }
        return matched ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Calls `body` with the entry of each cookie that matches `url`, in §5.8.3 step 2's order, after setting
    /// its last-access time to `now`; expired cookies of the buckets read are removed. The
    /// buckets are read and changed in place: a bucket copied out of the dictionary and written
    /// back would be copied whole on its first change, and a cookie bound to a `let` is a copy
    /// of all its strings.
    ///
    /// Returns whether any cookie matched.
    @discardableResult
    private mutating func forEachMatch(for url: CookieURL, now: Date, _ body: (borrowing Entry) -> Void) -> Bool {
        var matches: [(path: Int, creation: Date, sequence: UInt64, domain: Dictionary<String, [Entry]>.Index, slot: Int)] = []
        matches.reserveCapacity(16)
        for domain in CookieMatching.candidateDomains(of: url.host, isIPAddress: url.isIPAddress) {
            guard let position = byDomain.index(forKey: domain) else { continue }
            // Safe: the buffer is used only inside the closure, and the bucket is not resized
            // while it is open (slots are only read and their access time written).
            let expired = byDomain.values[position].withUnsafeMutableBufferPointer { entries -> Bool in
                var expired = false
                for slot in entries.indices {
                    if entries[slot].cookie.isExpired(at: now) {
                        expired = true
                        continue
                    }
                    if (entries[slot].cookie.isHostOnly ? url.host == entries[slot].cookie.domain : true),
                       CookieMatching.pathMatches(requestPath: url.path, cookiePath: entries[slot].cookie.path),
                       !entries[slot].cookie.isSecure || url.isSecure {
                        entries[slot].cookie.lastAccessTime = now
                        matches.append((entries[slot].cookie.path.utf8.count, entries[slot].cookie.creationTime, entries[slot].sequence, position, slot))
                    }
                }
                return expired
            }
            if expired { expiredBuckets.append(domain) }
        }
        matches.sort { a, b in
            if a.path != b.path { return a.path > b.path }
            if a.creation != b.creation { return a.creation < b.creation }
            return a.sequence < b.sequence
        }
        // Read through the bucket's buffer: a subscripted entry would be copied, strings and all.
        // Safe: each slot was found in its bucket above and nothing was added or removed since;
        // the buffer does not outlive the closure.
        for match in matches {
            byDomain.values[match.domain].withUnsafeBufferPointer { body($0[match.slot]) }
        }
        // Removing shifts slots and may invalidate dictionary indices: done after the matches
        // were read.
        for domain in expiredBuckets {
            let before = byDomain[domain]?.count ?? 0
            byDomain[domain]?.removeAll { $0.cookie.isExpired(at: now) }
            let after = byDomain[domain]?.count ?? 0
            count -= before - after
            if after == 0 { byDomain[domain] = nil }
        }
        expiredBuckets.removeAll(keepingCapacity: true)
        return !matches.isEmpty
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
