import CourierHTTP1

/// What an execution derives from its request and its client's fixed configuration: the URL's
/// Basic credentials (RFC 7617), the pool key, and, from the first attach, the request head.
///
/// An execution reused for the same request (``HTTPClient/execute(_:delegate:reusing:)``, as a
/// load generator sends one request again and again) finds them here instead of deriving them
/// again, about 800 instructions a request. The route holds the request it was made from:
/// holding the request's box keeps the box's identity from being recycled, and a request that
/// changed since (a redirect's next hop, or the caller's edit, which copies a shared box) has
/// another box, so it never matches. A class: the execution looks at it twice a request, and
/// binding a struct this wide copied it each time.
final class RequestRoute {
    let request: HTTPClientRequest
    let urlAuthorization: String?
    let key: PoolKey
    /// The head `attach` made, and whether it was in absolute form for a plain proxy.
    private var head: (head: HTTPRequestHead, proxied: Bool)?
    /// The pool's entry for `key`, once found (entries stay for the pool's life, and a route
    /// serves one client). Touched by the execution's `acquire` only.
    private var poolEntry: ConnectionPool.Entry?

    /// Derives the route of `request` on a client configured as `configuration`. Throws the
    /// error the request fails with: user information that cannot be sent as Basic credentials,
    /// an unusable proxy setting, a host a SOCKS5 proxy cannot be given.
    init(_ request: HTTPClientRequest, configuration: HTTPClientConfiguration) throws(ClientError) {
        let url = request.url
        urlAuthorization = try HTTPRequestExecution.authorization(from: url)
        let proxy: ProxyServer?
        do {
            proxy = url.scheme == .unix ? nil : try configuration.proxy.proxy(for: url)
        } catch {
            throw ClientError(.invalidRequest, phase: .proxy, cause: error, detail: error.description)
        }
        if let proxy, proxy.scheme.isSOCKS {
            do {
                try HTTPRequestExecution.checkSOCKS(proxy, host: url.host)
            } catch {
                throw ClientError(.invalidRequest, phase: .proxy, cause: error, detail: error.description)
            }
        }
        // The request's own TLS settings and trust evaluator (if any) are part of the key:
        // connections made with different trust settings are never shared.
        let https = url.scheme == .https
        let tls = https ? (request.tls ?? configuration.tls) : nil
        key = PoolKey(origin: url.origin, tls: tls, trustEvaluator: https ? request.serverTrustEvaluator : nil, proxy: proxy)
        self.request = request
    }

    /// `key`'s entry in `pool`, found once and then kept.
    func entry(in pool: ConnectionPool) -> ConnectionPool.Entry {
        if let poolEntry { return poolEntry }
        let found = pool.entry(for: key)
        poolEntry = found
        return found
    }

    /// Whether this route was derived from `request` itself.
    func serves(_ request: HTTPClientRequest) -> Bool {
        self.request.isSameRequest(as: request)
    }

    /// The head made for this route's request in the same form, if any.
    func head(proxied: Bool) -> HTTPRequestHead? {
        guard let head, head.proxied == proxied else { return nil }
        return head.head
    }

    func remember(_ head: HTTPRequestHead, proxied: Bool) {
        self.head = (head, proxied)
    }
}
