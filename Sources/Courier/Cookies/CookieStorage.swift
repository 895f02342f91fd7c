import CourierClient

/// Where a session keeps cookies: it stores the `Set-Cookie` fields of every response,
/// redirects included, and asks for the `Cookie` field of every request (RFC 6265bis §5.7,
/// §5.8). ``CookieJar`` is the default; a type of one's own (a database, a jar shared across
/// processes) plugs in through ``SessionConfiguration/httpCookieStorage``.
///
/// Threading: called from event loops and from any thread, concurrently; implementations must
/// be thread-safe and must not block for long (no I/O on these calls).
public protocol CookieStorage: AnyObject, Sendable {
    /// Stores what the response to `url` set: each field value of `fields` named `Set-Cookie`,
    /// one cookie each (RFC 6265bis §5.6, §5.7). Lines it refuses are dropped.
    func storeCookies(from fields: HTTPFields, for url: HTTPURL)

    /// The `Cookie` field value for a request to `url`: the cookies that apply, in the order of
    /// RFC 6265bis §5.8.3, joined with `"; "`; nil when none applies.
    func cookieFieldValue(for url: HTTPURL) -> String?
}
