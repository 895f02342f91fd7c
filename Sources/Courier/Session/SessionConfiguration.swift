import CourierClient
import FoundationEssentials

/// How a ``SessionManager`` behaves (the part of `NSURLSessionConfiguration` that applies on a
/// server): the transport's settings plus what the session layer adds.
public struct SessionConfiguration: Sendable {
    /// The transport: pool size, connect/TLS timeouts, proxy, base TLS settings, decompression,
    /// event loop threads. Its `redirects` decide which redirects are followed; the session
    /// follows them itself so that the redirect hook sees each one (a request's own
    /// ``Request/redirects`` take their place). Its `serverTrustEvaluator` is replaced by the
    /// session's security policies, which each request carries. A session given a client
    /// (``SessionManager/init(client:configuration:securityPolicy:completionQueue:completionGroup:)``)
    /// uses that client's configuration here instead.
    public var client = HTTPClientConfiguration()
    /// Header fields added to every request that does not set them itself.
    public var httpAdditionalHeaders = HTTPFields()
    /// The longest a whole task may take, redirects included (`timeoutIntervalForResource`),
    /// on the monotonic clock from `resume()`; nil for no limit. A request's own
    /// ``Request/totalTimeoutInterval`` may set a sooner one. Each request's
    /// ``Request/timeoutInterval`` is the idle timeout.
    public var timeoutIntervalForResource: Double? = nil
    /// The largest body a data or upload task collects in memory. Past it the task fails with
    /// ``CourierError/Code/bodyTooLarge``; use a download task for large bodies.
    public var maximumInMemoryBodySize = 64 * 1024 * 1024
    /// How many downloaded bytes may wait for the disk before the task stops reading the socket.
    public var downloadWriteBufferSize = 1024 * 1024
    /// The shortest gap between two progress callbacks of one task, in seconds. Updates in
    /// between are merged; the last one is always delivered.
    public var progressInterval: Double = 0.05
    /// Where downloads are written until the destination closure names their final place.
    public var temporaryDirectory: URL = FileManager.default.temporaryDirectory
    /// A private HTTP cache for GET responses (RFC 9111: freshness, revalidation with 304s, Vary,
    /// invalidation by unsafe methods), consulted and filled by data tasks
    /// (``MemoryResponseCache``, ``DiskResponseCache``); nil (the default) for none. Each
    /// request's ``Request/cachePolicy`` says how it uses it.
    public var responseCache: ResponseCache? = nil
    /// Adapts every request before each attempt and decides whether a failed attempt is made
    /// again (Alamofire's `Session(interceptor:)`): a ``RetryPolicy``, an
    /// ``AuthenticationInterceptor``, or several as one ``Interceptor``. A request's own
    /// ``Request/interceptor`` runs first. nil (the default): requests go as they are and a
    /// failure stands.
    public var interceptor: (any RequestInterceptor)? = nil
    /// Monitors that see every lifecycle point of the session's tasks (``EventMonitor``), each on
    /// its own queue, in order (Alamofire's `Session(eventMonitors:)`): a ``LoggingEventMonitor``,
    /// a ``HARRecorder``, several as one ``CompositeEventMonitor``. Read when the session is made.
    /// Empty (the default): the session pays nothing for monitors.
    public var eventMonitors: [any EventMonitor] = []
    /// Where the session keeps cookies (RFC 6265bis): it stores every response's `Set-Cookie`,
    /// redirects included, and adds a `Cookie` field to every request. A fresh ``CookieJar`` for
    /// each configuration made, so one jar per session unless a configuration value (or a jar)
    /// is given to several sessions, which then share it. nil: no cookies are stored or sent.
    public var httpCookieStorage: (any CookieStorage)? = CookieJar()
    /// Whether requests get the stored cookies (URLSession's `httpShouldSetCookies`); responses'
    /// cookies are stored either way while ``httpCookieStorage`` is set. A `Cookie` field the
    /// caller sets is always sent: the stored cookies whose names it does not name follow its
    /// pairs in the same field.
    public var httpShouldSetCookies = true
    /// Whether data and upload tasks keep the body they receive, for their completion and
    /// serializer (and so stop at ``maximumInMemoryBodySize``). Off: the body reaches only the
    /// data hooks and event monitors (`didReceiveData`) as it arrives, the completion's data is
    /// empty, and no size limit applies — a streaming consumer such as `courier` writing to
    /// stdout. The session's cache, if any, stores nothing for such tasks.
    public var retainsDataTaskBodies = true

    public init() {}

    /// The defaults: those of ``HTTPClientConfiguration`` and no resource timeout.
    public static var `default`: SessionConfiguration { SessionConfiguration() }
}
