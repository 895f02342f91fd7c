import CourierClient
import CourierCore
import FoundationEssentials
import Synchronization

/// The default ``CookieStorage``: an in-memory RFC 6265bis cookie store, thread-safe behind one
/// `Mutex`, indexed by domain so that a request's lookup reads only the buckets of its host and
/// the host's parent domains (§5.8.3). It refuses cookies for public suffixes
/// (``PublicSuffixList/system``), enforces the `__Secure-` and `__Host-` prefixes (§5.4), caps
/// lifetimes at 400 days (§5.5) and keeps the limits of §6.1 with the eviction order of §5.7.
/// It reads and writes curl's cookie files (``NetscapeCookieFile``).
///
/// ```swift
/// let jar = CookieJar()
/// var configuration = SessionConfiguration()
/// configuration.httpCookieStorage = jar      // shared by every session given this jar
/// try jar.load(contentsOf: "cookies.txt")    // made by `curl -c cookies.txt`
/// ```
public final class CookieJar: CookieStorage {
    /// The limits of RFC 6265bis §6.1 (the RFC's minimums by default).
    public struct Limits: Sendable, Hashable {
        /// Cookies kept per domain field; past it the least recently used go (non-secure first).
        public var cookiesPerDomain = 50
        /// Cookies kept in all; past it the least recently used go.
        public var totalCookies = 3000

        public init(cookiesPerDomain: Int = 50, totalCookies: Int = 3000) {
            self.cookiesPerDomain = max(1, cookiesPerDomain)
            self.totalCookies = max(1, totalCookies)
        }
    }

    private let store: Mutex<CookieStore>
    let publicSuffixes: PublicSuffixList
    /// The clock (wall time: cookie expiry is a date).
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - publicSuffixes: the list consulted for Domain attributes (default: the system's,
    ///     or the conservative rule without one).
    public convenience init(limits: Limits = Limits(), publicSuffixes: PublicSuffixList = .system) {
        self.init(limits: limits, publicSuffixes: publicSuffixes, now: { Date() })
    }

    init(limits: Limits = Limits(), publicSuffixes: PublicSuffixList = .system, now: @escaping @Sendable () -> Date) {
        store = Mutex(CookieStore(limits: limits))
        self.publicSuffixes = publicSuffixes
        self.now = now
    }

    // MARK: CookieStorage

    public func storeCookies(from fields: HTTPFields, for url: HTTPURL) {
        for line in fields.valueBytes(for: "Set-Cookie") { _ = try? store(setCookie: line, for: url) }
    }

    public func cookieFieldValue(for url: HTTPURL) -> String? {
        guard let target = CookieURL(url) else { return nil }
        let now = now()
        return store.withLock { $0.fieldValue(for: target, now: now) }
    }

    // MARK: Storing and reading

    /// Parses and stores one `Set-Cookie` value received from `url` (RFC 6265bis §5.6, §5.7).
    ///
    /// - Returns: the cookie as stored.
    /// - Throws: ``CookieError`` saying which step refused the line.
    @discardableResult
    public func store(setCookie line: some Collection<UInt8>, for url: HTTPURL) throws(CookieError) -> Cookie {
        guard let target = CookieURL(url) else { throw CookieError(.unsupportedURL) }
        let parsed = try SetCookie.parse(line)
        let now = now()
        return try store.withLock { store throws(CookieError) in
            try store.store(parsed, from: target, now: now, publicSuffixes: publicSuffixes)
        }
    }

    /// ``store(setCookie:for:)`` for a string.
    @discardableResult
    public func store(setCookie line: String, for url: HTTPURL) throws(CookieError) -> Cookie {
        try store(setCookie: Array(line.utf8), for: url)
    }

    /// The cookies a request to `url` sends, in the order of RFC 6265bis §5.8.3 (longer paths
    /// first, then earlier creation); their last-access time becomes now.
    public func cookies(for url: HTTPURL) -> [Cookie] {
        guard let target = CookieURL(url) else { return [] }
        let now = now()
        return store.withLock { $0.cookies(for: target, now: now) }
    }

    /// Adds or replaces a cookie as given (no storage-model checks: the caller's own cookie).
    public func insert(_ cookie: Cookie) {
        let now = now()
        store.withLock { $0.insert(cookie, keepCreationTime: false, now: now) }
    }

    /// Every cookie that has not expired (reads the whole jar).
    public var allCookies: [Cookie] {
        let now = now()
        return store.withLock { $0.all }.filter { !$0.isExpired(at: now) }
    }

    public var count: Int { store.withLock { $0.count } }

    public func removeAll() { store.withLock { $0.removeAll { _ in true } } }

    /// Drops the session cookies, as a browser does when it ends a session.
    public func removeSessionCookies() { store.withLock { $0.removeAll(where: \.isSessionCookie) } }

    /// Drops the cookies that expired.
    public func removeExpiredCookies() {
        let now = now()
        store.withLock { $0.removeAll { $0.isExpired(at: now) } }
    }
}
