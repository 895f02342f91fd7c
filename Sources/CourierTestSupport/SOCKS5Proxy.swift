#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import Synchronization

/// What a ``SOCKS5Proxy`` does wrong on purpose, at one step of the handshake.
public enum SOCKS5ProxyFault: Sendable, Hashable {
    /// Reads the greeting and never answers (until the client closes).
    case stall
    /// Answers the greeting with these bytes instead of a method selection, then closes.
    case methodReply([UInt8])
    /// Answers the username/password request with these bytes, then closes.
    case authenticationReply([UInt8])
    /// Answers the CONNECT request with these bytes, then closes.
    case connectReply([UInt8])
    /// Closes after reading the CONNECT request, without a reply.
    case closeBeforeReply
    /// Answers the CONNECT with success and, in the same write, these bytes, as if the target
    /// had spoken at once; connects nowhere; then reads until the client closes.
    case replyFollowedBy([UInt8])
}

/// A scripted SOCKS5 proxy on `127.0.0.1` for tests (RFC 1928, `CONNECT` only), optionally
/// demanding username/password authentication (RFC 1929), with faults on demand
/// (``SOCKS5ProxyFault``). Targets must be loopback (`127.0.0.0/8`, `::1`, `localhost`); any
/// other is refused with reply 2 (not allowed by ruleset), a target that refuses with reply 5.
/// Tunnels pipe bytes both ways until either side closes. Everything seen is recorded.
public final class SOCKS5Proxy: Sendable {
    let core: SOCKSCore

    /// Starts listening on `127.0.0.1` (kernel-chosen port). With `credentials`, only the
    /// username/password method is accepted, and only with these.
    public init(credentials: (user: String, password: String)? = nil, fault: SOCKS5ProxyFault? = nil) throws {
        core = try SOCKSCore(credentials: credentials.map { [$0.user, $0.password] }, fault: fault)
        try core.start()
    }

    deinit { core.shutdown() }

    public var port: Int { core.port }

    /// The methods each greeting offered, in order.
    public var methodsOffered: [[UInt8]] { core.records.withLock { $0.methodsOffered } }
    /// Every username/password request, as `user:password`.
    public var authentications: [String] { core.records.withLock { $0.authentications } }
    /// Every CONNECT target: `a.b.c.d:port` (ATYP 1), `[v6]:port` (ATYP 4, RFC 5952 text) or
    /// `name:port` (ATYP 3).
    public var destinations: [String] { core.records.withLock { $0.destinations } }
    /// The address type byte of every CONNECT request.
    public var addressTypes: [UInt8] { core.records.withLock { $0.addressTypes } }
    public var connectionsAccepted: Int { core.records.withLock { $0.accepted } }
    /// Handshakes answered with success.
    public var tunnelsOpened: Int { core.records.withLock { $0.tunnels } }
    /// Signalled when the first greeting has been read.
    public var greetingReceived: TestEvent { core.greetingReceived }

    /// Closes the listener and every connection and tunnel, and waits for all threads.
    public func shutdown() { core.shutdown() }
}

final class SOCKSCore: Sendable {
    struct Records {
        var methodsOffered: [[UInt8]] = []
        var authentications: [String] = []
        var destinations: [String] = []
        var addressTypes: [UInt8] = []
        var accepted = 0
        var tunnels = 0
    }

    let listener: Listener
    let credentials: [String]?
    let fault: SOCKS5ProxyFault?
    let records = Mutex(Records())
    let greetingReceived = TestEvent()

    init(credentials: [String]?, fault: SOCKS5ProxyFault?) throws {
        self.credentials = credentials
        self.fault = fault
        self.listener = try Listener(address: .loopbackIPv4, backlog: 64)
    }

    func start() throws {
        try listener.start({ [self] in acceptLoop() }, orElse: shutdown)
    }

    var port: Int { listener.port }
    var registry: ConnectionRegistry { listener.registry }

    private func acceptLoop() {
        listener.acceptUntilStopped(accepted: { records.withLock { $0.accepted += 1 } }) { [self] fd, id in
            SOCKSConnection(id: id, fd: fd, core: self).run()
        }
    }

    func shutdown() { listener.shutdown() }
}

/// One client connection to the SOCKS5 proxy, on its own thread.
private final class SOCKSConnection {
    let id: Int
    let fd: Int32
    let core: SOCKSCore
    var buffer: [UInt8] = []
    var upstream: Int32?

    init(id: Int, fd: Int32, core: SOCKSCore) {
        self.id = id
        self.fd = fd
        self.core = core
    }

    func run() {
        defer { closeAll() }
        do {
            try serve()
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

    private func serve() throws {
        // RFC 1928 §3: VER NMETHODS METHODS.
        let head = try read(2)
        guard head[0] == 5 else { return }
        let methods = try read(Int(head[1]))
        core.records.withLock { $0.methodsOffered.append(methods) }
        core.greetingReceived.signal()
        switch core.fault {
        case .stall?: return drainUntilClosed()
        case .methodReply(let bytes)?: return try answerAndClose(bytes)
        default: break
        }
        if let credentials = core.credentials {
            guard methods.contains(2) else { return try answerAndClose([5, 0xFF]) }
            try send([5, 2])
            // RFC 1929 §2: VER ULEN UNAME PLEN PASSWD.
            let version = try read(1)[0]
            let user = try read(Int(try read(1)[0]))
            let password = try read(Int(try read(1)[0]))
            let pair = [String(decoding: user, as: UTF8.self), String(decoding: password, as: UTF8.self)]
            core.records.withLock { $0.authentications.append(pair.joined(separator: ":")) }
            if case .authenticationReply(let bytes)? = core.fault { return try answerAndClose(bytes) }
            guard version == 1, pair == credentials else { return try answerAndClose([1, 1]) }
            try send([1, 0])
        } else {
            guard methods.contains(0) else { return try answerAndClose([5, 0xFF]) }
            try send([5, 0])
        }
        // RFC 1928 §4: VER CMD RSV ATYP DST.ADDR DST.PORT.
        let request = try read(4)
        let host: String
        switch request[3] {
        case 1:
            host = try read(4).map(String.init).joined(separator: ".")
        case 4:
            let bytes = try read(16)
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            host = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil ? String(cString: text) : "?"
        case 3:
            host = String(decoding: try read(Int(try read(1)[0])), as: UTF8.self)
        default:
            return try answerAndClose([5, 8, 0, 1, 0, 0, 0, 0, 0, 0])
        }
        let portBytes = try read(2)
        let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        let destination = request[3] == 4 ? "[\(host)]:\(port)" : "\(host):\(port)"
        core.records.withLock {
            $0.destinations.append(destination)
            $0.addressTypes.append(request[3])
        }
        switch core.fault {
        case .closeBeforeReply?: return
        case .connectReply(let bytes)?: return try answerAndClose(bytes)
        case .replyFollowedBy(let bytes)?:
            core.records.withLock { $0.tunnels += 1 }
            try send([5, 0, 0, 1, 127, 0, 0, 1, 0, 0] + bytes)
            return drainUntilClosed()
        default: break
        }
        guard request[1] == 1 else { return try answerAndClose([5, 7, 0, 1, 0, 0, 0, 0, 0, 0]) }
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        guard loopback else { return try answerAndClose([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]) }
        guard let up = try? Socket.connect(host: host, port: port) else {
            return try answerAndClose([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])
        }
        guard core.registry.addFD(id, up) else {
            Glibc.close(up)
            return
        }
        upstream = up
        let bound = Socket.localPort(up)
        core.records.withLock { $0.tunnels += 1 }
        try send([5, 0, 0, 1, 127, 0, 0, 1, UInt8(bound >> 8), UInt8(bound & 0xFF)])
        // Bytes the client sent right after its request (an early ClientHello) belong upstream.
        if !buffer.isEmpty {
            let early = buffer
            buffer = []
            try early.withUnsafeBytes { raw in try Socket.sendAll(up, raw) }
        }
        Relay.pipe(fd, up)
    }

    private func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try Socket.sendAll(fd, raw) }
    }

    /// Sends `bytes`, half-closes (a FIN, so the client reads them before the end), and waits
    /// for the client to close.
    private func answerAndClose(_ bytes: [UInt8]) throws {
        try send(bytes)
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        drainUntilClosed()
    }

    /// Reads and drops everything until the client closes (or shutdown wakes the read).
    private func drainUntilClosed() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = scratch.withUnsafeMutableBytes { raw -> Int in (try? Socket.receive(fd, into: raw)) ?? 0 }
            if n <= 0 { return }
        }
    }

    /// Exactly `count` bytes; throws when the client closes first.
    private func read(_ count: Int) throws -> [UInt8] {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while buffer.count < count {
            let n = try scratch.withUnsafeMutableBytes { raw in try Socket.receive(fd, into: raw) }
            guard n > 0 else { throw TestServerError("recv (SOCKS5 handshake)", errno: ECONNRESET) }
            buffer += scratch[0..<n]
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }
}
