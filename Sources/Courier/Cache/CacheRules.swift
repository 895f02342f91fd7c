import CourierClient
import FoundationEssentials

/// The parts of HTTP caching (RFC 9111) a private client cache needs: whether a response may be
/// stored, and whether a stored one is still fresh. There is no revalidation: a stale entry is
/// simply not used, and the request goes to the network.
enum CacheRules {
    /// Cache-Control directives, lowercased names, unquoted values.
    static func directives(_ fields: HTTPFields) -> [String: String] {
        var result: [String: String] = [:]
        for value in fields.values(for: "Cache-Control") {
            for item in value.split(separator: ",") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let first = pair.first else { continue }
                let name = first.trimmingOWS.lowercased()
                guard !name.isEmpty else { continue }
                var argument = pair.count == 2 ? pair[1].trimmingOWS : ""
                if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") { argument = String(argument.dropFirst().dropLast()) }
                result[name] = argument
            }
        }
        return result
    }

    /// Whether a request may be answered from, or its response put into, a cache: GET, no
    /// credentials (an Authorization field or user information in the URL, which the transport
    /// sends as Basic credentials), and no `no-store` / `no-cache` from the caller (§5.2.1).
    static func requestAllowsCache(_ request: Request) -> Bool {
        guard request.method == .GET, request.headers[first: "Authorization"] == nil, request.httpURL?.user == nil else {
            return false
        }
        let directives = directives(request.headers)
        return directives["no-store"] == nil && directives["no-cache"] == nil
    }

    /// §3: a 200 with explicit freshness (max-age or Expires) and without no-store / no-cache.
    static func isStorable(_ response: Response, for request: Request) -> Bool {
        guard requestAllowsCache(request), response.statusCode == 200 else { return false }
        let directives = directives(response.headers)
        guard directives["no-store"] == nil, directives["no-cache"] == nil else { return false }
        // The cache keys on the URL alone, so a response that varies by request fields is not kept (§4.1).
        guard response.headers[first: "Vary"] == nil else { return false }
        return freshnessLifetime(response) != nil
    }

    /// §4.2.1: max-age, else Expires − Date. Nil when the response gives none (no heuristics).
    static func freshnessLifetime(_ response: Response) -> Double? {
        if let maxAge = directives(response.headers)["max-age"] {
            guard let seconds = Int(maxAge), seconds >= 0 else { return 0 }
            return Double(seconds)
        }
        guard let expires = response.headers[first: "Expires"] else { return nil }
        guard let expiry = HTTPDate.parse(expires) else { return 0 }  // an invalid Expires means "already expired"
        let date = response.headers[first: "Date"].flatMap { HTTPDate.parse($0) } ?? Date()
        return max(0, expiry.timeIntervalSince(date))
    }

    /// §4.2: fresh while its age (time since stored plus the Age field) is below its lifetime.
    static func isFresh(_ cached: CachedResponse, now: Date = Date()) -> Bool {
        guard let lifetime = freshnessLifetime(cached.response) else { return false }
        let initialAge = cached.response.headers[first: "Age"].flatMap { Double($0.trimmingOWS) } ?? 0
        let age = max(0, initialAge) + now.timeIntervalSince(cached.storedAt)
        return age < lifetime
    }
}
