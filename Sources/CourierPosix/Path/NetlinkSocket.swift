#if canImport(Glibc)
import Glibc
#endif
import CCourierLinux

/// A non-blocking `NETLINK_ROUTE` socket. Created on the calling thread, it stays bound to that
/// thread's network namespace whichever thread later reads it (network namespaces are per
/// thread on Linux; a socket keeps the namespace it was made in).
///
/// Not thread-safe: owned by ``PathMonitor``'s loop-confined core. Not final only so that tests
/// can lose a reply on purpose (a subclass overriding ``receive(into:)``).
class NetlinkSocket {
    let descriptor: Int32

    /// RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE.
    static let changeGroups: UInt32 = UInt32(RTMGRP_LINK) | UInt32(RTMGRP_IPV4_IFADDR) | UInt32(RTMGRP_IPV6_IFADDR)
        | UInt32(RTMGRP_IPV4_ROUTE) | UInt32(RTMGRP_IPV6_ROUTE)

    /// Opens and binds the socket; `groups` 0 makes a request/response socket.
    init(groups: UInt32) throws(PosixError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = try Syscall.blocking("socket(AF_NETLINK)", socket(AF_NETLINK, type, NETLINK_ROUTE))
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        if bound != 0 {
            let error = PosixError(code: errno, call: "bind(AF_NETLINK)")
            Syscall.close(fd)
            throw error
        }
        descriptor = fd
    }

    /// Sends one request to the kernel. A full socket buffer (`EAGAIN`, `ENOBUFS`) is
    /// reported as false: the caller retries on the next change.
    func send(_ message: [UInt8]) throws(PosixError) -> Bool {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let fd = descriptor
        let result = try Syscall.nonBlocking("sendto(netlink)", message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        })
        if case .processed(let count) = result { return count == message.count }
        return false
    }

    /// What one `recvfrom` gave.
    enum Received {
        /// One datagram from the kernel (possibly cut to the buffer: `truncated`).
        case datagram([UInt8], truncated: Bool)
        /// A datagram from a user-space sender: ignored (only the kernel speaks for routes).
        case foreign
        /// Messages were dropped because the receive buffer overflowed (`ENOBUFS`): state
        /// must be re-read from scratch.
        case overrun
        case wouldBlock
    }

    func receive(into buffer: inout [UInt8]) throws(PosixError) -> Received {
        var sender = sockaddr_nl()
        var senderLength = socklen_t(MemoryLayout<sockaddr_nl>.size)
        let fd = descriptor
        let capacity = buffer.count
        let result: IOResult<Int>
        do throws(PosixError) {
            result = try Syscall.nonBlocking("recvfrom(netlink)", buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, bytes.baseAddress, capacity, Int32(MSG_TRUNC), $0, &senderLength)
                    }
                }
            })
        } catch where error.code == ENOBUFS {
            return .overrun
        }
        guard case .processed(let length) = result else { return .wouldBlock }
        guard sender.nl_pid == 0 else { return .foreign }
        // MSG_TRUNC: the datagram's real length, which may exceed the buffer.
        return .datagram(Array(buffer[0..<min(length, capacity)]), truncated: length > capacity)
    }

    deinit { Syscall.close(descriptor) }
}
