import FoundationEssentials

/// One stored cookie, with the fields of the storage model (RFC 6265bis §5.7): name, value,
/// domain and host-only flag, path, expiry (nil for a session cookie), the secure-only and
/// http-only flags, the same-site flag, and its creation and last-access times.
public struct Cookie: Hashable, Sendable, CustomStringConvertible {
    /// The cookie's name; may be empty (RFC 6265bis §5.6: a nameless cookie is sent as its value).
    public var name: String
    public var value: String
    /// The canonical host (host-only cookie) or the Domain attribute's domain, lowercase, without
    /// a leading dot (RFC 6265bis §5.7 step 7).
    public var domain: String
    /// Sent only to exactly ``domain``, not to its subdomains (no Domain attribute).
    public var isHostOnly: Bool
    /// The path prefix the cookie is sent for (RFC 6265bis §5.1.4).
    public var path: String
    /// When the cookie expires; nil for a session cookie, kept until the jar is dropped or
    /// ``CookieJar/removeSessionCookies()`` (RFC 6265bis §5.7 step 3).
    public var expires: Date?
    /// Sent over `https` only (the `Secure` attribute, RFC 6265bis §5.6.5).
    public var isSecure: Bool
    /// Not for non-HTTP APIs (the `HttpOnly` attribute, RFC 6265bis §5.6.6). Every request this
    /// library makes is an HTTP API; the flag is kept and written to cookie files.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute (RFC 6265bis §5.6.7).
    public var sameSite: SameSite
    /// When the cookie was first stored; a replacement keeps the replaced cookie's (§5.7 step 20).
    public var creationTime: Date
    /// When the cookie was last sent or stored.
    public var lastAccessTime: Date

    /// The `SameSite` values (RFC 6265bis §5.6.7). A program that is not a browser has no
    /// "site for cookies": every request it makes is same-site, so, as in curl, the flag is kept
    /// and written but never stops a cookie from being sent.
    public enum SameSite: String, Hashable, Sendable {
        case strict = "Strict"
        case lax = "Lax"
        case none = "None"
        /// No (or an unknown) SameSite attribute.
        case `default` = "Default"
    }

    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/", expires: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite = .default, creationTime: Date = Date(),
        lastAccessTime: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.creationTime = creationTime
        self.lastAccessTime = lastAccessTime ?? creationTime
    }

    /// A session cookie lasts as long as its jar (no Expires or Max-Age).
    public var isSessionCookie: Bool { expires == nil }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// `name=value` as the Cookie field carries it (RFC 6265bis §5.8.3 step 4): the value alone
    /// for a nameless cookie.
    public var pair: String { name.isEmpty ? value : "\(name)=\(value)" }

    /// The identity of a cookie in a store: name, domain, host-only flag and path (§5.7 step 20).
    var key: Key { Key(name: name, domain: domain, isHostOnly: isHostOnly, path: path) }

    struct Key: Hashable {
        var name: String
        var domain: String
        var isHostOnly: Bool
        var path: String
    }

    public var description: String {
        "Cookie(\(name)=<\(value.utf8.count) bytes>; domain=\(domain)\(isHostOnly ? " host-only" : ""); path=\(path)\(isSecure ? "; Secure" : "")\(isHTTPOnly ? "; HttpOnly" : ""))"
    }
}
