#if canImport(Glibc)
import Glibc
#endif

/// Where a test server listens. Always loopback: tests never touch the network.
public enum ServerAddress: Sendable, Hashable {
    /// `127.0.0.1`, on a port the kernel picks.
    case loopbackIPv4
    /// `::1`, on a port the kernel picks.
    case loopbackIPv6
    /// A Unix-domain stream socket at this path (removed again by `shutdown()`).
    case unix(String)
}

/// Errors from the test servers' own socket calls.
public struct TestServerError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    init(_ operation: String, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        "\(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Ignores SIGPIPE for the whole process, once: OpenSSL's socket BIO writes with `write()`, which
/// would otherwise kill the test process when a client has gone away.
let ignoreSIGPIPE: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// Small blocking-socket helpers shared by the scripted server and the proxy.
enum Socket {
    /// Creates a listening socket on `address`. Returns the fd and the port (0 for Unix sockets).
    static func listen(on address: ServerAddress, backlog: Int32) throws(TestServerError) -> (fd: Int32, port: Int) {
        _ = ignoreSIGPIPE
        let family: Int32
        switch address {
        case .loopbackIPv4: family = AF_INET
        case .loopbackIPv6: family = AF_INET6
        case .unix: family = AF_UNIX
        }
        let fd = Glibc.socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        switch address {
        case .loopbackIPv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = 0
            sin.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            bound = withUnsafePointer(to: &sin) {
                // Safe: sockaddr_in is a valid sockaddr prefix for the duration of the call.
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .loopbackIPv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = 0
            sin6.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &sin6) {
                // Safe: as above, for sockaddr_in6.
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        case .unix(let path):
            unlink(path)
            guard var sun = unixAddress(path) else {
                Glibc.close(fd)
                throw TestServerError("bind (path too long)", errno: ENAMETOOLONG)
            }
            bound = withUnsafePointer(to: &sun) {
                // Safe: as above, for sockaddr_un.
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        guard bound == 0 else {
            let error = TestServerError("bind")
            Glibc.close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = TestServerError("listen")
            Glibc.close(fd)
            throw error
        }
        return (fd, localPort(fd))
    }

    /// A `sockaddr_un` for `path`, or nil if the path does not fit.
    static func unixAddress(_ path: String) -> sockaddr_un? {
        var sun = sockaddr_un()
        sun.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: sun.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &sun.sun_path) { raw in
            // Safe: the tuple is `capacity` bytes and we write fewer, leaving the NUL terminator.
            raw.copyBytes(from: bytes)
        }
        return sun
    }

    /// The port a socket is bound to (0 for non-IP sockets).
    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            // Safe: sockaddr_storage is large enough for any address the kernel returns.
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return 0 }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                // Safe: the family says the storage holds a sockaddr_in.
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                // Safe: the family says the storage holds a sockaddr_in6.
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return 0
        }
    }

    /// Connects a blocking TCP socket to a loopback host (`127.0.0.1`, `::1` or `localhost`) and port.
    static func connect(host: String, port: Int) throws(TestServerError) -> Int32 {
        _ = ignoreSIGPIPE
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else { throw TestServerError("getaddrinfo(\(host))", errno: EHOSTUNREACH) }
        defer { freeaddrinfo(first) }
        var lastError = TestServerError("connect", errno: ECONNREFUSED)
        var info: UnsafeMutablePointer<addrinfo>? = first
        while let ai = info {
            info = ai.pointee.ai_next
            let fd = Glibc.socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { lastError = TestServerError("socket"); continue }
            if Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 {
                setNoDelay(fd)
                return fd
            }
            lastError = TestServerError("connect to \(host):\(port)")
            Glibc.close(fd)
        }
        throw lastError
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sends all of `bytes` with `MSG_NOSIGNAL`. Throws on any failure (EPIPE, ECONNRESET, ...).
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(TestServerError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                throw TestServerError("send")
            }
            offset += n
        }
    }

    /// Receives up to `into.count` bytes. Returns 0 at EOF; throws on error.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(TestServerError) -> Int {
        while true {
            let n = Glibc.recv(fd, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw TestServerError("recv")
        }
    }

    /// Makes the next `close` send RST instead of FIN (`SO_LINGER` with a zero timeout).
    static func setAbortiveClose(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Sets a receive timeout on a blocking socket (0 = none).
    static func setReceiveTimeout(_ fd: Int32, milliseconds: Int) {
        var tv = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A pipe used to wake a thread sitting in `poll`: (read end, write end).
    static func makeWakePipe() throws(TestServerError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw TestServerError("pipe") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    static func wake(_ writeFD: Int32) {
        var one: UInt8 = 1
        _ = Glibc.write(writeFD, &one, 1)
    }

    static func drainWake(_ readFD: Int32) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while scratch.withUnsafeMutableBytes({ Glibc.read(readFD, $0.baseAddress, $0.count) }) > 0 {}
    }
}
