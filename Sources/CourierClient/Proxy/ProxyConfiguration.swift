/// Which proxy, if any, a request goes through.
public enum ProxyConfiguration: Sendable, Hashable {
    /// Connect directly.
    case none
    /// Use this plain-HTTP proxy for every `http` and `https` request: absolute-form requests for
    /// `http://` URLs and a CONNECT tunnel for `https://` URLs. `no_proxy` does not apply. (A server whose
    /// scheme is SOCKS5 is used as one, as with ``socks5(_:)``.)
    case http(ProxyServer)
    /// Read the proxy from the environment like curl does (see ``ProxyEnvironment``).
    case environment
    /// Use this SOCKS5 proxy (RFC 1928) for every `http` and `https` request: a SOCKS5 tunnel,
    /// then TLS for `https`, then origin-form requests. The server's ``ProxyServer/scheme``
    /// says who resolves host names: ``ProxyServer/Scheme/socks5h`` the proxy, otherwise this
    /// client (a server made with the `http` scheme counts as `socks5`). `no_proxy` does not
    /// apply.
    case socks5(ProxyServer)

    /// The proxy to use for `url`, reading `environment` for ``environment``.
    ///
    /// A Unix-domain socket URL never goes through a proxy.
    ///
    /// - Throws: ``ProxyError`` when the chosen proxy setting is unusable (for example an
    ///   `https://` proxy). The request must fail then: connecting directly would bypass a proxy
    ///   the user asked for.
    public func proxy(for url: HTTPURL, environment: [String: String]) throws(ProxyError) -> ProxyServer? {
        guard url.scheme != .unix else { return nil }
        switch self {
        case .none: return nil
        case .http(let server): return server
        case .environment: return try ProxyEnvironment.proxy(for: url, environment: environment)
        case .socks5(let server):
            guard !server.scheme.isSOCKS else { return server }
            return try ProxyServer(host: server.host, port: server.port, credentials: server.credentials, scheme: .socks5)
        }
    }

    /// The proxy to use for `url`, reading the process environment for ``environment``.
    public func proxy(for url: HTTPURL) throws(ProxyError) -> ProxyServer? {
        switch self {
        case .environment: return try proxy(for: url, environment: ProxyEnvironment.current())
        default: return try proxy(for: url, environment: [:])
        }
    }
}
