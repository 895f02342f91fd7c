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
        let date = response.headers[first: "Date"].flatMap(HTTPDate.parse) ?? Date()
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

/// IMF-fixdate (RFC 9110 §5.6.7), the only format a sender may generate, e.g.
/// `Sun, 06 Nov 1994 08:49:37 GMT`. The obsolete formats are not accepted (treated as invalid).
enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Date? {
        let parts = text.trimmingOWS.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), (1...31).contains(day),
              let month = months.firstIndex(of: String(parts[2])),
              parts[3].count == 4, let year = Int(parts[3]), (1970...9999).contains(year) else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
