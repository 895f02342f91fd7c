/// An address as a SOCKS5 message carries it (RFC 1928 §5): the `ATYP` byte and `DST.ADDR` /
/// `BND.ADDR`, without the port.
public enum SOCKS5Address: Hashable, Sendable, CustomStringConvertible {
    /// `ATYP X'01'`: four bytes.
    case ipv4([UInt8])
    /// `ATYP X'04'`: sixteen bytes.
    case ipv6([UInt8])
    /// `ATYP X'03'`: a name of 1 to 255 bytes, resolved by the proxy (`socks5h`).
    case domain([UInt8])

    /// The address of a URL host as it goes into a request: an IPv4 or IPv6 literal as its
    /// bytes (whatever the proxy kind: there is nothing to resolve), a name as a domain.
    ///
    /// - Throws: ``SOCKSError/domainNameTooLong(bytes:)`` or ``SOCKSError/emptyDomainName``.
    public init(host: String) throws(SOCKSError) {
        if let v4 = IPAddress.parseIPv4(host.utf8) {
            self = .ipv4(v4)
        } else if let v6 = IPAddress.parseIPv6(host.utf8) {
            self = .ipv6(v6)
        } else {
            let name = Array(host.utf8)
            guard !name.isEmpty else { throw .emptyDomainName }
            guard name.count <= 255 else { throw .domainNameTooLong(bytes: name.count) }
            self = .domain(name)
        }
    }

    /// `ATYP` followed by the address bytes (a domain with its length byte).
    var encoded: [UInt8] {
        switch self {
        case .ipv4(let bytes): [0x01] + bytes
        case .ipv6(let bytes): [0x04] + bytes
        case .domain(let name): [0x03, UInt8(truncatingIfNeeded: name.count)] + name
        }
    }

    public var description: String {
        switch self {
        case .ipv4(let bytes): return bytes.map(String.init).joined(separator: ".")
        case .ipv6(let bytes):
            // Groups of two bytes (an odd last byte alone), uncompressed: for messages only.
            return stride(from: 0, to: bytes.count, by: 2).map { i in
                let high = UInt16(bytes[i]) << 8
                return String(i + 1 < bytes.count ? high | UInt16(bytes[i + 1]) : high, radix: 16)
            }.joined(separator: ":")
        case .domain(let name): return HTTPURLError.escaped(String(decoding: name, as: UTF8.self))
        }
    }
}
