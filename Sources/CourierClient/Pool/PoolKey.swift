import CourierTLS

/// What makes two requests able to share a connection: scheme, host, port, the TLS
/// configuration, the trust evaluator and the proxy (RFC 9112 §9.3 leaves reuse to the client;
/// these are the properties that change what is on the other end of the socket or how it is
/// secured). The proxy compares whole: its kind (HTTP, `socks5`, `socks5h`), address and
/// credentials, so tunnels through different proxies or as different proxy users are never
/// shared.
struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    let origin: HTTPOrigin
    let tls: TLSConfiguration?
    /// The request's own evaluator (`https` only), compared by identity: a connection accepted
    /// by one evaluator is never reused for a request judged by another. nil: the client's.
    let trustEvaluator: SharedServerTrustEvaluator?
    let proxy: ProxyServer?
    /// The members' hash, computed once: the pool's tables look a key up about six times per
    /// request, and hashing the TLS configuration and the proxy each time cost more than the
    /// lookups themselves.
    private let hashCode: Int

    init(origin: HTTPOrigin, tls: TLSConfiguration?, trustEvaluator: SharedServerTrustEvaluator? = nil, proxy: ProxyServer?) {
        self.origin = origin
        self.tls = tls
        self.trustEvaluator = trustEvaluator
        self.proxy = proxy
        var hasher = Hasher()
        hasher.combine(origin)
        hasher.combine(tls)
        hasher.combine(trustEvaluator)
        hasher.combine(proxy)
        hashCode = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hashCode)
    }

    static func == (lhs: PoolKey, rhs: PoolKey) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.origin == rhs.origin && lhs.tls == rhs.tls
            && lhs.trustEvaluator == rhs.trustEvaluator && lhs.proxy == rhs.proxy
    }

    var description: String {
        "\(origin)" + (proxy.map { " via \($0.scheme.rawValue)://\($0.authority)" } ?? "")
    }
}
