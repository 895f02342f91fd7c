import CourierClient

/// What the storage and retrieval models need of a request's URL (RFC 6265bis §5.7, §5.8.3):
/// the canonical host (HTTPURL's host is lowercase already; names are ASCII), whether it is an
/// IP address, the path, and whether the scheme is "secure" (`https`).
struct CookieURL: Hashable, Sendable {
    var host: String
    var isIPAddress: Bool
    var path: String
    var isSecure: Bool

    /// The longest host name DNS allows; a longer one holds no cookies (and a lookup never walks
    /// more than this many bytes of parent domains).
    static let maximumHostBytes = 253

    /// nil for a URL that cannot hold cookies (a Unix-domain socket, a host longer than DNS
    /// allows).
    init?(_ url: HTTPURL) {
        guard url.scheme == .http || url.scheme == .https, !url.host.isEmpty, url.host.utf8.count <= Self.maximumHostBytes else {
            return nil
        }
        host = url.host.hasSuffix(".") ? String(url.host.dropLast()) : url.host
        isIPAddress = url.isIPLiteral
        path = url.path.isEmpty ? "/" : url.path
        isSecure = url.scheme == .https
    }

    init(host: String, isIPAddress: Bool = false, path: String = "/", isSecure: Bool = false) {
        self.host = host
        self.isIPAddress = isIPAddress
        self.path = path
        self.isSecure = isSecure
    }
}
