/// Whether and how far redirects are followed.
///
/// The defaults are those of NSURLSession (and so of AFNetworking) and Alamofire: follow, up to
/// 16 redirects in a chain, and allow `https` → `http`. Other clients stop elsewhere: curl `-L`
/// after 50 (`--max-redirs`), browsers after 20 (the Fetch standard's limit). A downgrade is allowed because that
/// is what those users expect from the same server configuration; it is safe for credentials
/// because a scheme change is a change of origin, so Authorization, Cookie and
/// Proxy-Authorization are never carried to the `http` URL. Set ``allowHTTPSToHTTP`` to false to
/// refuse such redirects with ``RedirectError/httpsToHTTPDowngrade(_:)`` instead.
public struct RedirectConfiguration: Sendable, Hashable {
    /// Whether redirects are followed at all. When false, every redirect response is returned to
    /// the caller as is.
    public var follow: Bool
    /// How many redirects one request may follow (RFC 9110 §15.4 leaves the limit to the
    /// client). Receiving one more fails with ``RedirectError/tooManyRedirects(_:)``; 0 makes
    /// every redirect an error. Default 16, as NSURLSession and Alamofire; curl uses 50,
    /// browsers 20.
    public var maximum: Int
    /// Whether a redirect from an `https` URL to an `http` URL is followed.
    public var allowHTTPSToHTTP: Bool

    public init(follow: Bool = true, maximum: Int = 16, allowHTTPSToHTTP: Bool = true) {
        precondition(maximum >= 0, "maximum must not be negative")
        self.follow = follow
        self.maximum = maximum
        self.allowHTTPSToHTTP = allowHTTPSToHTTP
    }

    /// Follow up to 16 redirects (NSURLSession's and Alamofire's limit), https → http allowed.
    public static let `default` = RedirectConfiguration()
    /// Never follow a redirect.
    public static let disabled = RedirectConfiguration(follow: false)
}
