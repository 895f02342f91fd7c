import CourierClient
import FoundationEssentials

/// What the session does with a request, given what its cache holds (``CacheRules/decide(_:stored:policy:now:)``).
enum CacheDecision {
    /// Answer from the stored response, without the network.
    case fresh(CachedResponse)
    /// Send the request with these conditional fields (§4.3.1); a 304 answers from the stored
    /// response (§4.3.4), anything else replaces it.
    case validate(CachedResponse, conditional: HTTPFields)
    /// Go to the network as if nothing were stored.
    case miss
    /// The policy (or `only-if-cached`) forbids the network and nothing usable is stored.
    case unavailable
}

/// HTTP caching (RFC 9111) as a private client cache applies it, as pure functions of values:
/// whether a response may be stored, how long it is fresh, what a lookup decides, what a 304
/// does to the stored head, and what an unsafe request invalidates. No I/O, no locks: the
/// stores (``ResponseCache``) keep entries and the task (`SessionTask.prepare`) acts on the
/// decision.
enum CacheRules {
    /// Statuses cacheable by default (RFC 9110 §15.1): a heuristic lifetime (§4.2.2) applies to
    /// them. 206 is left out: the cache does not combine partial content (§3.3), so it never
    /// stores one.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Methods that change nothing on the server (RFC 9110 §9.2.1); a response to any other
    /// invalidates what the cache holds for its URL (§4.4).
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// Conditional fields of the caller's own: such a request is the caller's revalidation and
    /// skips the cache lookup (its 200 may still be stored).
    static let conditionalFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]

    /// Cache-Control directives, lowercased names, unquoted values; the first occurrence of a
    /// name counts. Hostile values never trap (``CacheControl``).
    static func directives(_ fields: HTTPFields) -> [String: String] {
        var result: [String: String] = [:]
        for value in fields.values(for: "Cache-Control") {
            CacheControl.forEachDirective(in: Array(value.utf8)) { name, argument in
                if result[name] == nil { result[name] = argument }
            }
        }
        return result
    }

    /// Whether the cache takes part for this request at all: a GET without credentials (an
    /// Authorization field or user information in the URL, which the transport sends as Basic
    /// credentials) and without `no-store` (§5.2.1.5). A private cache may store authenticated
    /// responses (§3.5 binds shared caches), but Courier keeps them out so that one user's
    /// answer is never another's.
    static func requestMayUseCache(_ request: Request) -> Bool {
        guard request.method == .GET, request.httpURL?.user == nil, request.headers[first: "Authorization"] == nil else { return false }
        guard request.headers.contains("Cache-Control") else { return true }
        return !CacheControl(request.headers).noStore
    }

    /// Whether a request may be answered from a stored response without validation: it may use
    /// the cache and says neither `no-store` nor `no-cache` (§5.2.1.4; `Pragma: no-cache` too,
    /// §5.4, when there is no Cache-Control).
    static func requestAllowsCache(_ request: Request) -> Bool {
        guard requestMayUseCache(request) else { return false }
        return !requestSaysNoCache(request)
    }

    private static func requestSaysNoCache(_ request: Request) -> Bool {
        if request.headers.contains("Cache-Control") { return CacheControl(request.headers).noCache }
        guard let pragma = request.headers[first: "Pragma"] else { return false }
        return pragma.lowercased().contains("no-cache")
    }

    /// §3: whether `response` to `request` is kept. The request may use the cache; the status
    /// is final and one the cache understands (never 206 or 304); no `no-store`; not `Vary: *`;
    /// and the entry can be of use later: a lifetime (explicit or heuristic), or validators to
    /// revalidate it with. `no-cache` responses are kept only with validators (each use
    /// revalidates them, §5.2.2.4). `private` is allowed: this is a private cache (§5.2.2.7).
    static func isStorable(_ response: Response, for request: Request) -> Bool {
        // The cheap refusals first: a request that may not use the cache, and `no-store`, need
        // neither the dates nor the validators parsed.
        guard requestMayUseCache(request) else { return false }
        let control = CacheControl(response.headers)
        guard !control.noStore else { return false }
        return isStorable(CacheFreshness(response, control: control, storedAt: Date()), status: response.statusCode, for: request)
    }

    static func isStorable(_ freshness: CacheFreshness, status: Int, for request: Request) -> Bool {
        guard requestMayUseCache(request), !freshness.control.noStore, freshness.varyNames != nil else { return false }
        let hasExplicitLifetime = freshness.lifetime != nil && !freshness.isHeuristic
        guard heuristicallyCacheable.contains(status) || (hasExplicitLifetime && (200..<600).contains(status) && status != 206 && status != 304) else {
            return false
        }
        if freshness.control.noCache { return freshness.hasValidators }
        return freshness.lifetime != nil || freshness.hasValidators
    }

    /// §4.2.1, §4.2.2: max-age, else Expires − Date, else the heuristic lifetime (a tenth of the
    /// time since Last-Modified, at most a day, for a heuristically cacheable status). Nil when
    /// there is none.
    static func freshnessLifetime(_ response: Response) -> Double? {
        CacheFreshness(response, storedAt: Date()).lifetime
    }

    /// §4.2.3: the entry's current age: its Age field plus the time since it was stored. The
    /// apparent age (now − Date) is left out: it mixes the server's clock with the client's, and
    /// the lifetime (Expires − Date) is measured on the server's clock alone.
    static func currentAge(_ cached: CachedResponse, now: Date) -> Double {
        max(0, cached.freshness.initialAge) + max(0, now.timeIntervalSince(cached.storedAt))
    }

    /// §4.2: fresh while its current age is below its lifetime.
    static func isFresh(_ cached: CachedResponse, now: Date = Date()) -> Bool {
        guard let lifetime = cached.freshness.lifetime else { return false }
        return currentAge(cached, now: now) < lifetime
    }

    /// What to do for `request` given `stored` (the entry its store found for it, Vary already
    /// matched) under `policy`. Pure: `now` is the clock.
    static func decide(_ request: Request, stored: CachedResponse?, policy: CachePolicy, now: Date = Date()) -> CacheDecision {
        let requestControl = request.headers.contains("Cache-Control") ? CacheControl(request.headers) : CacheControl()
        guard let stored else {
            return policy == .returnCacheDataDontLoad || requestControl.onlyIfCached ? .unavailable : .miss
        }
        switch policy {
        case .reloadIgnoringCacheData:
            return .miss
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            return .fresh(stored)
        case .useProtocolCachePolicy:
            break
        }
        let freshness = stored.freshness
        let age = currentAge(stored, now: now)
        let lifetime = freshness.lifetime ?? 0
        var fresh = age < lifetime
        if let maxAge = requestControl.maxAge?.value, age > Double(maxAge) { fresh = false }
        if let minFresh = requestControl.minFresh?.value, lifetime - age < Double(minFresh) { fresh = false }
        // max-stale lets a stale entry be used, unless the response forbids it (§4.2.4, §5.2.2.2).
        if !fresh, !freshness.control.mustRevalidate, !freshness.control.noCache, let maxStale = requestControl.maxStale?.value,
           age - lifetime <= Double(maxStale) {
            fresh = true
        }
        if fresh, !freshness.control.noCache, !requestSaysNoCache(request) { return .fresh(stored) }
        if requestControl.onlyIfCached { return .fresh(stored) }  // §5.2.1.7: stored or 504; the stored one it is
        guard let conditional = conditionalFields(for: stored) else { return .miss }
        return .validate(stored, conditional: conditional)
    }

    /// §4.3.1: `If-None-Match` with the stored entity tag, `If-Modified-Since` with the stored
    /// Last-Modified; nil when the entry has neither.
    static func conditionalFields(for stored: CachedResponse) -> HTTPFields? {
        var fields = HTTPFields()
        if let etag = stored.freshness.etag { try? fields.append(name: "If-None-Match", value: etag) }
        if let lastModified = stored.freshness.lastModified { try? fields.append(name: "If-Modified-Since", value: lastModified) }
        return fields.isEmpty ? nil : fields
    }

    /// `request` with `conditional` set (replacing any of the same names).
    static func conditionalRequest(_ request: Request, _ conditional: HTTPFields) -> Request {
        var request = request
        for field in conditional {
            request.headers.remove(name: field.name)
            request.headers.append(field)
        }
        return request
    }

    /// Whether the caller made its own conditional request.
    static func isConditional(_ request: Request) -> Bool {
        conditionalFields.contains { request.headers.contains($0) }
    }

    /// Fields a 304 never replaces in the stored head (§3.2): the stored body's framing and
    /// coding, and hop-by-hop fields.
    static let fieldsKeptOn304: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "content-range", "connection", "keep-alive", "te", "trailer",
        "upgrade", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    ]

    /// §4.3.4: the stored response updated by a 304: each field of the 304 replaces the stored
    /// ones of its name (except ``fieldsKeptOn304``); the body stays; the entry counts as
    /// received now (`receivedAt`), so its age restarts from the 304's Age.
    static func updated(_ stored: CachedResponse, with notModified: Response, receivedAt: Date = Date()) -> CachedResponse {
        var headers = stored.response.headers
        var replaced: Set<String> = []
        for field in notModified.headers {
            let name = field.name.lowercased()
            guard !fieldsKeptOn304.contains(name) else { continue }
            if replaced.insert(name).inserted { headers.remove(name: field.name) }
            headers.append(field)
        }
        // The stored Age belonged to the stored response's arrival.
        if !replaced.contains("age") { headers.remove(name: "Age") }
        var response = stored.response
        response.headers = headers
        return CachedResponse(response: response, data: stored.data, storedAt: receivedAt)
    }

    /// §4.4: the URLs a response to an unsafe request makes stale: the target, and the
    /// Location and Content-Location when they are on the same origin. Empty for a safe method
    /// or an error status (only 2xx and 3xx invalidate).
    static func invalidatedURLs(request: Request, response: Response) -> [HTTPURL] {
        guard !safeMethods.contains(request.method.rawValue), (200..<400).contains(response.statusCode), let target = request.httpURL else {
            return []
        }
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[first: name], let resolved = try? target.resolving(value.trimmingOWS),
                  resolved.origin == target.origin, !urls.contains(resolved) else { continue }
            urls.append(resolved)
        }
        return urls
    }

    // MARK: Vary (§4.1)

    /// The secondary key of a request for a stored response whose Vary names `names` (sorted,
    /// lowercased): each name with the request's values of it, combined as one field value
    /// with whitespace around commas removed. "" when nothing varies.
    static func variantKey(names: [String], request headers: HTTPFields) -> String {
        guard !names.isEmpty else { return "" }
        var key = ""
        for name in names {
            key += name
            key += ":"
            var first = true
            for value in headers.values(for: name) {
                for item in value.split(separator: ",", omittingEmptySubsequences: true) {
                    if !first { key += "," }
                    key += item.trimmingOWS
                    first = false
                }
            }
            key += "\n"
        }
        return key
    }

    /// Whether `stored`, stored for a request with secondary key `storedKey`, may answer `request`.
    static func varyMatches(_ stored: CachedResponse, storedKey: String, request: Request) -> Bool {
        guard let names = stored.freshness.varyNames else { return false }
        return variantKey(names: names, request: request.headers) == storedKey
    }
}
