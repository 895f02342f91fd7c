#if canImport(Glibc)
import Glibc
#endif
import CCourierLinux
import CourierCore

/// A non-blocking, close-on-exec stream socket (TCP or Unix-domain).
///
/// Owned by one event loop for its whole life: not thread-safe and not `Sendable`. The
/// descriptor is closed by ``close()`` or, as a safety net, when the object is released.
public final class Socket {
    /// The descriptor, or -1 once closed. Unchecked exclusivity: one loop owns the socket and
    /// nothing holds the descriptor `inout` (the check cost a call per read and per write).
    @exclusivity(unchecked) public private(set) var descriptor: Int32
    public let family: SocketAddress.Family

    /// Creates a socket for `family`: `SOCK_NONBLOCK | SOCK_CLOEXEC`, `TCP_NODELAY` for IP.
    public init(family: SocketAddress.Family) throws(PosixError) {
        ProcessSetup.ignoreSIGPIPE()
        let type = Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        let fd = try Syscall.blocking("socket", Glibc.socket(family.rawValue, type, 0))
        self.descriptor = fd
        self.family = family
        if family != .unix {
            var one: Int32 = 1
            // Requests are small writes that must not wait for an ACK (Nagle + delayed ACK).
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Wraps an accepted or otherwise already-configured descriptor.
    public init(adopting fd: Int32, family: SocketAddress.Family) {
        self.descriptor = fd
        self.family = family
    }

    deinit {
        if descriptor >= 0 { Syscall.close(descriptor) }
    }

    public var isOpen: Bool { descriptor >= 0 }

    /// Starts a non-blocking connect. Returns true when already connected (possible for Unix
    /// sockets), false when in progress: wait for writability, then call ``finishConnect()``.
    public func connect(to address: SocketAddress) throws(PosixError) -> Bool {
        let fd = descriptor
        let result: Int32 = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        if result == 0 { return true }
        let code = errno
        if code == EINPROGRESS || code == EINTR { return false }
        throw PosixError(code: code, call: "connect")
    }

    /// Reads the result of a non-blocking connect once the socket is writable (`SO_ERROR`).
    public func finishConnect() throws(PosixError) {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try Syscall.blocking("getsockopt", getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length))
        if error != 0 { throw PosixError(code: error, call: "connect") }
    }

    /// Reads up to `maximum` bytes into `buffer`'s writable space. `.processed(0)` is EOF.
    public func read(into buffer: inout ByteBuffer, maximum: Int) throws(PosixError) -> IOResult<Int> {
        try Self.read(descriptor, into: &buffer, maximum: maximum)
    }

    /// Writes as much of `bytes` as the kernel takes now.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(PosixError) -> IOResult<Int> {
        try Self.write(descriptor, bytes)
    }

    /// Writes the readable bytes of several buffers in one `writev` (at most 64 of them).
    public func write(_ buffers: [ByteBuffer]) throws(PosixError) -> IOResult<Int> {
        try Self.write(descriptor, buffers)
    }

    // The same on the descriptor of a socket the caller holds (and so keeps open): a caller
    // that keeps the descriptor next to its own hot state reads and writes without touching
    // the object, a retain and release and a cache line of its own per call.

    /// ``read(into:maximum:)`` on `descriptor`.
    public static func read(_ descriptor: Int32, into buffer: inout ByteBuffer, maximum: Int) throws(PosixError) -> IOResult<Int> {
        var wouldBlock = false
        let count = try buffer.withUnsafeMutableWritableBytes(minimumCapacity: maximum) { (region) throws(PosixError) -> Int in
            // Safe: the region is the buffer's own writable memory, valid for this closure;
            // the kernel writes at most the length passed into it.
            switch try Syscall.nonBlocking("recv", courier_recv(descriptor, region.baseAddress, min(region.count, maximum))) {
            case .processed(let n): return n
            case .wouldBlock: wouldBlock = true; return 0
            }
        }
        return wouldBlock ? .wouldBlock : .processed(count)
    }

    /// ``write(_:)-(UnsafeRawBufferPointer)`` on `descriptor`.
    public static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(PosixError) -> IOResult<Int> {
        try Syscall.nonBlocking("send", courier_send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)))
    }

    /// ``write(_:)-([ByteBuffer])`` on `descriptor`.
    public static func write(_ descriptor: Int32, _ buffers: [ByteBuffer]) throws(PosixError) -> IOResult<Int> {
        let count = min(buffers.count, 64)
        if count == 1 {
            return try buffers[0].withUnsafeReadableBytes { (raw) throws(PosixError) in try write(descriptor, raw) }
        }
        var vectors = [iovec](repeating: iovec(), count: count)
        return try gather(buffers, index: 0, count: count, into: &vectors) { (iov) throws(PosixError) in
            try Syscall.nonBlocking("writev", Glibc.writev(descriptor, iov.baseAddress, Int32(iov.count)))
        }
    }

    /// Builds the iovec array with every buffer's pointer valid for the duration of `body` by
    /// nesting `withUnsafeReadableBytes` calls.
    private static func gather<R>(
        _ buffers: [ByteBuffer], index: Int, count: Int, into vectors: inout [iovec],
        _ body: (UnsafeMutableBufferPointer<iovec>) throws(PosixError) -> R
    ) throws(PosixError) -> R {
        if index == count {
            return try vectors.withUnsafeMutableBufferPointer { (iov) throws(PosixError) in try body(iov) }
        }
        return try buffers[index].withUnsafeReadableBytes { (raw) throws(PosixError) in
            // Safe: the pointer is used only by the writev inside the innermost closure, while
            // this closure (and so the buffer's memory) is still active.
            vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count)
            return try gather(buffers, index: index + 1, count: count, into: &vectors, body)
        }
    }

    /// Half-closes the sending side (FIN).
    public func shutdownWrite() {
        if descriptor >= 0 { _ = Glibc.shutdown(descriptor, Int32(SHUT_WR)) }
    }

    /// Closes the descriptor (idempotent). Deregister it from its selector first.
    public func close() {
        guard descriptor >= 0 else { return }
        Syscall.close(descriptor)
        descriptor = -1
    }

    /// The local address (`getsockname`).
    public var localAddress: SocketAddress? { address(getsockname) }

    /// The peer address (`getpeername`).
    public var remoteAddress: SocketAddress? { address(getpeername) }

    private func address(_ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            // Safe: sockaddr_storage is large and aligned enough for every sockaddr type.
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard call(descriptor, address, &length) == 0 else { return nil }
                return SocketAddress(address, length: length)
            }
        }
    }
}
