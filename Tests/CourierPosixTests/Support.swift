#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierPosix
import CourierTestSupport
import Testing
import Dispatch
import Synchronization

/// A blocking IPv4/IPv6 listener on loopback for transport tests.
final class TestListener: Sendable {
    let fd: Int32
    let port: Int

    init(ipv6: Bool = false) throws {
        let fd = ipv6 ? socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0) : socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, 4)
        let address = try SocketAddress(ipAddress: ipv6 ? "::1" : "127.0.0.1", port: 0)
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        precondition(bound == 0 && listen(fd, 128) == 0)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let local = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                getsockname(fd, p, &length)
                return SocketAddress(p, length: length)!
            }
        }
        self.port = local.port!
    }

    /// Accepts one connection (blocking).
    func accept() -> Int32 { Glibc.accept(fd, nil, nil) }

    deinit { close(fd) }
}

/// Runs `body` alone among socket tests and checks that it left no descriptor open.
func expectNoLeakedDescriptors(_ body: () throws -> Void) throws {
    try FileDescriptors.exclusively {
        try FileDescriptors.expectNoLeakedDescriptors(body)
    }
}

/// A one-shot value slot other threads fill and a test waits on.
final class Box<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func put(_ v: T) {
        value.withLock { $0 = v }
        ready.signal()
    }

    /// Waits up to `seconds` for a value.
    func take(seconds: Int = 10) -> T? {
        _ = ready.wait(timeout: .now() + .seconds(seconds))
        return value.withLock { $0 }
    }
}
