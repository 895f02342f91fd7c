import FoundationEssentials

/// The storage model of RFC 6265bis §5.7: a parsed `Set-Cookie` line becomes a cookie for the
/// request's URL, or is refused with the step that refused it.
extension CookieStore {
    /// The longest a cookie may live: 400 days (§5.5).
    static let maximumLifetime: Double = 400 * 86_400

    /// Stores `parsed`, received in the response to `url`, and returns the cookie stored (an
    /// already-expired one removes its namesake and is not kept).
    mutating func store(_ parsed: SetCookie, from url: CookieURL, now: Date, publicSuffixes: PublicSuffixList) throws(CookieError) -> Cookie {
        let cookie = try Self.cookie(from: parsed, url: url, now: now, publicSuffixes: publicSuffixes)
        // Step 13: a non-secure cookie from a non-secure origin may not shadow a secure one.
        if !cookie.isSecure, !url.isSecure, shadowsSecureCookie(cookie) { throw CookieError(.overwritesSecureCookie) }
        insert(cookie, keepCreationTime: true, now: now)
        return cookie
    }

    /// Steps 2–12 and 14–19, which need nothing from the store.
    static func cookie(from parsed: SetCookie, url: CookieURL, now: Date, publicSuffixes: PublicSuffixList) throws(CookieError) -> Cookie {
        // Step 3: Max-Age wins over Expires; both are capped at 400 days (§5.5).
        let latest = now.addingTimeInterval(maximumLifetime)
        var expires: Date?
        if let maxAge = parsed.maxAge {
            expires = maxAge <= 0 ? Date.distantPast : Double(maxAge) >= maximumLifetime ? latest : now.addingTimeInterval(Double(maxAge))
        } else if let date = parsed.expires {
            expires = min(date, latest)
        }
        // Steps 4–7: the domain.
        var domainAttribute = parsed.domain ?? ""
        if domainAttribute.utf8.contains(where: { $0 >= 0x80 }) { throw CookieError(.nonASCIIDomain) }
        if !domainAttribute.isEmpty, publicSuffixes.isPublicSuffix(domainAttribute) {
            guard domainAttribute == url.host else { throw CookieError(.publicSuffix) }
            domainAttribute = ""
        }
        let isHostOnly: Bool
        let domain: String
        if domainAttribute.isEmpty {
            isHostOnly = true
            domain = url.host
        } else {
            guard CookieMatching.domainMatches(host: url.host, isIPAddress: url.isIPAddress, domain: domainAttribute) else {
                throw CookieError(.domainMismatch)
            }
            isHostOnly = false
            domain = domainAttribute
        }
        // Step 8: the path.
        let path: String
        if let attribute = parsed.path, attribute.utf8.first == UInt8(ascii: "/") {
            path = attribute
        } else {
            path = CookieMatching.defaultPath(url.path)
        }
        // Steps 9–10: Secure only from a secure origin.
        if parsed.isSecure, !url.isSecure { throw CookieError(.secureFromInsecureOrigin) }
        // Step 16.
        if parsed.sameSite == .none, !parsed.isSecure { throw CookieError(.sameSiteNoneWithoutSecure) }
        // Steps 17–19: the prefixes (§5.4), matched without regard to case.
        if hasPrefix(parsed.name, "__secure-"), !parsed.isSecure { throw CookieError(.securePrefix) }
        if hasPrefix(parsed.name, "__host-"), !(parsed.isSecure && isHostOnly && parsed.path != nil && path == "/") {
            throw CookieError(.hostPrefix)
        }
        if parsed.name.isEmpty, hasPrefix(parsed.value, "__secure-") || hasPrefix(parsed.value, "__host-") {
            throw CookieError(.prefixInNamelessValue)
        }
        return Cookie(
            name: parsed.name, value: parsed.value, domain: domain, isHostOnly: isHostOnly, path: path, expires: expires,
            isSecure: parsed.isSecure, isHTTPOnly: parsed.isHTTPOnly, sameSite: parsed.sameSite, creationTime: now)
    }

    /// Whether a secure cookie of the same name exists whose domain domain-matches the new one's
    /// (or the other way round) and whose path the new path path-matches (§5.7 step 13). Reads
    /// the buckets of the new domain and its parents, and of its subdomains (a scan of the
    /// domain keys, for this one case only: a non-secure cookie set over `http`).
    func shadowsSecureCookie(_ cookie: Cookie) -> Bool {
        func matches(_ entry: Entry) -> Bool {
            entry.cookie.isSecure && entry.cookie.name == cookie.name
                && CookieMatching.pathMatches(requestPath: cookie.path, cookiePath: entry.cookie.path)
        }
        for domain in CookieMatching.candidateDomains(of: cookie.domain, isIPAddress: false) {
            if byDomain[domain]?.contains(where: matches) == true { return true }
        }
        let suffix = "." + cookie.domain
        for (domain, bucket) in byDomain where domain.utf8.count > suffix.utf8.count && domain.hasSuffix(suffix) {
            if bucket.contains(where: matches) { return true }
        }
        return false
    }

    static func hasPrefix(_ s: String, _ lowercasePrefix: String) -> Bool {
        let prefix = lowercasePrefix.utf8
        guard s.utf8.count >= prefix.count else { return false }
        return zip(s.utf8, prefix).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }
}
