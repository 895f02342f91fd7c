import CCourierLinux

/// What a registration wants to hear about.
public struct Interest: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = Interest(rawValue: 1 << 0)
    public static let write = Interest(rawValue: 1 << 1)

    /// The epoll mask: level-triggered; EPOLLRDHUP comes with read interest (a peer's FIN is
    /// then reported even before the data in front of it is read). Without read interest it is
    /// left out: level-triggered, it would wake the loop forever while the caller is paused.
    /// (EPOLLHUP and EPOLLERR are always reported, whatever the mask.)
    var epollMask: UInt32 {
        var mask: UInt32 = 0
        if contains(.read) { mask |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if contains(.write) { mask |= EPOLLOUT.rawValue }
        return mask
    }
}

/// What the selector reported for one registration.
public struct SelectorEvents: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let readable = SelectorEvents(rawValue: 1 << 0)
    public static let writable = SelectorEvents(rawValue: 1 << 1)
    /// The peer shut down its sending side (EPOLLRDHUP): reads will drain, then return 0.
    public static let readHangup = SelectorEvents(rawValue: 1 << 2)
    /// Both directions are gone (EPOLLHUP).
    public static let hangup = SelectorEvents(rawValue: 1 << 3)
    /// An error is pending on the socket (EPOLLERR); read it with `SO_ERROR` or the next call.
    public static let error = SelectorEvents(rawValue: 1 << 4)

    init(epoll mask: UInt32) {
        var events: SelectorEvents = []
        if mask & EPOLLIN.rawValue != 0 { events.insert(.readable) }
        if mask & EPOLLOUT.rawValue != 0 { events.insert(.writable) }
        if mask & EPOLLRDHUP.rawValue != 0 { events.insert(.readHangup) }
        if mask & EPOLLHUP.rawValue != 0 { events.insert(.hangup) }
        if mask & EPOLLERR.rawValue != 0 { events.insert(.error) }
        self = events
    }

    public var description: String {
        let names: [(SelectorEvents, String)] = [(.readable, "r"), (.writable, "w"), (.readHangup, "rdhup"), (.hangup, "hup"), (.error, "err")]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: "|")
    }
}

/// Identifies one registration. The slot is reused after deregistration, the generation is
/// not, so an event queued for an old registration of a reused fd is recognised and dropped.
public struct RegistrationID: Hashable, Sendable {
    let slot: UInt32
    let generation: UInt32

    var token: UInt64 { UInt64(generation) << 32 | UInt64(slot) }

    init(slot: UInt32, generation: UInt32) {
        self.slot = slot
        self.generation = generation
    }

    init(token: UInt64) {
        self.slot = UInt32(truncatingIfNeeded: token)
        self.generation = UInt32(truncatingIfNeeded: token >> 32)
    }
}
