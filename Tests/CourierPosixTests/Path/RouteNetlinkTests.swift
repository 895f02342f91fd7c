#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import CourierPosix

/// The rtnetlink codec over fixed bytes (little-endian fixtures: netlink is host order, and the
/// suite runs on x86-64/arm64 Linux).
@Suite struct RouteNetlinkTests {
    // MARK: Requests

    @Test func anIPv4RouteRequestIsAGetRouteWithAHostDestination() {
        let bytes = RouteNetlink.routeRequest(to: RouteDestination("1.1.1.1")!, sequence: 7)
        #expect(bytes == [
            36, 0, 0, 0, 26, 0, 1, 0, 7, 0, 0, 0, 0, 0, 0, 0,       // nlmsghdr: len, RTM_GETROUTE, NLM_F_REQUEST, seq, pid
            2, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                     // rtmsg: AF_INET, /32
            8, 0, 1, 0, 1, 1, 1, 1,                                  // RTA_DST
        ])
    }

    @Test func anIPv6RouteRequestCarriesSixteenAddressBytes() {
        let bytes = RouteNetlink.routeRequest(to: RouteDestination("2606:4700:4700::1111")!, sequence: 0x0102_0304)
        #expect(bytes == [
            48, 0, 0, 0, 26, 0, 1, 0, 4, 3, 2, 1, 0, 0, 0, 0,
            10, 128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                   // AF_INET6, /128
            20, 0, 1, 0, 0x26, 0x06, 0x47, 0x00, 0x47, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x11,
        ])
    }

    @Test func aLinkRequestNamesTheInterfaceIndex() {
        let bytes = RouteNetlink.linkRequest(index: 3, sequence: 9)
        #expect(bytes == [
            32, 0, 0, 0, 18, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0,       // RTM_GETLINK
            0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,         // ifinfomsg: index 3
        ])
    }

    @Test func attributesArePaddedToFourBytes() {
        #expect(RouteNetlink.attribute(type: 3, payload: [0x6C, 0x6F, 0]) == [7, 0, 3, 0, 0x6C, 0x6F, 0, 0])
        #expect(RouteNetlink.align(0) == 0 && RouteNetlink.align(1) == 4 && RouteNetlink.align(4) == 4 && RouteNetlink.align(5) == 8)
    }

    @Test func destinationsComeFromLiteralsOnly() {
        #expect(RouteDestination("localhost") == nil)
        #expect(RouteDestination("") == nil)
        #expect(RouteDestination("127.0.0.1")?.description == "127.0.0.1")
        #expect(RouteDestination("::1")?.description == "::1")
        #expect(RouteDestination(try! SocketAddress(ipAddress: "10.0.0.2", port: 443)) == RouteDestination("10.0.0.2"))
        #expect(RouteDestination(try! SocketAddress(unixPath: "/x")) == nil)
    }

    // MARK: Replies

    /// What the kernel answered for RTM_GETROUTE 127.0.0.1 (captured once, verbatim).
    static let localRouteReply: [UInt8] = [
        104, 0, 0, 0, 24, 0, 0, 0, 7, 0, 0, 0, 59, 48, 0, 0,
        2, 32, 0, 0, 254, 0, 0, 2, 0, 2, 0, 128,
        8, 0, 15, 0, 254, 0, 0, 0,                                   // RTA_TABLE
        8, 0, 1, 0, 127, 0, 0, 1,                                    // RTA_DST
        8, 0, 4, 0, 1, 0, 0, 0,                                      // RTA_OIF 1
        8, 0, 7, 0, 127, 0, 0, 1,                                    // RTA_PREFSRC
        8, 0, 25, 0, 0, 0, 0, 0,                                     // RTA_UID
        36, 0, 12, 0, 2, 0, 0, 0, 159, 252, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]

    /// RTM_NEWLINK for lo, cut down to a few attributes.
    static let loopbackLinkReply: [UInt8] = [
        56, 0, 0, 0, 16, 0, 0, 0, 9, 0, 0, 0, 59, 48, 0, 0,
        0, 0, 4, 3, 1, 0, 0, 0, 73, 0, 1, 0, 0, 0, 0, 0,             // ARPHRD_LOOPBACK, index 1, UP|LOOPBACK|RUNNING
        7, 0, 3, 0, 108, 111, 0, 0,                                  // IFLA_IFNAME "lo"
        8, 0, 13, 0, 232, 3, 0, 0,                                   // IFLA_TXQLEN
        5, 0, 16, 0, 0, 0, 0, 0,                                     // IFLA_OPERSTATE
    ]

    /// NLMSG_ERROR -ENETUNREACH for sequence 8, echoing the request's header.
    static let unreachableReply: [UInt8] = [
        36, 0, 0, 0, 2, 0, 0, 1, 8, 0, 0, 0, 59, 48, 0, 0,
        0x9B, 0xFF, 0xFF, 0xFF,                                      // -101
        36, 0, 0, 0, 26, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0,
    ]

    @Test func aRouteReplyGivesTypeAndOutputInterface() {
        let parsed = RouteNetlink.parse(Self.localRouteReply)
        #expect(!parsed.malformed)
        #expect(parsed.messages == [.route(sequence: 7, .init(family: 2, type: 2, outputInterface: 1))])
        if case .route(_, let reply) = parsed.messages.first { #expect(reply.deliversPackets) }
    }

    @Test func aLinkReplyGivesNameAndLoopbackFlag() {
        let parsed = RouteNetlink.parse(Self.loopbackLinkReply)
        #expect(!parsed.malformed)
        #expect(parsed.messages == [.link(sequence: 9, .init(index: 1, flags: 0x10049, name: "lo"))])
        if case .link(_, let reply) = parsed.messages.first { #expect(reply.isLoopback) }
    }

    @Test func anErrorReplyGivesAPositiveErrno() {
        let parsed = RouteNetlink.parse(Self.unreachableReply)
        #expect(parsed.messages == [.error(sequence: 8, code: ENETUNREACH)])
        #expect(!parsed.malformed)
    }

    @Test func severalMessagesInOneDatagramAreAllRead() {
        let parsed = RouteNetlink.parse(Self.unreachableReply + Self.loopbackLinkReply + [20, 0, 0, 0, 3, 0, 2, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(parsed.messages.count == 3)
        #expect(parsed.messages.last == .other(sequence: 5, type: RouteNetlink.typeDone))
        #expect(!parsed.malformed)
    }

    @Test func routesThatDeliverNothingDoNotCount() {
        // RTN_UNREACHABLE (7) with an output interface, and a unicast route without one.
        var blackhole = Self.localRouteReply
        blackhole[23] = 7
        guard case .route(_, let unreachable)? = RouteNetlink.parse(blackhole).messages.first else {
            Issue.record("no route parsed"); return
        }
        #expect(!unreachable.deliversPackets)
        let bare = RouteNetlink.message(type: RouteNetlink.newRoute, flags: 0, sequence: 1, body: [2, 32, 0, 0, 254, 0, 0, 1, 0, 0, 0, 0])
        guard case .route(_, let noInterface)? = RouteNetlink.parse(bare).messages.first else {
            Issue.record("no route parsed"); return
        }
        #expect(noInterface.outputInterface == nil && !noInterface.deliversPackets)
    }

    // MARK: Hostile input

    @Test func everyTruncationOfAReplyParsesWithoutTrapping() {
        for fixture in [Self.localRouteReply, Self.loopbackLinkReply, Self.unreachableReply] {
            for length in 0..<fixture.count {
                let parsed = RouteNetlink.parse(Array(fixture.prefix(length)))
                // A cut header or body is never taken for a whole message.
                #expect(parsed.messages.isEmpty, "prefix \(length)")
                #expect(parsed.malformed == (length > 0), "prefix \(length)")
            }
        }
    }

    @Test func impossibleLengthsStopTheWalk() {
        // nlmsg_len shorter than a header, longer than the datagram, and zero.
        for length: UInt8 in [0, 4, 15, 200] {
            var bytes = Self.unreachableReply
            bytes[0] = length
            let parsed = RouteNetlink.parse(bytes)
            #expect(parsed.messages.isEmpty && parsed.malformed, "nlmsg_len \(length)")
        }
        // An attribute whose length runs past its message, and one shorter than its header.
        for attributeLength: UInt8 in [200, 2] {
            var bytes = Self.localRouteReply
            bytes[28] = attributeLength
            let parsed = RouteNetlink.parse(bytes)
            #expect(parsed.messages.isEmpty && parsed.malformed, "rta_len \(attributeLength)")
        }
        // A route body shorter than struct rtmsg.
        let short = RouteNetlink.message(type: RouteNetlink.newRoute, flags: 0, sequence: 1, body: [2, 32, 0, 0])
        #expect(RouteNetlink.parse(short).malformed)
    }

    @Test func wrongSizedAttributesAndOddNamesAreIgnored() {
        // RTA_OIF with 2 bytes of payload; an IFLA_IFNAME that is not UTF-8.
        var route = Array(Self.localRouteReply)
        route[44] = 6
        let parsedRoute = RouteNetlink.parse(route)
        if case .route(_, let reply)? = parsedRoute.messages.first { #expect(reply.outputInterface == nil) }
        var link = Self.loopbackLinkReply
        link[36] = 0xFF
        if case .link(_, let reply)? = RouteNetlink.parse(link).messages.first { #expect(reply.name == nil) }
    }

    @Test func seededGarbageNeverTraps() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var parsedSomething = 0
        for round in 0..<2_000 {
            // Half pure noise, half a real reply with a few bytes flipped.
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(next() % 160)).map { _ in UInt8(truncatingIfNeeded: next()) }
            } else {
                bytes = [Self.localRouteReply, Self.loopbackLinkReply, Self.unreachableReply][Int(next() % 3)]
                for _ in 0..<3 { bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next()) }
            }
            parsedSomething += RouteNetlink.parse(bytes).messages.count
        }
        #expect(parsedSomething > 0)
    }
}
