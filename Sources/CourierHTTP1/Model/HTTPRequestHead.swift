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

/// An owned request head, ready for ``HTTPRequestEncoder`` (RFC 9112 §3).
public struct HTTPRequestHead: Hashable, Sendable {
    /// The members, in one copy-on-write box. A head is copied several times on its way to the
    /// socket (into the attempt, the execution's record of what it sent, the connection's
    /// record of what it encoded last): a copy of the box is one retain, where a copy of the
    /// members retained the method, the target and the field list one by one (callgrind,
    /// `courier bench`: about 1,500 instructions a request). The same box also proves two heads
    /// equal at once (``hasSameBytes(as:)``).
    ///
    /// `@unchecked Sendable`: a box is only mutated through ``uniqueStorage()``, that is when
    /// this head holds the only reference; shared boxes are read-only.
    private final class Storage: @unchecked Sendable {
        // Unchecked: a shared box is only read, and a unique one is changed only through the
        // one head that holds it (the run-time checks cost about 500 instructions a comparison).
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var target: RequestTarget
        @exclusivity(unchecked) var version: HTTPVersion
        @exclusivity(unchecked) var headers: HTTPFields

        init(method: HTTPMethod, target: RequestTarget, version: HTTPVersion, headers: HTTPFields) {
            self.method = method
            self.target = target
            self.version = version
            self.headers = headers
        }

        func copy() -> Storage {
            Storage(method: method, target: target, version: version, headers: headers)
        }
    }

    private var storage: Storage

    /// The box to mutate: this head's own (`_modify` yields the member in place).
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The method (RFC 9110 §9).
    public var method: HTTPMethod {
        _read { yield storage.method }
        _modify { yield &uniqueStorage().method }
    }
    /// The request-target (RFC 9112 §3.2).
    public var target: RequestTarget {
        _read { yield storage.target }
        _modify { yield &uniqueStorage().target }
    }
    /// The protocol version (RFC 9112 §2.3).
    public var version: HTTPVersion {
        _read { yield storage.version }
        _modify { yield &uniqueStorage().version }
    }
    /// Header fields, already validated against injection by ``HTTPFields``.
    public var headers: HTTPFields {
        _read { yield storage.headers }
        _modify { yield &uniqueStorage().headers }
    }

    public init(method: HTTPMethod, target: RequestTarget, version: HTTPVersion = .http1_1, headers: HTTPFields = HTTPFields()) {
        storage = Storage(method: method, target: target, version: version, headers: headers)
    }

    public static func == (lhs: HTTPRequestHead, rhs: HTTPRequestHead) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.method == rhs.method && lhs.target == rhs.target && lhs.version == rhs.version
                && lhs.headers == rhs.headers)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(target)
        hasher.combine(version)
        hasher.combine(headers)
    }
}

extension HTTPRequestHead {
    /// Whether both are copies of one head (one box): then they are equal, without comparing.
    package func isCopy(of other: HTTPRequestHead) -> Bool {
        storage === other.storage
    }

    /// Whether ``HTTPRequestEncoder`` would write both heads as the same bytes: the same method,
    /// target and version, and fields with the same bytes in the same order
    /// (``HTTPFields/hasSameBytes(as:)``; `==` compares text).
    package func hasSameBytes(as other: HTTPRequestHead) -> Bool {
        // One box: the same head, copied (the same request sent again).
        if isCopy(of: other) { return true }
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
