import CourierClient
import CourierCore
import FoundationEssentials

/// A request as the Courier layer builds it (AFNetworking's `NSURLRequest`): what the request
/// serializers produce and what tasks run. Nothing is validated until the task starts; an
/// invalid URL or header then fails the task in the `serialize` phase.
public struct Request: Sendable {
    /// The URL, parsed once (``RequestURL``): what the session and the transport use.
    var location: RequestURL

    /// An absolute `http` or `https` URL (RFC 9110 §4.2), as Foundation's `URL`: the one given,
    /// or, for a URL Courier parsed itself (a serializer's, a redirect's), its Foundation form.
    /// Setting it parses the new URL once.
    public var url: URL {
        get { location.foundation }
        set { location = RequestURL(newValue) }
    }

    /// The URL as the transport sends it (RFC 9110 §4.2, normalised as ``HTTPURL`` says), or nil
    /// when ``url`` has no such form (the task then fails with ``CourierError/Code/invalidURL``).
    public var httpURL: HTTPURL? {
        get { location.httpURL }
    }

    /// Replaces the URL with one already parsed (no Foundation `URL` is made).
    public mutating func setURL(_ url: HTTPURL) { location = RequestURL(url) }
    public var method: HTTPMethod
    /// Header fields. `Content-Length` and `Transfer-Encoding` come from ``body`` (RFC 9112 §6)
    /// and must not be set here.
    public var headers: HTTPFields
    public var body: RequestBody?
    /// Seconds without a byte from the server before the request fails (AFNetworking's
    /// `timeoutInterval`, 60 s by default, NSURLRequest semantics: an idle timeout, not a
    /// deadline for the whole transfer).
    public var timeoutInterval: Double
    /// Seconds the whole task may take from ``SessionTask/resume()`` to its end — every redirect,
    /// authentication retry and the transport's one safe retry included — or nil for no limit of
    /// its own (zero, negative and non-finite values too, as for ``timeoutInterval``). A total
    /// deadline, unlike ``timeoutInterval``: it runs out even while bytes keep
    /// arriving. The session's `timeoutIntervalForResource` still applies; the sooner of the two
    /// wins. Measured on the monotonic clock. When it runs out the task fails with
    /// ``CourierError/Code/resourceTimeout`` in the phase it was in (connect while waiting for a
    /// connection, send, receive, redirect). The task's first request decides: a request a
    /// redirect hook returns does not move the deadline.
    public var totalTimeoutInterval: Double?
    /// Which redirects this task follows and how many (RFC 9110 §15.4), in place of the
    /// session's `configuration.client.redirects`; nil: the session's. As for
    /// ``totalTimeoutInterval``, the task's first request decides.
    public var redirects: RedirectConfiguration?
    /// This task's response validation (acceptable status codes and content types, custom
    /// checks), in place of the serializer's own (``ResponseSerializer/serialize(response:data:validator:)``):
    /// Alamofire's `validate()` per request. nil: the serializer's. Applies to data and upload
    /// tasks; the task's first request decides.
    public var validation: ResponseValidator?
    /// How this request uses the session's cache (``SessionConfiguration/responseCache``):
    /// RFC 9111's rules by default. The task's first request decides.
    public var cachePolicy: CachePolicy = .useProtocolCachePolicy
    /// This task's interceptor (Alamofire's per-request `interceptor`): its adapter runs before
    /// the session's on every attempt, and its retrier is asked before the session's when an
    /// attempt fails (``SessionConfiguration/interceptor``). As for ``validation``, the task's
    /// first request decides.
    public var interceptor: (any RequestInterceptor)?

    public init(
        url: URL, method: HTTPMethod = .GET, headers: HTTPFields = HTTPFields(), body: RequestBody? = nil,
        timeoutInterval: Double = 60, totalTimeoutInterval: Double? = nil
    ) {
        self.init(location: RequestURL(url), method: method, headers: headers, body: body,
                  timeoutInterval: timeoutInterval, totalTimeoutInterval: totalTimeoutInterval)
    }

    /// A request for a URL already parsed: nothing is parsed again on the way to the socket.
    public init(
        url: HTTPURL, method: HTTPMethod = .GET, headers: HTTPFields = HTTPFields(), body: RequestBody? = nil,
        timeoutInterval: Double = 60, totalTimeoutInterval: Double? = nil
    ) {
        self.init(location: RequestURL(url), method: method, headers: headers, body: body,
                  timeoutInterval: timeoutInterval, totalTimeoutInterval: totalTimeoutInterval)
    }

    init(
        location: RequestURL, method: HTTPMethod, headers: HTTPFields, body: RequestBody?,
        timeoutInterval: Double, totalTimeoutInterval: Double?
    ) {
        self.location = location
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
        self.totalTimeoutInterval = totalTimeoutInterval
        self.redirects = nil
        self.validation = nil
        self.interceptor = nil
    }

    /// Sends `credential` with this request as `Authorization: Basic …` (RFC 7617 §2),
    /// replacing any Authorization field: per-request credentials, preemptively, where the
    /// request serializer's ``HTTPRequestSerializer/setAuthorizationHeader(username:password:)``
    /// sets them for every request. Like every Authorization field it is sent to the request's
    /// origin only: a redirect to another origin leaves it behind.
    ///
    /// - Throws: ``CourierError`` `.invalidHeader` for credentials Basic cannot carry (a `:` in
    ///   the user-id, or a control character).
    public mutating func setBasicAuthorization(_ credential: Credential) throws(CourierError) {
        let field = try HTTPField.basicAuthorization(credential, proxy: false)
        headers.remove(name: field.name)
        headers.append(field)
    }

    /// The first value of a header field (case-insensitive name).
    public func value(forHTTPHeaderField name: String) -> String? { headers[first: name] }

    /// Sets (replacing) or, with nil, removes a header field. Names or values that would produce
    /// an invalid or injected request (CR, LF, NUL, non-token names) are refused.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) throws(CourierError) {
        guard let value else { headers.remove(name: name); return }
        do { try headers.set(name: name, value: value) } catch {
            throw CourierError(.invalidHeader, underlying: error, detail: "header \(name)")
        }
    }
}

/// Where a request body comes from. Every kind can be produced again, so a request can be
/// retried or redirected with 307/308.
public enum RequestBody: Sendable {
    /// Bytes in memory, sent with Content-Length.
    case data(Data)
    /// A regular file, streamed from disk, sent with Content-Length.
    case file(URL)
    /// A stream of pieces. A known `length` is sent as Content-Length and the stream must
    /// produce exactly that many bytes; nil sends the body chunked (RFC 9112 §7.1).
    /// `makeStream` is called once per attempt; it runs on an event loop and must not block.
    case stream(length: Int64?, makeStream: @Sendable () -> any HTTPClientBodyStream)

    /// The body's length when it is known before sending (a file's size is read now).
    public var length: Int64? {
        switch self {
        case .data(let data): Int64(data.count)
        case .file(let url): FileSize.of(url.path)
        case .stream(let length, _): length
        }
    }
}

/// Sizes of regular files (`stat(2)`, through CourierPosix's `FileSystem`).
enum FileSize {
    static func of(_ path: String) -> Int64? {
        guard let info = try? FileSystem.status(ofPath: path), info.isRegularFile else { return nil }
        return info.size
    }
}
