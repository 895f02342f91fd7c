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

/// A forward proxy. Its ``scheme`` says which kind:
/// - ``Scheme/http``: a plain-HTTP proxy. `http://` requests go to it in absolute form
///   (RFC 9112 §3.2.2), `https://` requests through a CONNECT tunnel (RFC 9110 §9.3.6).
/// - ``Scheme/socks5`` and ``Scheme/socks5h``: a SOCKS5 proxy (RFC 1928, with RFC 1929
///   username/password when there are credentials). Every request goes through a SOCKS5 tunnel,
///   then TLS for `https`, then HTTP in origin form. `socks5` resolves the host locally and sends
///   the proxy its address; `socks5h` sends the name and lets the proxy resolve it.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The kind of proxy, as the scheme of a proxy URL names it (curl's names).
    public enum Scheme: String, Sendable, Hashable, CaseIterable {
        /// A plain-HTTP forward proxy (`http://`, or no scheme).
        case http
        /// SOCKS5, the client resolving host names (`socks5://`).
        case socks5
        /// SOCKS5, the proxy resolving host names (`socks5h://`).
        case socks5h

        /// Whether this is one of the SOCKS5 kinds.
        public var isSOCKS: Bool { self != .http }
    }

    /// The port used when a proxy setting names none: 1080, as curl does (`curl --proxy`
    /// documents it), not the 80 of an `http` URL.
    public static let defaultPort = 1080

    /// The host without brackets: a lowercase name, IPv4 address or RFC 5952 IPv6 address.
    public let host: String
    public let hostKind: HTTPURL.HostKind
    public let port: Int
    /// HTTP or SOCKS5 (see ``Scheme``).
    public let scheme: Scheme
    /// For an HTTP proxy, sent as `Proxy-Authorization: Basic`; for SOCKS5, the RFC 1929
    /// username and password (each at most 255 bytes: a request with longer ones is refused).
    public var credentials: ProxyCredentials?

    /// Creates a proxy address after validating host and port like a URL's.
    ///
    /// - Parameters:
    ///   - host: a name, an IPv4 address, or an IPv6 address with or without brackets.
    ///   - scheme: HTTP (the default) or SOCKS5.
    /// - Throws: ``ProxyError``; for SOCKS5, ``ProxyError/Reason/invalidSOCKSCredentials`` when
    ///   the credentials cannot be sent (RFC 1929: a user name of 1 to 255 bytes, a password of
    ///   at most 255).
    public init(host: String, port: Int = ProxyServer.defaultPort, credentials: ProxyCredentials? = nil, scheme: Scheme = .http)
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
        self.scheme = scheme
        self.credentials = credentials
        try checkSOCKSCredentials(variable: nil, value: "\(scheme.rawValue)://\(authority)")
    }

    /// Parses a proxy setting as curl reads `--proxy` and `http_proxy`:
    /// `[scheme://][user[:password]@]host[:port][/]`.
    ///
    /// - The scheme is `http`, `socks5` or `socks5h` (any case); a missing one means `http`.
    ///   Any other (`https`, `socks4`, …) is refused.
    /// - A missing port means ``defaultPort`` (1080).
    /// - User name and password are percent-decoded; a path or query is ignored.
    public init(parsing value: String) throws(ProxyError) {
        try self.init(parsing: value, variable: nil)
    }

    init(parsing value: String, variable: String?) throws(ProxyError) {
        let text = ProxyEnvironment.trimmed(value)
        var urlText = text
        var scheme = Scheme.http
        if let separator = text.utf8.indices.first(where: { text.utf8[$0...].starts(with: "://".utf8) }) {
            let name = text.utf8[..<separator]
            guard name.count <= 7, let named = Scheme(rawValue: URISyntax.lowercased(name)) else {
                throw ProxyError(reason: .unsupportedScheme, variable: variable, value: value)
            }
            scheme = named
            // The rest is read as an http URL: the authority's grammar is the same.
            urlText = "http" + String(text[separator...])
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
        self.scheme = scheme
        credentials = url.user.map { ProxyCredentials(username: $0, password: url.password ?? "") }
        try checkSOCKSCredentials(variable: variable, value: value)
    }

    /// For SOCKS5: refuses credentials RFC 1929 cannot carry.
    private func checkSOCKSCredentials(variable: String?, value: String) throws(ProxyError) {
        guard scheme.isSOCKS, let credentials else { return }
        do {
            try SOCKS5Handshake.validate(credentials)
        } catch {
            throw ProxyError(reason: .invalidSOCKSCredentials, socksReason: error, variable: variable, value: value)
        }
    }

    /// The address the SOCKS5 request names for a request to `host`, for this proxy's scheme.
    /// `socks5h` and an IP literal need no lookup; `socks5` with a name returns nil (the
    /// connection resolves it first).
    ///
    /// - Throws: ``SOCKSError`` for a name no SOCKS5 request can carry (more than 255 bytes).
    func socksDestination(host: String) throws(SOCKSError) -> SOCKS5Address? {
        if scheme == .socks5, IPAddress.parseIPv4(host.utf8) == nil, IPAddress.parseIPv6(host.utf8) == nil { return nil }
        return try SOCKS5Address(host: host)
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
        credentials == nil ? "\(scheme.rawValue)://\(authority)" : "\(scheme.rawValue)://***@\(authority)"
    }
}
