#if canImport(Glibc)
import Glibc
#endif

/// An IPv4, IPv6 or Unix-domain socket address.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: Hashable, Sendable {
        case ipv4, ipv6, unix

        var rawValue: Int32 {
            switch self {
            case .ipv4: AF_INET
            case .ipv6: AF_INET6
            case .unix: AF_UNIX
            }
        }
    }

    public let family: Family
    /// The raw `sockaddr_*` bytes as the kernel takes them.
    @usableFromInline let bytes: [UInt8]

    /// An address from an IP literal (`"127.0.0.1"`, `"::1"`, without brackets) and a port.
    public init(ipAddress: String, port: Int) throws(SocketAddressError) {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        var v4 = in_addr()
        if inet_pton(AF_INET, ipAddress, &v4) == 1 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            sin.sin_addr = v4
            self.init(family: .ipv4, raw: sin)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, ipAddress, &v6) == 1 {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = in_port_t(UInt16(port).bigEndian)
            sin6.sin6_addr = v6
            self.init(family: .ipv6, raw: sin6)
            return
        }
        throw .notAnIPAddress(ipAddress)
    }

    /// A Unix-domain socket path (at most 107 bytes, no NUL).
    public init(unixPath: String) throws(SocketAddressError) {
        var sun = sockaddr_un()
        sun.sun_family = sa_family_t(AF_UNIX)
        let path = Array(unixPath.utf8)
        let capacity = MemoryLayout.size(ofValue: sun.sun_path)
        guard !path.isEmpty, path.count < capacity, !path.contains(0) else { throw .invalidUnixPath(unixPath) }
        // Safe: `path.count < capacity`, so the copy and the terminating NUL fit in sun_path.
        withUnsafeMutableBytes(of: &sun.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let length = MemoryLayout<sa_family_t>.size + path.count + 1
        self.family = .unix
        self.bytes = withUnsafeBytes(of: &sun) { Array($0.prefix(length)) }
    }

    /// Copies a kernel-filled address (from getaddrinfo, getsockname, getpeername).
    public init?(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        let family: Family
        switch Int32(address.pointee.sa_family) {
        case AF_INET: family = .ipv4
        case AF_INET6: family = .ipv6
        case AF_UNIX: family = .unix
        default: return nil
        }
        self.family = family
        self.bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(length)))
    }

    private init<Raw>(family: Family, raw: Raw) {
        self.family = family
        self.bytes = withUnsafeBytes(of: raw) { Array($0) }
    }

    /// The port, or nil for Unix-domain addresses.
    public var port: Int? {
        switch family {
        case .ipv4: Int(UInt16(bigEndian: withRaw(sockaddr_in.self) { $0.sin_port }))
        case .ipv6: Int(UInt16(bigEndian: withRaw(sockaddr_in6.self) { $0.sin6_port }))
        case .unix: nil
        }
    }

    /// The IP address as text (`"127.0.0.1"`, `"::1"`), or the socket path.
    public var host: String {
        switch family {
        case .ipv4:
            var addr = withRaw(sockaddr_in.self) { $0.sin_addr }
            return Self.ntop(AF_INET, &addr)
        case .ipv6:
            var addr = withRaw(sockaddr_in6.self) { $0.sin6_addr }
            return Self.ntop(AF_INET6, &addr)
        case .unix:
            let pathBytes = bytes.dropFirst(MemoryLayout<sa_family_t>.size).prefix { $0 != 0 }
            return String(decoding: pathBytes, as: UTF8.self)
        }
    }

    public var description: String {
        switch family {
        case .ipv4: "\(host):\(port ?? 0)"
        case .ipv6: "[\(host)]:\(port ?? 0)"
        case .unix: "unix:\(host)"
        }
    }

    /// Calls `body` with the address as the kernel wants it.
    public func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        // Safe: `bytes` holds a complete sockaddr of this family; the pointer does not escape.
        try bytes.withUnsafeBytes { raw in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }

    private func withRaw<Raw, R>(_ type: Raw.Type, _ body: (Raw) -> R) -> R {
        // Safe: the family tag guarantees `bytes` holds at least a `Raw`; loadUnaligned copes
        // with the Array's alignment.
        bytes.withUnsafeBytes { body($0.loadUnaligned(as: Raw.self)) }
    }

    private static func ntop(_ family: Int32, _ addr: UnsafeRawPointer) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, addr, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(cString: text)
    }
}

/// Why a socket address could not be built.
public enum SocketAddressError: Error, Hashable, Sendable {
    case notAnIPAddress(String)
    case invalidPort(Int)
    case invalidUnixPath(String)
}
