#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierHTTP1
import Synchronization

/// A tiny forward proxy on `127.0.0.1` for tests: `CONNECT host:port` tunnels (RFC 9110 §9.3.6)
/// and absolute-form requests (RFC 9112 §3.2.2), optionally behind `Proxy-Authorization: Basic`.
///
/// Tunnels pipe bytes both ways until either side closes. An absolute-form request is forwarded
/// in origin form over a new upstream connection with `Connection: close`, and the response is
/// relayed until the upstream closes; the client connection then closes too. Upstreams must be
/// loopback (`127.0.0.1`, `::1`, `localhost`). Everything seen is recorded.
public final class ConnectProxy: Sendable {
    let core: ProxyCore

    /// Starts listening on `127.0.0.1` (kernel-chosen port). With `credentials`, every request
    /// must carry `Proxy-Authorization: Basic base64(user:password)`, or it gets a 407.
    public init(credentials: (user: String, password: String)? = nil) throws {
        core = try ProxyCore(expectedAuthorization: credentials.map { try basicAuthorizationValue(username: $0.user, password: $0.password) })
        try core.start()
    }

    deinit { core.shutdown() }

    public var port: Int { core.port }
    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The targets of CONNECT requests (`host:port`), including refused ones.
    public var connectTargets: [String] { core.records.withLock { $0.connectTargets } }
    /// The absolute-form targets of forwarded requests.
    public var forwardedTargets: [String] { core.records.withLock { $0.forwardedTargets } }
    /// The `Proxy-Authorization` value of every request (nil where absent), in order.
    public var authorizations: [String?] { core.records.withLock { $0.authorizations } }
    /// Requests answered with 407.
    public var rejectedForAuthentication: Int { core.records.withLock { $0.rejected } }
    public var connectionsAccepted: Int { core.records.withLock { $0.accepted } }
    /// Tunnels currently open.
    public var openTunnels: Int { core.records.withLock { $0.openTunnels } }

    /// Answer every CONNECT with this status instead of tunnelling (nil: tunnel normally).
    public var connectFailureStatus: Int? {
        get { core.records.withLock { $0.connectFailureStatus } }
        set { core.records.withLock { $0.connectFailureStatus = newValue } }
    }

    /// Closes the listener, every client connection and tunnel, and waits for all threads.
    public func shutdown() { core.shutdown() }
}

final class ProxyCore: Sendable {
    struct Records {
        var connectTargets: [String] = []
        var forwardedTargets: [String] = []
        var authorizations: [String?] = []
        var rejected = 0
        var accepted = 0
        var openTunnels = 0
        var connectFailureStatus: Int?
    }

    let listener: Listener
    let expectedAuthorization: String?
    let records = Mutex(Records())

    init(expectedAuthorization: String?) throws {
        self.expectedAuthorization = expectedAuthorization
        self.listener = try Listener(address: .loopbackIPv4, backlog: 256)
    }

    func start() throws {
        try listener.start({ [self] in acceptLoop() }, orElse: shutdown)
    }

    var port: Int { listener.port }
    var registry: ConnectionRegistry { listener.registry }

    private func acceptLoop() {
        listener.acceptUntilStopped(accepted: { records.withLock { $0.accepted += 1 } }) { [self] fd, id in
            ProxyConnection(id: id, fd: fd, core: self).run()
        }
    }

    func shutdown() { listener.shutdown() }
}

/// One client connection to the proxy, on its own thread.
private final class ProxyConnection {
    let id: Int
    let fd: Int32
    let core: ProxyCore
    var parser = HTTPRequestParser()
    var buffer = ByteBuffer(capacity: 16 * 1024)
    /// The upstream socket while a tunnel or forward is open.
    var upstream: Int32?

    init(id: Int, fd: Int32, core: ProxyCore) {
        self.id = id
        self.fd = fd
        self.core = core
    }

    func run() {
        defer { closeAll() }
        do {
            while try serveOne() {}
        } catch {
            return
        }
    }

    private func closeAll() {
        if let upstream {
            core.registry.removeFD(id, upstream)
            Glibc.close(upstream)
        }
        _ = core.registry.remove(id)
        Glibc.close(fd)
    }

    private func send(_ string: String) throws {
        try Array(string.utf8).withUnsafeBytes { raw in try Socket.sendAll(fd, raw) }
    }

    /// Handles one request. Returns whether to read another on this connection.
    private func serveOne() throws -> Bool {
        guard let head = try readHead() else { return false }
        let method = head.method.rawValue
        let target = head.target.string
        let authorization = head.headers[first: "Proxy-Authorization"]
        let body = try readBody()
        core.records.withLock {
            $0.authorizations.append(authorization)
            if method == "CONNECT" { $0.connectTargets.append(target) } else { $0.forwardedTargets.append(target) }
        }
        if let expected = core.expectedAuthorization, authorization != expected {
            core.records.withLock { $0.rejected += 1 }
            let close = !head.isKeepAlive
            try send("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"courier-test\"\r\n"
                + "Content-Length: 0\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n")
            return !close
        }
        if method == "CONNECT" {
            try tunnel(to: target)
            return false
        }
        if target.hasPrefix("http://") {
            try forward(head: head, target: target, body: body)
            return false
        }
        try send("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return false
    }

    private func tunnel(to target: String) throws {
        if let status = core.records.withLock({ $0.connectFailureStatus }) {
            try send("HTTP/1.1 \(status) \(ServerConnection.reasonPhrase(status))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        guard let (host, port) = Self.splitAuthority(target) else {
            try send("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        guard let up = connectUpstream(host: host, port: port) else {
            try send("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        try send("HTTP/1.1 200 Connection Established\r\n\r\n")
        // Bytes the client sent right after the CONNECT head (an early ClientHello) belong upstream.
        if buffer.readableBytes > 0 {
            let early = buffer.readableBytesArray()
            buffer.clear()
            try early.withUnsafeBytes { raw in try Socket.sendAll(up, raw) }
        }
        core.records.withLock { $0.openTunnels += 1 }
        defer { core.records.withLock { $0.openTunnels -= 1 } }
        Relay.pipe(fd, up)
    }

    private func forward(head: HTTPRequestHeadView, target: String, body: [UInt8]) throws {
        // http://host:port/path?query
        let rest = target.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        guard let (host, port) = Self.splitAuthority(authority.contains(":") ? authority : authority + ":80"),
              let up = connectUpstream(host: host, port: port)
        else {
            try send("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        var text = "\(head.method.rawValue) \(path) \(head.version)\r\n"
        for field in head.headers {
            let name = field.name.string
            if ["proxy-authorization", "proxy-connection", "connection", "keep-alive", "transfer-encoding", "content-length"]
                .contains(where: { RecordedRequest.equalsIgnoringCase($0, name) }) { continue }
            text += "\(name): \(field.value.string)\r\n"
        }
        if !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
        text += "Connection: close\r\n\r\n"
        let request = Array(text.utf8) + body
        try request.withUnsafeBytes { raw in try Socket.sendAll(up, raw) }
        Relay.pipe(fd, up)
    }

    /// Connects to a loopback upstream and registers it so shutdown can wake the pipe.
    private func connectUpstream(host: String, port: Int) -> Int32? {
        guard ["127.0.0.1", "::1", "localhost"].contains(host) else { return nil }
        guard let up = try? Socket.connect(host: host, port: port) else { return nil }
        guard core.registry.addFD(id, up) else {
            Glibc.close(up)
            return nil
        }
        upstream = up
        return up
    }

    /// `host:port` or `[v6]:port` → (host, port).
    static func splitAuthority(_ authority: String) -> (String, Int)? {
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]) else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    private func readHead() throws -> HTTPRequestHeadView? {
        while true {
            if buffer.readableBytes == 0 && parser.isAtMessageBoundary && core.registry.closeRequested(id) { return nil }
            switch try parser.next(&buffer) {
            case .head(let head): return head
            case .needMoreData: guard try fill() else { return nil }
            case .body, .end: continue
            }
        }
    }

    private func readBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            switch try parser.next(&buffer) {
            case .body(let piece): body += piece.readableBytesArray()
            case .end: return body
            case .needMoreData: guard try fill() else { throw TestServerError("recv (request body)", errno: ECONNRESET) }
            case .head: throw TestServerError("parse", errno: EPROTO)
            }
        }
    }

    private func fill() throws(TestServerError) -> Bool {
        if buffer.readableBytes == 0 { buffer.clear() }
        var failure: TestServerError?
        let n = buffer.withUnsafeMutableWritableBytes(minimumCapacity: 16 * 1024) { region -> Int in
            do throws(TestServerError) { return try Socket.receive(fd, into: region) } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return n > 0
    }
}
