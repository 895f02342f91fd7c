import CourierCore
import CourierHTTP1
import CourierTLS

/// Everything a client is set up with. Every default is in docs/ARCHITECTURE.md.
public struct HTTPClientConfiguration: Sendable {
    /// TLS for `https` origins (and nothing else: proxies are plain HTTP).
    public var tls: TLSConfiguration = .clientDefault
    public var timeouts: HTTPClientTimeouts = .default
    /// Open connections per (scheme, host, port, TLS configuration, proxy), like NSURLSession's
    /// `httpMaximumConnectionsPerHost`.
    public var maximumConnectionsPerHost = 6
    /// How long a keep-alive connection may sit unused in the pool.
    public var idleConnectionTimeout: TimeAmount = .seconds(60)
    /// Requests per connection before it is closed (nil: no limit).
    public var maximumUsesPerConnection: Int? = nil
    public var redirects: RedirectConfiguration = .default
    /// Asked about each redirect ``redirects`` would follow: follow, follow a modified request,
    /// or stop (RFC 9110 §15.4). nil: follow. A request's own handler replaces it.
    public var redirectHandler: HTTPClientRedirectHandler? = nil
    /// Undo gzip/deflate and send `Accept-Encoding: gzip, deflate` when the request has none
    /// (never a coding the client cannot undo). A body with any other coding is delivered as
    /// received and the coding named in ``HTTPClientResponseHead/undecodedContentCodings``;
    /// off: no `Accept-Encoding` is added and every coding is delivered and named that way.
    public var decompression = true
    public var decompressionLimits: ContentDecoderLimits = .default
    public var proxy: ProxyConfiguration = .none
    /// Judges every TLS server after the handshake, before a request is sent (pinning). nil:
    /// OpenSSL's verification alone decides (per ``tls``).
    public var serverTrustEvaluator: ServerTrustEvaluator? = nil
    public var parser: HTTPParserConfiguration = .default
    /// The longest a request waits in the pool for a connection (nil: until its total deadline).
    public var poolWaitTimeout: TimeAmount? = nil
    /// Event loop threads when the client creates its own group (default: one per core).
    public var eventLoopThreads: Int? = nil
    /// Busy polling of the client's own loops (``EventLoop/init(name:busyPoll:batchWindow:)``): off by
    /// default; lowers latency for a sequential client on a dedicated core.
    public var busyPoll: TimeAmount? = nil
    /// The batch window of the client's own loops (``EventLoop/init(name:busyPoll:batchWindow:)``):
    /// off by default; fewer wake-ups for a client that keeps many requests in flight, at the
    /// price of up to the window of added latency on each reply.
    public var batchWindow: TimeAmount? = nil
    /// The client's DNS cache, shared by its connections: answers kept for `ttl` (60 s, like
    /// curl), negative answers 5 s, one lookup in flight per name however many connections
    /// wait for it (``DNSCacheConfiguration``). nil: every connection calls `getaddrinfo`.
    public var dnsCache: DNSCacheConfiguration? = .default
    /// Resume TLS sessions (TLS 1.2 tickets, RFC 5077; TLS 1.3 PSK, RFC 8446 §2.2): a new
    /// connection offers a session an earlier connection to the same origin (host, port, SNI)
    /// with the same TLS configuration received, and skips the certificate exchange when the
    /// server accepts it. The server trust evaluator still judges every connection, resumed or
    /// not, with the chain of the session's full handshake. Sessions are kept per client (per
    /// origin at most ``maximumConnectionsPerHost`` or 8, whichever is more; 128 origins) and
    /// released at shutdown. Off: every handshake is full.
    public var tlsSessionResumption = true

    public init() {}
}
