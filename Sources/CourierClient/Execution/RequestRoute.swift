import CourierHTTP1

/// What an execution derives from its request and its client's fixed configuration: the URL's
/// Basic credentials (RFC 7617), the pool key and its pool entry, and the request head.
///
/// An execution reused for the same request (``HTTPClient/execute(_:delegate:reusing:)``, as a
/// load generator sends one request again and again) finds them here instead of deriving them
/// again, about 800 instructions a request. The route holds the request it was made from:
/// holding the request's box keeps the box's identity from being recycled, and a request that
/// changed since (a redirect's next hop, or the caller's edit, which copies a shared box) has
/// another box, so it never matches. A class: the execution looks at it twice a request, and
/// binding a struct this wide copied it each time.
///
/// Immutable, so executions on any loop may share one: the executions a loop derives a route
/// for take the one it derived last when it serves their request (``LoopRouteMemory``). With
/// hundreds of connections, a route per execution was one more object out of the cache on
/// every request; a shared one stays in it.
final class RequestRoute: Sendable {
    let request: HTTPClientRequest
    let urlAuthorization: String?
    let key: PoolKey
    /// The pool's entry for `key` (entries stay for the pool's life, and a route serves one
    /// client).
    let entry: ConnectionPool.Entry
    /// The request head, and whether it is in absolute form for a plain proxy.
    private let head: HTTPRequestHead
    private let proxied: Bool

    /// Derives the route of `request` on `client`. Throws the error the request fails with:
    /// user information that cannot be sent as Basic credentials, an unusable proxy setting, a
    /// host a SOCKS5 proxy cannot be given.
    init(_ request: HTTPClientRequest, client: HTTPClient) throws(ClientError) {
        let configuration = client.configuration
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
        entry = client.pool.entry(for: key)
        // Through a SOCKS5 tunnel requests are in origin form, as to the origin itself.
        proxied = proxy?.scheme == .http && url.scheme == .http
        head = Self.head(
            of: request, urlAuthorization: urlAuthorization, proxyCredentials: proxy?.credentials,
            decompression: configuration.decompression, proxied: proxied)
        self.request = request
    }

    /// Whether this route was derived from `request` itself.
    func serves(_ request: HTTPClientRequest) -> Bool {
        self.request.isSameRequest(as: request)
    }

    /// The head made for this route's request in the same form, if any.
    func head(proxied: Bool) -> HTTPRequestHead? {
        proxied == self.proxied ? head : nil
    }

    /// The head of `request` as sent: its fields, plus the URL's Basic credentials unless the
    /// request has its own Authorization field (RFC 9110 §11.6.2), `Accept-Encoding` when the
    /// client decompresses (RFC 9110 §12.5.3), and to a plain forward proxy the absolute form
    /// (RFC 9112 §3.2.2) with the proxy's credentials (RFC 9110 §11.7.2).
    static func head(
        of request: HTTPClientRequest, urlAuthorization: String?, proxyCredentials: ProxyCredentials?,
        decompression: Bool, proxied: Bool
    ) -> HTTPRequestHead {
        var headers = request.headers
        // The caller's own Authorization field wins over the URL's user information.
        if let urlAuthorization, !headers.contains("Authorization") {
            try? headers.append(name: "Authorization", value: urlAuthorization)
        }
        if decompression, !headers.contains("Accept-Encoding") {
            try? headers.append(name: "Accept-Encoding", value: "gzip, deflate")
        }
        let target: RequestTarget
        if proxied {
            target = .absolute(request.url.absoluteFormTarget)
            if let proxyCredentials, !headers.contains("Proxy-Authorization"),
               let value = try? basicAuthorizationValue(username: proxyCredentials.username, password: proxyCredentials.password) {
                try? headers.append(name: "Proxy-Authorization", value: value)
            }
        } else {
            target = .origin(request.url.requestTarget)
        }
        return HTTPRequestHead(method: request.method, target: target, headers: headers)
    }
}
