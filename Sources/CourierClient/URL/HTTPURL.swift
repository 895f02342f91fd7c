/// An absolute `http`, `https` or `http+unix` URL (RFC 3986), validated so that nothing in it can
/// produce an invalid or injected request.
///
/// Parsing refuses, with a typed ``HTTPURLError``: control bytes (CR, LF, NUL, other C0, DEL),
/// spaces, non-ASCII bytes, malformed percent-escapes, an empty or malformed host, a bad port and
/// any other scheme. Callers percent-encode first; this type never guesses.
///
/// Normalisation on parse:
/// - the scheme and a host name are lowercased; an IPv6 literal is rewritten in RFC 5952 form;
/// - an empty path becomes `/`, and dot segments are removed (RFC 3986 §5.2.4), as curl and
///   browsers do before sending;
/// - the fragment is dropped: it is never sent (RFC 9110 §4.2.5, RFC 9112 §3.2);
/// - an empty port (`http://h:/`) is the same as none (RFC 3986 §3.2.3).
///
/// Path and query keep any visible ASCII byte but `#`, exactly as written (see
/// `URISyntax.isTargetByte`); percent-escapes are validated, never decoded or re-encoded.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// What the host of a URL is.
    public enum HostKind: Hashable, Sendable {
        /// A registered name such as `example.com` (resolved with DNS).
        case name
        /// A dotted-quad IPv4 address.
        case ipv4
        /// An IPv6 address (written in brackets in the URL).
        case ipv6
        /// A Unix-domain socket path (``HTTPScheme/unix``).
        case unixSocket
    }

    /// The parts, in one immutable box, with the two strings every request sends from them
    /// (``requestTarget`` and ``hostHeader``) made once. A URL is copied about fifteen times on
    /// a request's way to the socket (into the request, its execution, the redirect hold, the
    /// metrics): a copy of the box is one retain, where a copy of the parts retained six strings
    /// (callgrind, `courier bench`).
    private final class Parts: Sendable {
        let scheme: HTTPScheme
        let host: String
        let hostKind: HostKind
        let explicitPort: Int?
        let path: String
        let query: String?
        let rawUserInfo: String?
        let authorityHost: String
        let requestTarget: String
        let hostHeader: String

        init(
            scheme: HTTPScheme, host: String, hostKind: HostKind, explicitPort: Int?, path: String, query: String?,
            rawUserInfo: String?, authorityHost: String
        ) {
            self.scheme = scheme
            self.host = host
            self.hostKind = hostKind
            self.explicitPort = explicitPort
            self.path = path
            self.query = query
            self.rawUserInfo = rawUserInfo
            self.authorityHost = authorityHost
            self.requestTarget = query.map { path + "?" + $0 } ?? path
            if hostKind == .unixSocket {
                self.hostHeader = "localhost"
            } else if let explicitPort, explicitPort != scheme.defaultPort {
                self.hostHeader = "\(authorityHost):\(explicitPort)"
            } else {
                self.hostHeader = authorityHost
            }
        }
    }

    private let parts: Parts

    /// The scheme, lowercase.
    public var scheme: HTTPScheme { parts.scheme }
    /// The host without brackets: a lowercase name, an IPv4 address, an RFC 5952 IPv6 address,
    /// or for ``HTTPScheme/unix`` the decoded socket path.
    public var host: String { parts.host }
    public var hostKind: HostKind { parts.hostKind }
    /// The port written in the URL, if any.
    public var explicitPort: Int? { parts.explicitPort }
    /// The path, percent-encoded as written, dot segments removed; never empty (at least `/`).
    public var path: String { parts.path }
    /// The query without its `?`, as written; nil when the URL has no `?`, empty for a bare `?`.
    public var query: String? { parts.query }
    /// The user information as written (still percent-encoded), without the `@`.
    var rawUserInfo: String? { parts.rawUserInfo }
    /// The host as it appears in the authority: bracketed for IPv6, still encoded for a socket path.
    var authorityHost: String { parts.authorityHost }

    public static func == (lhs: HTTPURL, rhs: HTTPURL) -> Bool {
        if lhs.parts === rhs.parts { return true }
        return lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.hostKind == rhs.hostKind
            && lhs.explicitPort == rhs.explicitPort && lhs.path == rhs.path && lhs.query == rhs.query
            && lhs.rawUserInfo == rhs.rawUserInfo && lhs.authorityHost == rhs.authorityHost
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(hostKind)
        hasher.combine(explicitPort)
        hasher.combine(path)
        hasher.combine(query)
        hasher.combine(rawUserInfo)
        hasher.combine(authorityHost)
    }

    // MARK: - Derived properties

    /// The effective port: ``explicitPort``, or the scheme's default (80, 443; 0 for a socket).
    public var port: Int { explicitPort ?? scheme.defaultPort }

    /// The user name from the user information, percent-decoded.
    public var user: String? {
        guard let rawUserInfo else { return nil }
        let raw = rawUserInfo.utf8
        let end = raw.firstIndex(of: UInt8(ascii: ":")) ?? raw.endIndex
        return String(decoding: URISyntax.percentDecoded(raw[..<end]), as: UTF8.self)
    }

    /// The password from the user information (after the first `:`), percent-decoded; nil when
    /// there is no `:`.
    public var password: String? {
        guard let rawUserInfo, let colon = rawUserInfo.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let raw = rawUserInfo.utf8
        return String(decoding: URISyntax.percentDecoded(raw[raw.index(after: colon)...]), as: UTF8.self)
    }

    /// Whether the host is an IPv4 or IPv6 literal (no DNS lookup, no SNI).
    public var isIPLiteral: Bool { hostKind == .ipv4 || hostKind == .ipv6 }

    /// The decoded socket path of an ``HTTPScheme/unix`` URL; nil otherwise.
    public var unixSocketPath: String? { hostKind == .unixSocket ? host : nil }

    /// The request-target in origin form, as sent on the request line: path, then `?` and the
    /// query when there is one (RFC 9112 §3.2.1).
    public var requestTarget: String { parts.requestTarget }

    /// The host with brackets for IPv6, as written in an authority or a CONNECT target.
    public var bracketedHost: String { hostKind == .ipv6 ? "[\(host)]" : host }

    /// The `Host` field value (RFC 9110 §7.2): the host, bracketed for IPv6, with `:port` only
    /// when the port is not the scheme's default. For ``HTTPScheme/unix`` it is `localhost`,
    /// which is what curl sends over `--unix-socket` for `http://localhost/`.
    public var hostHeader: String { parts.hostHeader }

    /// Scheme, host and effective port.
    public var origin: HTTPOrigin { HTTPOrigin(scheme: scheme, host: host, port: port) }

    /// The absolute form of the request-target (RFC 9112 §3.2.2), as sent to a forward proxy:
    /// scheme, `Host` value and origin-form target, never the user information.
    public var absoluteFormTarget: String { "\(scheme.rawValue)://\(hostHeader)\(requestTarget)" }

    /// The normalised URL, user information included (percent-encoded as written).
    public var absoluteString: String { serialized(userInfo: rawUserInfo) }

    /// ``absoluteString`` with the credentials redacted, so a URL can be logged: the password
    /// becomes `***` (`http://alice:***@h/`), and user information without a password, often a
    /// token on its own, is replaced whole (`http://***@h/`). See ``UserInfoRedaction``.
    public var description: String {
        guard let rawUserInfo else { return absoluteString }
        return serialized(userInfo: UserInfoRedaction.redacted(rawUserInfo[...]))
    }

    /// This URL without user information (credentials belong in an Authorization field).
    public func removingUserInfo() -> HTTPURL {
        HTTPURL(
            scheme: scheme, host: host, hostKind: hostKind, explicitPort: explicitPort, path: path, query: query,
            rawUserInfo: nil, authorityHost: authorityHost)
    }

    /// This URL with `rawUserInfo` (still percent-encoded, already validated) as its user information.
    func replacingUserInfo(_ rawUserInfo: String) -> HTTPURL {
        HTTPURL(
            scheme: scheme, host: host, hostKind: hostKind, explicitPort: explicitPort, path: path, query: query,
            rawUserInfo: rawUserInfo, authorityHost: authorityHost)
    }

    /// `[userinfo "@"] host [":" port]` as written (normalised).
    var authority: String {
        var s = ""
        if let rawUserInfo { s += rawUserInfo + "@" }
        s += authorityHost
        if let explicitPort { s += ":\(explicitPort)" }
        return s
    }

    private func serialized(userInfo: String?) -> String {
        var s = scheme.rawValue + "://"
        if let userInfo { s += userInfo + "@" }
        s += authorityHost
        if let explicitPort { s += ":\(explicitPort)" }
        return s + requestTarget
    }

    init(
        scheme: HTTPScheme, host: String, hostKind: HostKind, explicitPort: Int?, path: String, query: String?,
        rawUserInfo: String?, authorityHost: String
    ) {
        parts = Parts(
            scheme: scheme, host: host, hostKind: hostKind, explicitPort: explicitPort, path: path, query: query,
            rawUserInfo: rawUserInfo, authorityHost: authorityHost)
    }
}
