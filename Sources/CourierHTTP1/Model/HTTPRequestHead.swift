/// The request-target forms of RFC 9112 §3.2.
public enum RequestTarget: Hashable, Sendable {
    /// `absolute-path [ "?" query ]`, as sent to an origin server (§3.2.1). Must start with `/`.
    case origin(String)
    /// An absolute URI, as sent to a forward proxy (§3.2.2).
    case absolute(String)
    /// `host:port`, only for CONNECT (§3.2.3). `host` is a uri-host (RFC 3986 §3.2.2): an IPv6
    /// address is written in brackets (`[::1]`), as it appears on the wire.
    case authority(host: String, port: Int)
    /// `*`, only for a server-wide OPTIONS (§3.2.4).
    case asterisk
}

/// An owned request head, ready for ``HTTPRequestEncoder``.
public struct HTTPRequestHead: Hashable, Sendable {
    public var method: HTTPMethod
    public var target: RequestTarget
    public var version: HTTPVersion
    /// Header fields, already validated against injection by ``HTTPFields``.
    public var headers: HTTPFields

    public init(method: HTTPMethod, target: RequestTarget, version: HTTPVersion = .http1_1, headers: HTTPFields = HTTPFields()) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }
}

extension HTTPRequestHead {
    /// Whether ``HTTPRequestEncoder`` would write both heads as the same bytes: the same method,
    /// target and version, and fields with the same bytes in the same order
    /// (``HTTPFields/hasSameBytes(as:)``; `==` compares text).
    package func hasSameBytes(as other: HTTPRequestHead) -> Bool {
        guard version == other.version, method.rawValue.hasSameUTF8(as: other.method.rawValue) else { return false }
        switch (target, other.target) {
        case (.origin(let mine), .origin(let theirs)), (.absolute(let mine), .absolute(let theirs)):
            guard mine.hasSameUTF8(as: theirs) else { return false }
        case (.authority(let mine, let myPort), .authority(let theirs, let theirPort)):
            guard myPort == theirPort, mine.hasSameUTF8(as: theirs) else { return false }
        case (.asterisk, .asterisk):
            break
        default:
            return false
        }
        return headers.hasSameBytes(as: other.headers)
    }
}

/// How a request body will be delimited on the wire.
public enum RequestBodyFraming: Hashable, Sendable {
    /// No body, and no Content-Length (GET, HEAD, DELETE without a body).
    case none
    /// A body of exactly this many bytes (`Content-Length`, RFC 9112 §6.2).
    case contentLength(UInt64)
    /// A body of unknown length, sent with the chunked coding (RFC 9112 §7.1). HTTP/1.1 only.
    case chunked
}
