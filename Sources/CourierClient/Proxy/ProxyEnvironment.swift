import Glibc

/// Proxy settings from environment variables, with curl's rules (`man curl`, "ENVIRONMENT").
///
/// - `http://` URLs: `http_proxy`, lowercase only. `HTTP_PROXY` is ignored on purpose: a CGI
///   program gets every request header `Proxy: x` as the variable `HTTP_PROXY`, so honouring it
///   would let any client choose the server's proxy ("httpoxy", CVE-2016-5385). curl, Go and
///   Python ignore it for the same reason.
/// - `https://` URLs: `https_proxy`, then `HTTPS_PROXY`.
/// - Either: if neither is set, `all_proxy`, then `ALL_PROXY`.
/// - The first of these that is *set* decides. Set but empty (or only whitespace) means "no
///   proxy" and ends the search, as in curl.
/// - `no_proxy`, or if it is not set `NO_PROXY`, lists hosts reached directly (see
///   ``NoProxyList``). It is consulted before the proxy value is parsed, so a bad proxy value
///   does not fail requests that would not use it.
/// - The value is parsed by ``ProxyServer/init(parsing:)``: scheme-less `host:port` is http,
///   the default port is 1080, and `https://` proxies are refused. A `socks5://` or
///   `socks5h://` value selects a SOCKS5 proxy (RFC 1928) in any of these variables, as in curl:
///   `all_proxy=socks5h://127.0.0.1:1080` sends every request through it; `no_proxy` applies
///   to it as to an HTTP proxy.
public enum ProxyEnvironment {
    /// Every variable these rules read.
    public static let variableNames = [
        "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// The proxy variables of this process (only those in ``variableNames`` that are set).
    ///
    /// Uses `getenv`, which is not safe against a concurrent `setenv`/`putenv` in another
    /// thread; programs set their environment before starting clients.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        for name in variableNames {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }

    /// The proxy `environment` selects for `url`, or nil for a direct connection.
    public static func proxy(for url: HTTPURL, environment: [String: String]) throws(ProxyError) -> ProxyServer? {
        guard url.scheme != .unix else { return nil }
        let candidates =
            (url.scheme == .https ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]) + ["all_proxy", "ALL_PROXY"]
        guard let name = candidates.first(where: { environment[$0] != nil }), let value = environment[name],
            !trimmed(value).isEmpty
        else { return nil }
        if let noProxy = environment["no_proxy"] ?? environment["NO_PROXY"], NoProxyList(noProxy).matches(url) {
            return nil
        }
        return try ProxyServer(parsing: value, variable: name)
    }

    /// `s` without leading and trailing ASCII whitespace.
    static func trimmed(_ s: String) -> String {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        let utf8 = s.utf8
        guard let first = utf8.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !isSpace($0) })!
        return String(s[first...last])
    }
}
