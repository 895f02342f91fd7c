#if canImport(Glibc)
import Glibc
#endif

/// Builds and parses the few rtnetlink messages the path monitor uses (netlink(7), rtnetlink(7)).
///
/// A pure value codec: no sockets. Everything the kernel sends is still input, so parsing
/// checks every length against what is there, honours `NLMSG_ALIGN`/`RTA_ALIGN` (4 bytes), and
/// stops at the first malformed header instead of trapping. Netlink uses the host's byte order.
struct RouteNetlink {
    // <linux/netlink.h> and <linux/rtnetlink.h>: kernel ABI numbers, stable since 2.2.
    static let headerSize = 16                     // struct nlmsghdr
    static let routeMessageSize = 12               // struct rtmsg
    static let linkMessageSize = 16                // struct ifinfomsg
    static let attributeHeaderSize = 4             // struct rtattr / nlattr

    static let typeNoop: UInt16 = 1                // NLMSG_NOOP
    static let typeError: UInt16 = 2               // NLMSG_ERROR
    static let typeDone: UInt16 = 3                // NLMSG_DONE
    static let typeOverrun: UInt16 = 4             // NLMSG_OVERRUN
    static let newLink: UInt16 = 16                // RTM_NEWLINK
    static let delLink: UInt16 = 17                // RTM_DELLINK
    static let getLink: UInt16 = 18                // RTM_GETLINK
    static let newRoute: UInt16 = 24               // RTM_NEWROUTE
    static let getRoute: UInt16 = 26               // RTM_GETROUTE

    static let flagRequest: UInt16 = 0x1           // NLM_F_REQUEST

    static let routeAttributeDestination: UInt16 = 1   // RTA_DST
    static let routeAttributeOutputInterface: UInt16 = 4 // RTA_OIF
    static let linkAttributeName: UInt16 = 3       // IFLA_IFNAME
    /// NLA_F_NESTED | NLA_F_NET_BYTEORDER: flag bits carried in an attribute's type.
    static let attributeTypeMask: UInt16 = 0x3FFF

    static let routeTypeUnicast: UInt8 = 1         // RTN_UNICAST
    static let routeTypeLocal: UInt8 = 2           // RTN_LOCAL
    static let interfaceFlagLoopback: UInt32 = 0x8 // IFF_LOOPBACK

    /// Rounds up to the 4-byte boundary every netlink header and attribute starts on.
    static func align(_ length: Int) -> Int { (length + 3) & ~3 }

    // MARK: Requests

    /// An RTM_GETROUTE request: "which route would a packet to `destination` take?" The kernel
    /// answers with one RTM_NEWROUTE (the lookup result) or an NLMSG_ERROR (e.g. ENETUNREACH).
    /// Nothing is sent to `destination`.
    static func routeRequest(to destination: RouteDestination, sequence: UInt32) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: routeMessageSize)
        body[0] = destination.family                        // rtm_family
        body[1] = UInt8(destination.bytes.count * 8)        // rtm_dst_len: a host route
        body.append(contentsOf: attribute(type: routeAttributeDestination, payload: destination.bytes))
        return message(type: getRoute, flags: flagRequest, sequence: sequence, body: body)
    }

    /// An RTM_GETLINK request for one interface index: answered by one RTM_NEWLINK (name,
    /// flags) or an NLMSG_ERROR (ENODEV when the interface is gone).
    static func linkRequest(index: Int32, sequence: UInt32) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: linkMessageSize)
        // ifi_family AF_UNSPEC (0), ifi_index at offset 4.
        store(UInt32(bitPattern: index), into: &body, at: 4)
        return message(type: getLink, flags: flagRequest, sequence: sequence, body: body)
    }

    static func message(type: UInt16, flags: UInt16, sequence: UInt32, body: [UInt8]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: headerSize)
        store(UInt32(headerSize + body.count), into: &bytes, at: 0)
        store(type, into: &bytes, at: 4)
        store(flags, into: &bytes, at: 6)
        store(sequence, into: &bytes, at: 8)
        // nlmsg_pid 0: the kernel fills in the sender's port id.
        bytes.append(contentsOf: body)
        bytes.append(contentsOf: [UInt8](repeating: 0, count: align(bytes.count) - bytes.count))
        return bytes
    }

    static func attribute(type: UInt16, payload: [UInt8]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: attributeHeaderSize)
        store(UInt16(attributeHeaderSize + payload.count), into: &bytes, at: 0)
        store(type, into: &bytes, at: 2)
        bytes.append(contentsOf: payload)
        bytes.append(contentsOf: [UInt8](repeating: 0, count: align(bytes.count) - bytes.count))
        return bytes
    }

    // MARK: Replies

    /// One netlink message as the monitor understands it.
    enum Message: Hashable, Sendable {
        /// RTM_NEWROUTE: the kernel's route for a destination.
        case route(sequence: UInt32, RouteReply)
        /// RTM_NEWLINK / RTM_DELLINK: an interface.
        case link(sequence: UInt32, LinkReply)
        /// NLMSG_ERROR: `code` is a positive errno, or 0 for an acknowledgement.
        case error(sequence: UInt32, code: Int32)
        /// NLMSG_DONE, NLMSG_NOOP, NLMSG_OVERRUN or a type the monitor does not read
        /// (address and route notifications): only "something changed".
        case other(sequence: UInt32, type: UInt16)
    }

    struct RouteReply: Hashable, Sendable {
        var family: UInt8
        var type: UInt8
        /// RTA_OIF, when present.
        var outputInterface: Int32?

        /// Whether this route delivers packets: unicast or local (not blackhole, unreachable,
        /// prohibit, ...), with an output interface.
        var deliversPackets: Bool {
            (type == RouteNetlink.routeTypeUnicast || type == RouteNetlink.routeTypeLocal) && outputInterface != nil
        }
    }

    struct LinkReply: Hashable, Sendable {
        var index: Int32
        var flags: UInt32
        /// IFLA_IFNAME, when present and valid UTF-8 up to its NUL.
        var name: String?

        var isLoopback: Bool { flags & RouteNetlink.interfaceFlagLoopback != 0 }
    }

    /// The messages of one datagram, and whether parsing stopped at malformed bytes.
    struct Parsed: Hashable, Sendable {
        var messages: [Message] = []
        var malformed = false
    }

    /// Splits one received datagram into messages. A header whose length is shorter than a
    /// header or longer than what is left ends the walk (`malformed`); a known message whose
    /// body is too short is reported malformed and skipped; unknown attributes are ignored.
    static func parse(_ bytes: [UInt8]) -> Parsed {
        var parsed = Parsed()
        var offset = 0
        while bytes.count - offset >= headerSize {
            guard let length32 = load(UInt32.self, bytes, offset),
                  let type = load(UInt16.self, bytes, offset + 4),
                  let sequence = load(UInt32.self, bytes, offset + 8) else { parsed.malformed = true; break }
            let length = Int(length32)
            guard length >= headerSize, length <= bytes.count - offset else {
                parsed.malformed = true
                break
            }
            let body = bytes[(offset + headerSize)..<(offset + length)]
            switch type {
            case typeError:
                if let code = load(Int32.self, bytes, body.startIndex), body.count >= 4 {
                    // The kernel sends a negative errno; Int32.min cannot be negated: clamp.
                    parsed.messages.append(.error(sequence: sequence, code: code == .min ? .max : -code))
                } else {
                    parsed.malformed = true
                }
            case newRoute:
                if let reply = parseRoute(bytes, body) {
                    parsed.messages.append(.route(sequence: sequence, reply))
                } else {
                    parsed.malformed = true
                }
            case newLink, delLink:
                if let reply = parseLink(bytes, body) {
                    parsed.messages.append(.link(sequence: sequence, reply))
                } else {
                    parsed.malformed = true
                }
            default:
                parsed.messages.append(.other(sequence: sequence, type: type))
            }
            // The next header starts aligned; a final message may lack its padding.
            offset += min(align(length), bytes.count - offset)
        }
        if offset < bytes.count && !parsed.malformed { parsed.malformed = true }
        return parsed
    }

    private static func parseRoute(_ bytes: [UInt8], _ body: ArraySlice<UInt8>) -> RouteReply? {
        guard body.count >= routeMessageSize else { return nil }
        var reply = RouteReply(family: bytes[body.startIndex], type: bytes[body.startIndex + 7], outputInterface: nil)
        let ok = walkAttributes(bytes, (body.startIndex + routeMessageSize)..<body.endIndex) { type, payload in
            if type == routeAttributeOutputInterface, payload.count == 4, let index = load(Int32.self, bytes, payload.startIndex) {
                reply.outputInterface = index
            }
        }
        return ok ? reply : nil
    }

    private static func parseLink(_ bytes: [UInt8], _ body: ArraySlice<UInt8>) -> LinkReply? {
        guard body.count >= linkMessageSize,
              let index = load(Int32.self, bytes, body.startIndex + 4),
              let flags = load(UInt32.self, bytes, body.startIndex + 8) else { return nil }
        var reply = LinkReply(index: index, flags: flags, name: nil)
        let ok = walkAttributes(bytes, (body.startIndex + linkMessageSize)..<body.endIndex) { type, payload in
            if type == linkAttributeName {
                let name = bytes[payload].prefix { $0 != 0 }
                reply.name = name.isEmpty ? nil : String(validating: name, as: UTF8.self)
            }
        }
        return ok ? reply : nil
    }

    /// Calls `body` with each attribute's type (flag bits masked off) and payload range.
    /// Returns false when an attribute's length is impossible.
    private static func walkAttributes(_ bytes: [UInt8], _ range: Range<Int>, _ body: (UInt16, Range<Int>) -> Void) -> Bool {
        var offset = range.lowerBound
        while range.upperBound - offset >= attributeHeaderSize {
            guard let length16 = load(UInt16.self, bytes, offset), let type = load(UInt16.self, bytes, offset + 2) else { return false }
            let length = Int(length16)
            guard length >= attributeHeaderSize, length <= range.upperBound - offset else { return false }
            body(type & attributeTypeMask, (offset + attributeHeaderSize)..<(offset + length))
            offset += min(align(length), range.upperBound - offset)
        }
        // Fewer than 4 bytes left over: padding at most.
        return true
    }

    // MARK: Host-order integers

    /// Reads a host-order integer at `offset`, or nil when the bytes are not all there.
    static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], _ offset: Int) -> T? {
        guard offset >= 0, offset <= bytes.count - MemoryLayout<T>.size else { return nil }
        // Safe: the bounds were just checked; loadUnaligned copes with any alignment.
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    static func store<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at offset: Int) {
        withUnsafeBytes(of: value) { raw in
            for (i, byte) in raw.enumerated() { bytes[offset + i] = byte }
        }
    }
}

/// An IPv4 or IPv6 address as a route lookup takes it (`RTA_DST`).
public struct RouteDestination: Hashable, Sendable, CustomStringConvertible {
    /// `AF_INET` or `AF_INET6`.
    let family: UInt8
    /// 4 or 16 bytes, network order.
    let bytes: [UInt8]

    /// An IP literal (`"1.1.1.1"`, `"2606:4700:4700::1111"`, no brackets); nil otherwise.
    public init?(_ literal: String) {
        guard let address = try? SocketAddress(ipAddress: literal, port: 0) else { return nil }
        self.init(address)
    }

    /// The address part of an IPv4/IPv6 socket address (the port is ignored); nil for Unix paths.
    public init?(_ address: SocketAddress) {
        switch address.family {
        case .ipv4:
            family = UInt8(AF_INET)
            // sockaddr_in: family (2), port (2), address (4).
            bytes = address.withSockAddr { raw, _ in
                Array(UnsafeRawBufferPointer(start: raw, count: MemoryLayout<sockaddr_in>.size)[4..<8])
            }
        case .ipv6:
            family = UInt8(AF_INET6)
            // sockaddr_in6: family (2), port (2), flowinfo (4), address (16).
            bytes = address.withSockAddr { raw, _ in
                Array(UnsafeRawBufferPointer(start: raw, count: MemoryLayout<sockaddr_in6>.size)[8..<24])
            }
        case .unix:
            return nil
        }
    }

    init(family: UInt8, bytes: [UInt8]) {
        self.family = family
        self.bytes = bytes
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = bytes.withUnsafeBytes { inet_ntop(Int32(family), $0.baseAddress, &text, socklen_t(text.count)) != nil }
        return ok ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }
}
