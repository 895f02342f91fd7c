import CourierCore
import CourierHTTP1

// The checks a request passes before a connection is asked for: nothing here touches the
// execution's state.
extension HTTPRequestExecution {
    /// A request the connection could only send by altering it: framing fields the caller set
    /// (they are derived from the body, RFC 9112 §6), or a negative body length.
    static func validate(_ request: HTTPClientRequest) -> ClientError? {
        let headers = request.headers
        if let name = headers.contains("Content-Length") ? "Content-Length" : headers.contains("Transfer-Encoding") ? "Transfer-Encoding" : nil {
            return ClientError(.invalidRequest, detail: "\(name) is derived from the body; do not set it (RFC 9112 §6)")
        }
        // One read of the body (each read copies the enum and what it holds).
        switch request.body {
        case .stream(let length?, _) where length < 0:
            return ClientError(.invalidRequest, detail: "a stream body's length cannot be negative (\(length))")
        case .sequence(let length?, _) where length < 0:
            return ClientError(.invalidRequest, detail: "a sequence body's length cannot be negative (\(length))")
        default:
            return nil
        }
    }

    /// Refuses, before any connection is made, what no SOCKS5 handshake can carry: a `socks5h`
    /// destination name over 255 bytes, credentials over RFC 1929's limits (they may have been
    /// changed after the ``ProxyServer`` was made).
    static func checkSOCKS(_ proxy: ProxyServer, host: String) throws(SOCKSError) {
        _ = try proxy.socksDestination(host: host)
        if let credentials = proxy.credentials { try SOCKS5Handshake.validate(credentials) }
    }

    /// The `Authorization` value for a URL with user information (`http://user:pass@host/`): Basic
    /// credentials (RFC 7617) of the percent-decoded user and password (RFC 3986 §3.2.1), as
    /// curl and URLSession send them; no password is an empty one. They belong to the URL's
    /// origin: a redirect to another origin leaves the user information behind
    /// (``RedirectConfiguration/decide(method:url:headers:body:status:location:history:)``).
    static func authorization(from url: HTTPURL) throws(ClientError) -> String? {
        guard let user = url.user else { return nil }
        do {
            return try basicAuthorizationValue(username: user, password: url.password ?? "")
        } catch {
            // The error names the reason only, never the credentials.
            throw ClientError(.invalidURL, cause: error, detail: "the URL's user information cannot be sent as Basic credentials")
        }
    }
}
