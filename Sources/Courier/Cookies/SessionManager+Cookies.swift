import CourierClient
import CourierCore
import Synchronization

/// The session's side of cookies: which `Cookie` field a request carries and which responses'
/// `Set-Cookie` fields are stored. The jar sees every hop of a redirect chain through the hook
/// the session already plugs into the transport's one redirect driver (``SessionTask``'s
/// redirect handler): the 3xx response's cookies are stored there, on the event loop, before the
/// next request is made, and that request gets the cookies for its own URL.
extension SessionManager {
    /// Stores the `Set-Cookie` fields of a response to `url` (none without a storage).
    func storeCookies(from fields: HTTPFields, for url: HTTPURL?) {
        guard let storage = configuration.httpCookieStorage, let url, fields.contains("Set-Cookie") else { return }
        storage.storeCookies(from: fields, for: url)
    }

    /// Puts the `Cookie` field into `request`: the caller's own pairs (`chain.caller`) first,
    /// then the stored cookies for the request's URL whose names the caller's do not name. The
    /// request is left as it is when there is nothing to add.
    func attachCookies(to request: inout HTTPClientRequest, caller: [String]) {
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
              let stored = storage.cookieFieldValue(for: request.url) else { return }
        // Stored values passed the storage model (no CTL); one inserted by hand that a field
        // cannot carry leaves the request as it was.
        guard let merged = CookieFieldMerge.merge(caller: caller, stored: stored),
              let field = try? HTTPField(name: "Cookie", value: merged) else { return }
        request.headers.remove(name: "Cookie")
        request.headers.append(field)
    }
}

/// The merge rule for a caller's `Cookie` field and the stored cookies (one field, RFC 6265bis
/// §5.8.1): the caller's pairs as set, then each stored pair whose name the caller did not use.
enum CookieFieldMerge {
    static func merge(caller: [String], stored: String) -> String? {
        guard !caller.isEmpty else { return stored }
        let own = caller.joined(separator: "; ")
        let names = Set(own.split(separator: ";").map { name(of: $0) })
        let added = stored.split(separator: ";").filter { !names.contains(name(of: $0)) }
        guard !added.isEmpty else { return nil }
        return ([own] + added.map { String($0.drop(while: { $0 == " " })) }).joined(separator: "; ")
    }

    static func name(of pair: Substring) -> Substring {
        let trimmed = pair.drop(while: { $0 == " " || $0 == "\t" })
        guard let equals = trimmed.firstIndex(of: "=") else { return "" }
        return trimmed[..<equals]
    }
}

/// The caller's `Cookie` values along one request's redirect chain: those of the first request
/// (or of a request the redirect hook rewrote), kept while the chain stays on their origin — the
/// transport drops them on the way to another one (RFC 9110 §15.4) — so that each hop's field
/// is rebuilt from them and the jar for that hop's URL.
final class CookieChain: Sendable {
    private let values: Mutex<[String]>

    init(caller: [String]) { values = Mutex(caller) }

    var caller: [String] {
        get { values.withLock { $0 } }
        set { values.withLock { $0 = newValue } }
    }

    /// The next hop (`proposed`, the transport's) with the caller's values in place of the
    /// merged field carried over: none when the transport dropped the field (a new origin).
    func baseRequest(for proposed: HTTPClientRequest) -> HTTPClientRequest {
        var base = proposed
        let carried = proposed.headers.contains("Cookie") ? caller : []
        caller = carried
        base.headers.remove(name: "Cookie")
        for value in carried {
            if let field = try? HTTPField(name: "Cookie", value: value) { base.headers.append(field) }
        }
        return base
    }
}
