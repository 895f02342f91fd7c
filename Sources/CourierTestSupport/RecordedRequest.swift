import CourierCore
import Synchronization

/// A request as a test server received it.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The method token, e.g. `"GET"`.
    public var method: String
    /// The request-target exactly as sent (origin form `/a?b`, absolute form, or `host:port`).
    public var target: String
    /// The version from the request line, e.g. `"HTTP/1.1"`.
    public var version: String
    /// Header fields in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body after chunked decoding (empty until read for routes that read bodies manually).
    public var body: [UInt8]
    /// Trailer fields of a chunked body.
    public var trailers: [(name: String, value: String)]
    /// Whether the body came with `Transfer-Encoding: chunked`.
    public var wasChunked: Bool
    /// The accepting connection's index (0 for the server's first connection).
    public var connectionID: Int
    /// The position of this request on its connection (0 for the first).
    public var indexOnConnection: Int
    /// The SNI name the client sent, for TLS connections.
    public var tlsServerName: String?

    /// The target's path: the origin-form path without the query, or the path of an
    /// absolute-form target.
    public var path: String { Self.path(of: target) }

    /// The first value of header `name` (ASCII case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { Self.equalsIgnoringCase($0.name, name) }?.value
    }

    /// All values of header `name`, in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// The body as UTF-8 text.
    public var bodyString: String { String(decoding: body, as: UTF8.self) }

    public var description: String {
        "#\(connectionID).\(indexOnConnection) \(method) \(target) \(version) (\(headers.count) fields, \(body.count) body bytes)"
    }

    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        return zip(x, y).allSatisfy { lower($0) == lower($1) }
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// `/a/b?c` → `/a/b`; `http://h:1/a?b` → `/a`; `h:443` → `h:443`.
    static func path(of target: String) -> String {
        var rest = Substring(target)
        if let scheme = rest.firstRange(of: "://") {
            rest = rest[scheme.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return "/" }
            rest = rest[slash...]
        }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        return String(rest)
    }
}

/// The requests a server has received, in arrival order, shared between its connection threads.
/// ``clear()`` forgets the ones recorded so far (positions keep counting), so a long-running
/// test does not mistake the log's growth for its own.
final class RequestLog: Sendable {
    private struct Storage {
        var forgotten = 0
        var items: [RecordedRequest] = []
    }

    private let storage = Mutex(Storage())

    /// Appends a request and returns its position, for a later ``update(_:_:)``.
    func append(_ request: RecordedRequest) -> Int {
        storage.withLock { log in
            log.items.append(request)
            return log.forgotten + log.items.count - 1
        }
    }

    /// Changes a recorded request, unless it was cleared meanwhile.
    func update(_ index: Int, _ change: (inout RecordedRequest) -> Void) {
        storage.withLock { log in
            let position = index - log.forgotten
            guard log.items.indices.contains(position) else { return }
            change(&log.items[position])
        }
    }

    var all: [RecordedRequest] { storage.withLock { $0.items } }

    /// Every request ever recorded, cleared ones included.
    var totalCount: Int { storage.withLock { $0.forgotten + $0.items.count } }

    func clear() {
        storage.withLock { log in
            log.forgotten += log.items.count
            log.items = []
        }
    }
}
