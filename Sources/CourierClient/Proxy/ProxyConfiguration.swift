/// Which proxy, if any, a request goes through.
public enum ProxyConfiguration: Sendable, Hashable {
    /// Connect directly.
    case none
    /// Use this plain-HTTP proxy for every `http` and `https` request: absolute-form requests for
    /// `http://` URLs and a CONNECT tunnel for `https://` URLs. `no_proxy` does not apply.
    case http(ProxyServer)
    /// Read the proxy from the environment like curl does (see ``ProxyEnvironment``).
    case environment

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
