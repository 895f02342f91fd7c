/// A `no_proxy` value: hosts that are reached directly even when a proxy is configured.
///
/// Syntax, as curl (7.86 and later) reads it, plus ports:
/// - entries are separated by commas or whitespace; surrounding whitespace is ignored, and so
///   is case;
/// - `*` matches every host;
/// - a name matches itself and every subdomain: `example.com`, `.example.com` and
///   `*.example.com` all match `example.com` and `www.example.com`, never `badexample.com`;
///   a trailing dot on either side is ignored;
/// - an IP address matches that address only, never a name that resolves to it; CIDR blocks
///   are supported (`10.0.0.0/8`, `fe80::/10`); IPv6 may be written with or without brackets;
/// - an entry may end in `:port` (`example.com:8080`, `[::1]:8080`, `10.0.0.1:443`), and then
///   matches only URLs whose effective port is that one. A bare IPv6 address never carries a
///   port (use brackets).
///
/// Entries that do not parse (a bad port, a bad CIDR) are skipped: they can only ever make the
/// client use the proxy for a host the user wanted reached directly, which is the safe side.
public struct NoProxyList: Sendable, Hashable {
    enum Pattern: Hashable {
        case all
        /// A lowercase name without leading or trailing dot.
        case domain(String)
        /// Address bytes (4 or 16) and a prefix length in bits.
        case network([UInt8], prefixLength: Int)
    }

    struct Entry: Hashable {
        var pattern: Pattern
        var port: Int?
    }

    let entries: [Entry]

    public init(_ value: String) {
        var entries: [Entry] = []
        let separators: Set<UInt8> = [UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D]
        for piece in value.utf8.split(whereSeparator: { separators.contains($0) }) {
            if let entry = NoProxyList.entry(Array(piece).map(URISyntax.lower)) { entries.append(entry) }
        }
        self.entries = entries
    }

    /// Whether requests to `url` bypass the proxy.
    public func matches(_ url: HTTPURL) -> Bool {
        let address: [UInt8]?
        switch url.hostKind {
        case .ipv4: address = IPAddress.parseIPv4(url.host.utf8)
        case .ipv6: address = IPAddress.parseIPv6(url.host.utf8)
        case .name, .unixSocket: address = nil
        }
        var name = url.host
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        return entries.contains { entry in
            if let port = entry.port, port != url.port { return false }
            switch entry.pattern {
            case .all:
                return true
            case .domain(let domain):
                return address == nil && (name == domain || name.hasSuffix("." + domain))
            case .network(let network, let prefixLength):
                guard let address, address.count == network.count else { return false }
                return NoProxyList.prefix(of: address, equals: network, bits: prefixLength)
            }
        }
    }

    static func prefix(of address: [UInt8], equals network: [UInt8], bits: Int) -> Bool {
        var remaining = bits
        for i in address.indices where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if address[i] & mask != network[i] & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// One lowercase entry, or nil when it does not parse.
    static func entry(_ bytes: [UInt8]) -> Entry? {
        let colon = UInt8(ascii: ":")
        if bytes == [UInt8(ascii: "*")] { return Entry(pattern: .all, port: nil) }
        var hostPart = bytes[...]
        var port: Int?
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostPart = bytes[1..<close]
            let rest = bytes[(close + 1)...]
            var suffix = rest
            // "[fe80::]/10" puts the prefix length after the bracket.
            if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
                let end = rest[slash...].firstIndex(of: colon) ?? rest.endIndex
                hostPart = ArraySlice(Array(hostPart) + Array(rest[slash..<end]))
                suffix = rest[end...]
            }
            if !suffix.isEmpty {
                guard suffix.first == colon, let p = parsePort(suffix.dropFirst()) else { return nil }
                port = p
            }
        } else if bytes.filter({ $0 == colon }).count == 1, let c = bytes.firstIndex(of: colon) {
            guard let p = parsePort(bytes[(c + 1)...]) else { return nil }
            port = p
            hostPart = bytes[..<c]
        }
        guard let pattern = self.pattern(hostPart) else { return nil }
        return Entry(pattern: pattern, port: port)
    }

    static func pattern(_ host: ArraySlice<UInt8>) -> Pattern? {
        var address = host
        var prefixLength: Int?
        if let slash = host.firstIndex(of: UInt8(ascii: "/")) {
            let digits = host[(slash + 1)...]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(URISyntax.isDigit) else { return nil }
            prefixLength = Int(String(decoding: digits, as: UTF8.self))
            address = host[..<slash]
        }
        if let v4 = IPAddress.parseIPv4(address) {
            let bits = prefixLength ?? 32
            return bits <= 32 ? .network(v4, prefixLength: bits) : nil
        }
        if let v6 = IPAddress.parseIPv6(address) {
            let bits = prefixLength ?? 128
            return bits <= 128 ? .network(v6, prefixLength: bits) : nil
        }
        guard prefixLength == nil else { return nil }
        var name = address
        if name.starts(with: "*.".utf8) { name = name.dropFirst(2) } else if name.first == UInt8(ascii: ".") { name = name.dropFirst() }
        if name.last == UInt8(ascii: ".") { name = name.dropLast() }
        guard !name.isEmpty, !name.contains(UInt8(ascii: "*")) else { return nil }
        return .domain(String(decoding: name, as: UTF8.self))
    }

    static func parsePort(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(URISyntax.isDigit),
            let port = Int(String(decoding: digits, as: UTF8.self)), (1...65535).contains(port)
        else { return nil }
        return port
    }
}
