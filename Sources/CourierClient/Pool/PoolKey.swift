import CourierTLS

/// What makes two requests able to share a connection: scheme, host, port, the TLS
/// configuration, the trust evaluator and the proxy (RFC 9112 §9.3 leaves reuse to the client;
/// these are the properties that change what is on the other end of the socket or how it is
/// secured). The proxy compares whole: its kind (HTTP, `socks5`, `socks5h`), address and
/// credentials, so tunnels through different proxies or as different proxy users are never
/// shared.
struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    let origin: HTTPOrigin
    /// The TLS configuration, trust evaluator and proxy, boxed; nil when all three are nil (a
    /// plain request with the client's defaults), so comparing such keys compares the origin
    /// only. Comparing the TLS configuration copied it, about 2,000 instructions a lookup.
    private let route: Route?

    private final class Route: Hashable, Sendable {
        let tls: TLSConfiguration?
        let trustEvaluator: SharedServerTrustEvaluator?
        let proxy: ProxyServer?

        init(tls: TLSConfiguration?, trustEvaluator: SharedServerTrustEvaluator?, proxy: ProxyServer?) {
            self.tls = tls
            self.trustEvaluator = trustEvaluator
            self.proxy = proxy
        }

        static func == (lhs: Route, rhs: Route) -> Bool {
            lhs === rhs || (lhs.tls == rhs.tls && lhs.trustEvaluator == rhs.trustEvaluator && lhs.proxy == rhs.proxy)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(tls)
            hasher.combine(trustEvaluator)
            hasher.combine(proxy)
        }
    }

    /// The request's TLS configuration (`https` only); nil: the client's.
    var tls: TLSConfiguration? { route?.tls }
    /// The request's own evaluator (`https` only), compared by identity: a connection accepted
    /// by one evaluator is never reused for a request judged by another. nil: the client's.
    var trustEvaluator: SharedServerTrustEvaluator? { route?.trustEvaluator }
    var proxy: ProxyServer? { route?.proxy }

    init(origin: HTTPOrigin, tls: TLSConfiguration?, trustEvaluator: SharedServerTrustEvaluator? = nil, proxy: ProxyServer?) {
        self.origin = origin
        let route = tls == nil && trustEvaluator == nil && proxy == nil
            ? nil : Route(tls: tls, trustEvaluator: trustEvaluator, proxy: proxy)
        self.route = route
    }

    // Hashed only when the pool's table is searched: the pool compares a request's key with
    // the last one it used first, so hashing every key when it is made (as this did) cost about
    // 1,700 instructions a request for a hash rarely read.
    func hash(into hasher: inout Hasher) {
        hasher.combine(origin)
        hasher.combine(route)
    }

    static func == (lhs: PoolKey, rhs: PoolKey) -> Bool {
        lhs.origin == rhs.origin && lhs.route == rhs.route
    }

    var description: String {
        "\(origin)" + (proxy.map { " via \($0.scheme.rawValue)://\($0.authority)" } ?? "")
    }
}
