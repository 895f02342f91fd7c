import CourierCore
import CourierHTTP1
import CourierTLS

/// One HTTP request: method, URL, header fields, optional body and per-request options.
public struct HTTPClientRequest: Sendable {
    /// The members, in one copy-on-write box. A request is copied about eight times on its way
    /// to the socket (into the execution, its redirect hold, validation, the head): a copy of
    /// the box is one retain, where a copy of the members retained some twenty strings and
    /// buffers (callgrind, `courier bench`).
    ///
    /// `@unchecked Sendable`: a box is only mutated through ``uniqueStorage()``, that is when
    /// this request holds the only reference; shared boxes are read-only.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var url: HTTPURL
        @exclusivity(unchecked) var headers: HTTPFields
        @exclusivity(unchecked) var body: HTTPClientRequestBody?
        @exclusivity(unchecked) var timeouts: HTTPClientTimeouts?
        @exclusivity(unchecked) var expectContinue: Bool
        @exclusivity(unchecked) var redirects: RedirectConfiguration?
        @exclusivity(unchecked) var redirectHandler: HTTPClientRedirectHandler?
        @exclusivity(unchecked) var tls: TLSConfiguration?
        @exclusivity(unchecked) var serverTrustEvaluator: SharedServerTrustEvaluator?

        init(method: HTTPMethod, url: HTTPURL, headers: HTTPFields, body: HTTPClientRequestBody?, timeouts: HTTPClientTimeouts?, expectContinue: Bool, redirects: RedirectConfiguration?, redirectHandler: HTTPClientRedirectHandler?, tls: TLSConfiguration?, serverTrustEvaluator: SharedServerTrustEvaluator?) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeouts = timeouts
            self.expectContinue = expectContinue
            self.redirects = redirects
            self.redirectHandler = redirectHandler
            self.tls = tls
            self.serverTrustEvaluator = serverTrustEvaluator
        }

        func copy() -> Storage {
            Storage(method: method, url: url, headers: headers, body: body, timeouts: timeouts, expectContinue: expectContinue, redirects: redirects, redirectHandler: redirectHandler, tls: tls, serverTrustEvaluator: serverTrustEvaluator)
        }
    }

    private var storage: Storage

    /// The box to mutate: this request's own (`_modify` yields its member in place, so a
    /// mutation such as `request.headers.append(…)` copies nothing when the box is not shared).
    /// Reads yield the member in place too (`_read`): `request.url.scheme` copies one field,
    /// not the whole URL with its strings.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Whether `other` is this very request (the same box, so every member is the same): a
    /// request changed since was copied into a box of its own.
    func isSameRequest(as other: HTTPClientRequest) -> Bool {
        storage === other.storage
    }

    /// The box, as an identity: everything derived from this request alone is derived from it.
    /// Whether the request holds values only: no body (which could be large), redirect handler
    /// or trust evaluator (either could hold the client, through a session). Memory that lasts as
    /// long as the client (a loop's last route, a key's repeated request head) keeps only such
    /// requests, so that it keeps nothing large and makes no cycle with the client.
    var holdsOnlyValues: Bool {
        if case .none = body { redirectHandler == nil && serverTrustEvaluator == nil } else { false }
    }

    var identity: any AnyObject & Sendable { storage }

    public var method: HTTPMethod {
        _read { yield storage.method }
        _modify { yield &uniqueStorage().method }
    }
    /// The URL. User information in it (`http://user:pass@host/`) is sent as Basic credentials
    /// (RFC 7617) unless ``headers`` has an Authorization field, to this URL's origin only: a
    /// redirect to another origin leaves it behind.
    public var url: HTTPURL {
        _read { yield storage.url }
        _modify { yield &uniqueStorage().url }
    }
    /// Header fields as given. `Host` is derived from ``url`` when absent (RFC 9112 §3.2);
    /// `Content-Length`/`Transfer-Encoding` come from ``body`` (RFC 9112 §6) and must not be set.
    public var headers: HTTPFields {
        _read { yield storage.headers }
        _modify { yield &uniqueStorage().headers }
    }
    public var body: HTTPClientRequestBody? {
        _read { yield storage.body }
        _modify { yield &uniqueStorage().body }
    }
    /// Overrides of the client's timeouts for this request only.
    public var timeouts: HTTPClientTimeouts? {
        _read { yield storage.timeouts }
        _modify { yield &uniqueStorage().timeouts }
    }
    /// Send `Expect: 100-continue` and hold the body until the server agrees (RFC 9110 §10.1.1).
    public var expectContinue: Bool {
        _read { yield storage.expectContinue }
        _modify { yield &uniqueStorage().expectContinue }
    }
    /// Overrides the client's redirect configuration for this request only.
    public var redirects: RedirectConfiguration? {
        _read { yield storage.redirects }
        _modify { yield &uniqueStorage().redirects }
    }
    /// Overrides the client's redirect handler (``HTTPClientConfiguration/redirectHandler``) for
    /// this request only: asked about each redirect ``redirects`` would follow (RFC 9110 §15.4).
    public var redirectHandler: HTTPClientRedirectHandler? {
        _read { yield storage.redirectHandler }
        _modify { yield &uniqueStorage().redirectHandler }
    }
    /// Overrides the client's TLS configuration (``HTTPClientConfiguration/tls``) for this
    /// request only: trust roots, verification mode, versions, client certificate. nil: the
    /// client's. It is part of the pool key, so a connection made with one TLS configuration is
    /// never used for a request with another. It applies to every `https` hop of the request's
    /// redirect chain, including hops to another origin; a caller that needs different settings
    /// per origin (a per-host pinning policy) follows redirects itself or refuses cross-origin
    /// ones. The trust evaluator (``serverTrustEvaluator``, else the client's) still runs.
    public var tls: TLSConfiguration? {
        _read { yield storage.tls }
        _modify { yield &uniqueStorage().tls }
    }
    /// Judges the server of every `https` connection this request uses, in place of the
    /// client's ``HTTPClientConfiguration/serverTrustEvaluator`` (which stays the default for
    /// requests without one). For several owners of policies on one client (session managers
    /// sharing it): each request carries its owner's evaluator. It is part of the pool key, by
    /// identity, so a connection judged by one evaluator is never handed to a request that names
    /// another (or none). Like ``tls`` it applies to every `https` hop of the redirect chain.
    public var serverTrustEvaluator: SharedServerTrustEvaluator? {
        _read { yield storage.serverTrustEvaluator }
        _modify { yield &uniqueStorage().serverTrustEvaluator }
    }

    public init(
        method: HTTPMethod = .GET, url: HTTPURL, headers: HTTPFields = HTTPFields(),
        body: HTTPClientRequestBody? = nil, expectContinue: Bool = false
    ) {
        storage = Storage(
            method: method, url: url, headers: headers, body: body, timeouts: nil, expectContinue: expectContinue,
            redirects: nil, redirectHandler: nil, tls: nil, serverTrustEvaluator: nil)
    }

    /// Parses `url` (RFC 3986) and builds a request.
    public init(method: HTTPMethod = .GET, url: String, headers: HTTPFields = HTTPFields(), body: HTTPClientRequestBody? = nil) throws(HTTPURLError) {
        self.init(method: method, url: try HTTPURL(url), headers: headers, body: body)
    }
}

/// Where a request body comes from. Every kind can be produced again, so a request whose body
/// was not yet sent can be retried or redirected with 307/308.
public enum HTTPClientRequestBody: Sendable {
    /// Bytes in memory, sent with Content-Length.
    case bytes(ByteBuffer)
    /// A regular file, read in pieces as the socket drains, sent with Content-Length.
    case file(path: String)
    /// A stream of pieces: `length` known → Content-Length (the stream must produce exactly that
    /// many bytes), nil → chunked (RFC 9112 §7.1). `makeStream` is called once per attempt.
    case stream(length: Int64?, makeStream: @Sendable () -> any HTTPClientBodyStream)
    /// Pieces from an `AsyncSequence`, iterated by a Swift task of its own (see
    /// ``HTTPClientBodySequence``): `length` known → Content-Length (exactly that many bytes),
    /// nil → chunked (RFC 9112 §7.1). `makeSequence` is called once per attempt. The generic
    /// ``sequence(length:_:)-(_,()->Pieces)`` builds one from any sequence of buffers.
    case sequence(length: Int64?, makeSequence: @Sendable () -> HTTPClientBodySequence)

    /// A body from a string's UTF-8 bytes.
    public static func string(_ text: String) -> HTTPClientRequestBody { .bytes(ByteBuffer(string: text)) }
}

/// A pull source of request body pieces. Called on an event loop when the socket can take
/// more: it must not block for long (a regular file read is fine; a network wait is not).
///
/// A stream that has nothing to give *yet* (a rate limiter, say) must not sleep: it returns an
/// empty piece and says in ``waitAfterEmptyPiece`` how long the connection should wait before
/// asking again. The connection then arms a timer on its loop and calls ``next()`` when it fires.
public protocol HTTPClientBodyStream {
    /// The next piece, or nil at the end. Throwing fails the request in the `send` phase.
    /// An empty piece means "nothing right now" (see ``waitAfterEmptyPiece``).
    mutating func next() throws -> ByteBuffer?

    /// Read right after ``next()`` returned an empty piece: how long to wait before calling
    /// ``next()`` again. nil (the default) asks again at once — up to 16 times in a row, then
    /// after 1 ms each, so a stream that stays empty cannot spin the loop. Ignored after
    /// non-empty pieces.
    var waitAfterEmptyPiece: TimeAmount? { get }
}

extension HTTPClientBodyStream {
    /// Streams that never run dry ask again at once.
    public var waitAfterEmptyPiece: TimeAmount? { nil }
}
