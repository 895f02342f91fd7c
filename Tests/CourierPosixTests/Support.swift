#if canImport(Glibc)
import Glibc
#endif
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

/// Serialises the tests that count descriptors: the count is process-wide, so two such tests
/// running in parallel would see each other's sockets.
let descriptorAccounting = Mutex<Void>(())

/// Runs `body` alone among descriptor-counting tests and checks that it left no descriptor
/// open (counting /proc/self/fd before and after).
func expectNoLeakedDescriptors(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) rethrows {
    // Also exclusive with the other suites' socket tests (client, test support), which would
    // otherwise open descriptors while this one counts them.
    try FileDescriptors.exclusively { try descriptorAccounting.withLock { _ in
        let before = openDescriptorCount()
        try body()
        let after = openDescriptorCount()
        #expect(after == before, "descriptors leaked: \(before) before, \(after) after", sourceLocation: sourceLocation)
    } }
}

/// Entries in /proc/self/fd.
func openDescriptorCount() -> Int {
    guard let dir = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(dir) }
    var count = 0
    while readdir(dir) != nil { count += 1 }
    return count
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
