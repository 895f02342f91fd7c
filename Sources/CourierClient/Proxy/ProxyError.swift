/// A proxy setting that cannot be used. The client fails the request rather than silently
/// connecting directly, which would bypass a proxy the user asked for.
public struct ProxyError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// A scheme other than `http`, `socks5` and `socks5h` (for example `https://` or
        /// `socks4://`): not supported.
        case unsupportedScheme
        /// The value is not `[scheme://][user[:password]@]host[:port][/]`; see ``urlReason``.
        case invalidURL
        /// A port outside 1–65535.
        case invalidPort
        /// SOCKS5 credentials RFC 1929 cannot carry (an empty user name, or more than 255 bytes);
        /// see ``socksReason``.
        case invalidSOCKSCredentials
    }

    public let reason: Reason
    /// Why the value did not parse as a URL, for ``Reason/invalidURL``.
    public let urlReason: HTTPURLError.Reason?
    /// Which SOCKS5 limit the credentials break, for ``Reason/invalidSOCKSCredentials``.
    public let socksReason: SOCKSError?
    /// The environment variable the value came from, if it came from the environment.
    public let variable: String?
    /// The refused value with any user information replaced by `***` and control bytes escaped,
    /// so that it is safe to log.
    public let value: String

    public init(
        reason: Reason, urlReason: HTTPURLError.Reason? = nil, socksReason: SOCKSError? = nil, variable: String? = nil, value: String
    ) {
        self.reason = reason
        self.urlReason = urlReason
        self.socksReason = socksReason
        self.variable = variable
        self.value = ProxyError.redacted(value)
    }

    public var description: String {
        var s = "ProxyError.\(reason.rawValue)"
        if let urlReason { s += " (\(urlReason.rawValue))" }
        if let socksReason { s += " (\(socksReason))" }
        if let variable { s += " in \(variable)" }
        return s + ": \"\(value)\""
    }

    /// `value` with the user information replaced by `***` (``UserInfoRedaction``), escaped.
    static func redacted(_ value: String) -> String { HTTPURLError.loggable(value) }
}
