import CourierCore
import CourierHTTP1
import CourierTLS

/// One HTTP request: method, URL, header fields, optional body and per-request options.
public struct HTTPClientRequest: Sendable {
    public var method: HTTPMethod
    /// The URL. User information in it (`http://user:pass@host/`) is sent as Basic credentials
    /// (RFC 7617) unless ``headers`` has an Authorization field, to this URL's origin only: a
    /// redirect to another origin leaves it behind.
    public var url: HTTPURL
    /// Header fields as given. `Host` is derived from ``url`` when absent (RFC 9112 §3.2);
    /// `Content-Length`/`Transfer-Encoding` come from ``body`` (RFC 9112 §6) and must not be set.
    public var headers: HTTPFields
    public var body: HTTPClientRequestBody?
    /// Overrides of the client's timeouts for this request only.
    public var timeouts: HTTPClientTimeouts?
    /// Send `Expect: 100-continue` and hold the body until the server agrees (RFC 9110 §10.1.1).
    public var expectContinue: Bool
    /// Overrides the client's redirect configuration for this request only.
    public var redirects: RedirectConfiguration?
    /// Overrides the client's redirect handler (``HTTPClientConfiguration/redirectHandler``) for
    /// this request only: asked about each redirect ``redirects`` would follow (RFC 9110 §15.4).
    public var redirectHandler: HTTPClientRedirectHandler?
    /// Overrides the client's TLS configuration (``HTTPClientConfiguration/tls``) for this
    /// request only: trust roots, verification mode, versions, client certificate. nil: the
    /// client's. It is part of the pool key, so a connection made with one TLS configuration is
    /// never used for a request with another. It applies to every `https` hop of the request's
    /// redirect chain, including hops to another origin; a caller that needs different settings
    /// per origin (a per-host pinning policy) follows redirects itself or refuses cross-origin
    /// ones. The trust evaluator (``serverTrustEvaluator``, else the client's) still runs.
    public var tls: TLSConfiguration?
    /// Judges the server of every `https` connection this request uses, in place of the
    /// client's ``HTTPClientConfiguration/serverTrustEvaluator`` (which stays the default for
    /// requests without one). For several owners of policies on one client (session managers
    /// sharing it): each request carries its owner's evaluator. It is part of the pool key, by
    /// identity, so a connection judged by one evaluator is never handed to a request that names
    /// another (or none). Like ``tls`` it applies to every `https` hop of the redirect chain.
    public var serverTrustEvaluator: SharedServerTrustEvaluator?

    public init(
        method: HTTPMethod = .GET, url: HTTPURL, headers: HTTPFields = HTTPFields(),
        body: HTTPClientRequestBody? = nil, expectContinue: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = nil
        self.expectContinue = expectContinue
        self.redirects = nil
        self.redirectHandler = nil
        self.tls = nil
        self.serverTrustEvaluator = nil
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
