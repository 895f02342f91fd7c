/// A user name and password for a proxy (sent as `Proxy-Authorization: Basic …`).
public struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The password is never printed.
    public var description: String { "ProxyCredentials(username: \"\(HTTPURLError.escaped(username))\", password: ***)" }
}

/// A plain-HTTP forward proxy: `http://` requests go to it in absolute form (RFC 9112 §3.2.2),
/// `https://` requests through a CONNECT tunnel (RFC 9110 §9.3.6).
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The port used when a proxy setting names none: 1080, as curl does (`curl --proxy`
    /// documents it), not the 80 of an `http` URL.
    public static let defaultPort = 1080

    /// The host without brackets: a lowercase name, IPv4 address or RFC 5952 IPv6 address.
    public let host: String
    public let hostKind: HTTPURL.HostKind
    public let port: Int
    public var credentials: ProxyCredentials?

    /// Creates a proxy address after validating host and port like a URL's.
    ///
    /// - Parameter host: a name, an IPv4 address, or an IPv6 address with or without brackets.
    public init(host: String, port: Int = ProxyServer.defaultPort, credentials: ProxyCredentials? = nil)
        throws(ProxyError)
    {
        guard (1...65535).contains(port) else { throw ProxyError(reason: .invalidPort, value: "\(host):\(port)") }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let url: HTTPURL
        do {
            url = try HTTPURL("http://\(bracketed):\(port)/")
        } catch {
            throw ProxyError(reason: .invalidURL, urlReason: error.reason, value: host)
        }
        self.host = url.host
        self.hostKind = url.hostKind
        self.port = port
        self.credentials = credentials
    }

    /// Parses a proxy setting as curl reads `--proxy` and `http_proxy`:
    /// `[http://][user[:password]@]host[:port][/]`.
    ///
    /// - A missing scheme means `http`. Any other scheme (`https`, `socks5`, …) is refused.
    /// - A missing port means ``defaultPort`` (1080).
    /// - User name and password are percent-decoded; a path or query is ignored.
    public init(parsing value: String) throws(ProxyError) {
        try self.init(parsing: value, variable: nil)
    }

    init(parsing value: String, variable: String?) throws(ProxyError) {
        let text = ProxyEnvironment.trimmed(value)
        var urlText = text
        if let separator = text.utf8.indices.first(where: { text.utf8[$0...].starts(with: "://".utf8) }) {
            let scheme = text.utf8[..<separator]
            guard scheme.count == 4, URISyntax.lowercased(scheme) == "http" else {
                throw ProxyError(reason: .unsupportedScheme, variable: variable, value: value)
            }
        } else {
            urlText = "http://" + text
        }
        let url: HTTPURL
        do {
            url = try HTTPURL(urlText)
        } catch {
            throw ProxyError(reason: .invalidURL, urlReason: error.reason, variable: variable, value: value)
        }
        host = url.host
        hostKind = url.hostKind
        port = url.explicitPort ?? ProxyServer.defaultPort
        credentials = url.user.map { ProxyCredentials(username: $0, password: url.password ?? "") }
    }

    /// `host:port`, bracketed for IPv6: the address to connect to.
    public var authority: String { hostKind == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The `Proxy-Authorization` value for ``credentials`` (Basic, RFC 7617, RFC 9110 §11.7.2),
    /// or nil without credentials.
    public func proxyAuthorization() throws(BasicAuthorizationError) -> String? {
        guard let credentials else { return nil }
        return try basicAuthorizationValue(username: credentials.username, password: credentials.password)
    }

    public var description: String {
        credentials == nil ? "http://\(authority)" : "http://***@\(authority)"
    }
}
