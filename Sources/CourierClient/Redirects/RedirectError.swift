/// A redirect that must not be followed, and must not be returned as a plain response either.
public enum RedirectError: Error, Hashable, Sendable, CustomStringConvertible {
    /// More redirects than ``RedirectConfiguration/maximum``; the payload is the number of
    /// redirects received in the chain, this one included.
    case tooManyRedirects(Int)
    /// The redirect leads to a method and URL already requested in this chain.
    case loop(HTTPURL)
    /// The Location value is not a valid URI reference, or resolves to an invalid URL.
    case invalidLocation(HTTPURLError)
    /// The Location names a scheme other than http or https (the payload is the Location,
    /// escaped for logging, user information redacted), or leads from a network URL to a
    /// Unix-domain socket.
    case unsupportedScheme(String)
    /// An `https` → `http` redirect while ``RedirectConfiguration/allowHTTPSToHTTP`` is false.
    case httpsToHTTPDowngrade(HTTPURL)

    public var description: String {
        switch self {
        case .tooManyRedirects(let n): return "RedirectError.tooManyRedirects: \(n) redirects"
        case .loop(let url): return "RedirectError.loop: \(url) was already requested"
        case .invalidLocation(let error): return "RedirectError.invalidLocation: \(error)"
        case .unsupportedScheme(let location): return "RedirectError.unsupportedScheme: \"\(location)\""
        case .httpsToHTTPDowngrade(let url): return "RedirectError.httpsToHTTPDowngrade: \(url)"
        }
    }
}
