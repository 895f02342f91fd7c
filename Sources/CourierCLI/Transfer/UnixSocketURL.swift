import Courier

/// `--unix-socket` (the transfer's and `courier bench`'s): a URL sent over a Unix-domain socket
/// becomes an `http+unix` URL with the same request target. That URL's `Host` would be
/// `localhost`; curl sends the given URL's, so the caller sends `host`.
enum UnixSocketURL {
    /// Why a URL cannot go over a Unix socket.
    enum Refusal: Error {
        /// https: TLS over a Unix socket is not supported, and sending the request in the clear
        /// instead would be a silent downgrade.
        case scheme(String)
        /// The socket's path makes no valid URL.
        case path(String)

        var message: String {
            switch self {
            case .scheme(let message), .path(let message): message
            }
        }
    }

    /// How curl shows a URL sent over the socket (`url_effective`, `-v`): `http://` and the host
    /// the requests name, with the socket URL's request target (a redirect followed over the
    /// socket changes only that). Any other URL is shown as it is.
    static func displayed(_ url: HTTPURL, host: String?) -> String {
        guard let host, url.scheme == .unix else { return url.absoluteString }
        return "http://\(host)\(url.requestTarget)"
    }

    /// A request sent over the socket as `--har` writes it: `http://`, the host its `Host` field
    /// names (over a socket, the only authority the request has; RFC 9112 §3.2), and its
    /// request target. nil for any other request.
    @Sendable static func displayed(_ request: Request) -> String? {
        guard let url = request.httpURL, url.scheme == .unix, let host = request.headers[first: "Host"] else { return nil }
        return displayed(url, host: host)
    }

    static func rewrite(_ url: HTTPURL, socket: String) throws(Refusal) -> (url: HTTPURL, host: String) {
        guard url.scheme == .http else {
            throw .scheme("--unix-socket: \(url.scheme.rawValue) over a Unix socket is not supported, only http")
        }
        let path = RequestBodyBuilder.percentEncode(Array(socket.utf8))
        do { return (try HTTPURL("http+unix://\(path)\(url.requestTarget)"), url.hostHeader) } catch {
            throw .path("URL rejected: unix socket \(socket): \(error)")
        }
    }
}
