/// The scheme an ``HTTPURL`` uses.
public enum HTTPScheme: String, Hashable, Sendable, CustomStringConvertible {
    /// HTTP over TCP, default port 80.
    case http
    /// HTTP over TLS over TCP, default port 443.
    case https
    /// HTTP over a Unix-domain stream socket. The URL's host is the percent-encoded socket path
    /// (`http+unix://%2Fvar%2Frun%2Fapp.sock/path`), as in async-http-client and requests-unixsocket.
    case unix = "http+unix"

    /// The port used when a URL gives none (RFC 9110 §4.2.1, §4.2.2); 0 for ``unix``.
    public var defaultPort: Int {
        switch self {
        case .http: return 80
        case .https: return 443
        case .unix: return 0
        }
    }

    /// Whether the connection is wrapped in TLS.
    public var usesTLS: Bool { self == .https }

    public var description: String { rawValue }
}

/// The origin of a URL: scheme, host and effective port (RFC 6454 §4).
///
/// Two URLs with the same origin may share a pooled connection, and a redirect that changes
/// the origin drops credentials. Hosts are compared in the URL's normalised form: names are
/// lowercase, IPv6 addresses are in RFC 5952 form, and an explicit default port equals an
/// absent one.
public struct HTTPOrigin: Hashable, Sendable, CustomStringConvertible {
    public let scheme: HTTPScheme
    /// Host without brackets, or the decoded socket path for ``HTTPScheme/unix``.
    public let host: String
    /// Effective port (0 for ``HTTPScheme/unix``).
    public let port: Int

    public init(scheme: HTTPScheme, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    public var description: String {
        switch scheme {
        case .unix: return "http+unix:\(host)"
        default: return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
        }
    }
}
