#if canImport(Glibc)
import Glibc
#endif

/// Connects that tests leave half-done: with a `ScriptedServer(backlog: 0)` that has paused
/// accepting, a few of these fill its accept queue so the next SYN is dropped and a client's
/// connect hangs (the recipe for a loopback connect timeout).
public enum LoopbackConnect {
    /// A non-blocking, close-on-exec connect to 127.0.0.1:`port`, left in progress; -1 when no
    /// socket could be made. The caller closes it.
    public static func started(port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        // Safe: the address is a local value, rebound only for the call that reads it.
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return descriptor
    }
}
