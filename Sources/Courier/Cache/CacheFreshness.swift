import CourierClient
import FoundationEssentials

/// What the cache rules need of a stored head, parsed once when the entry is made: its
/// directives, freshness lifetime (§4.2.1, §4.2.2), initial age and validators.
struct CacheFreshness: Sendable {
    var control: CacheControl
    /// Seconds the response is fresh for, from when it was stored, before its Age; nil when it
    /// gives no explicit lifetime and none can be worked out.
    var lifetime: Double?
    /// Whether ``lifetime`` is the heuristic one (§4.2.2).
    var isHeuristic = false
    /// The Age field (§5.1), 0 when absent or invalid.
    var initialAge: Double
    var etag: String?
    /// The Last-Modified value as sent, when it is a valid HTTP-date.
    var lastModified: String?
    /// The Vary field names, lowercased and sorted; nil for `Vary: *` (never matches, §4.1).
    var varyNames: [String]?

    /// The bound on a heuristic lifetime: one day, RFC 7234's customary limit, here a ceiling.
    static let heuristicCeiling: Double = 86_400
    /// The fraction of the time since Last-Modified a heuristic lifetime takes (§4.2.2).
    static let heuristicFraction = 0.1

    init(_ response: Response, storedAt: Date) {
        self.init(response, control: CacheControl(response.headers), storedAt: storedAt)
    }

    /// With the response's Cache-Control already parsed.
    init(_ response: Response, control: CacheControl, storedAt: Date) {
        let headers = response.headers
        self.control = control
        initialAge = headers[first: "Age"].flatMap { CacheControl.seconds($0.trimmingOWS, optional: false).value }.map(Double.init) ?? 0
        etag = headers[first: "ETag"].map { $0.trimmingOWS }.flatMap { $0.isEmpty ? nil : $0 }
        let modified = headers[first: "Last-Modified"].flatMap { value in HTTPDate.parse(value).map { (value.trimmingOWS, $0) } }
        lastModified = modified?.0
        varyNames = Self.varyNames(headers)
        let date = headers[first: "Date"].flatMap { HTTPDate.parse($0) } ?? storedAt
        if let maxAge = control.maxAge {
            // An invalid max-age makes the response stale (§4.2.1).
            lifetime = maxAge.value.map(Double.init) ?? 0
        } else if let expires = headers[first: "Expires"] {
            // An invalid Expires (including "0") means "already expired" (§5.3).
            lifetime = HTTPDate.parse(expires).map { max(0, $0.timeIntervalSince(date)) } ?? 0
        } else if CacheRules.heuristicallyCacheable.contains(response.statusCode), let modified = modified?.1 {
            lifetime = min(Self.heuristicCeiling, max(0, date.timeIntervalSince(modified) * Self.heuristicFraction))
            isHeuristic = true
        } else {
            lifetime = nil
        }
    }

    /// The names a `Vary` field lists, lowercased, sorted, without duplicates; nil for `*`.
    static func varyNames(_ headers: HTTPFields) -> [String]? {
        var names: [String] = []
        for value in headers.values(for: "Vary") {
            for item in value.split(separator: ",") {
                let name = item.trimmingOWS.lowercased()
                if name == "*" { return nil }
                if !name.isEmpty, !names.contains(name), names.count < 32 { names.append(name) }
            }
        }
        return names.sorted()
    }

    var hasValidators: Bool { etag != nil || lastModified != nil }
}
