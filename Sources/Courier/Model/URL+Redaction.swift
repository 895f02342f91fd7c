import CourierClient
import FoundationEssentials

extension URL {
    /// The URL as descriptions and errors print it: user information (credentials, RFC 3986
    /// §3.2.1) redacted as the transport's `HTTPURL` does — `user:***@`, or `***@` without a
    /// password.
    var redactedForDisplay: String {
        guard user != nil || password != nil else { return absoluteString }
        return UserInfoRedaction.redactingURL(absoluteString)
    }
}

extension Request: CustomStringConvertible {
    /// Method and URL, the URL's credentials redacted.
    public var description: String { "\(method) \(url.redactedForDisplay)" }
}

extension Response: CustomStringConvertible {
    /// Status and URL, the URL's credentials redacted.
    public var description: String { "HTTP \(statusCode) \(url.redactedForDisplay)" }
}
