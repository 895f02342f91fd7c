import CourierCore
import CourierHTTP1

/// The memory of one owned response head: its box and the buffer its fields' bytes are copied
/// into (``HTTPClientResponseHead/reused(_:reusing:box:)`` fills both again once nothing else
/// holds them).
struct ResponseHeadSlot {
    var buffer = ByteBuffer()
    var box: HTTPClientResponseHead.Storage?

    /// A slot that grew past a page is not kept, as an idle connection keeps no more than a page.
    var isWorthKeeping: Bool { buffer.capacity <= 4096 }
}

/// A request head's bytes as sent, and what they were made from.
struct SentRequestHead {
    /// The caller's identity of the request (``HTTP1ConnectionStateMachine/startRequest(head:host:body:expectContinue:bodyReplayable:source:sourceIsKeepable:)``),
    /// held so that it cannot pass to another object while these bytes are kept.
    let source: any AnyObject & Sendable
    let framing: RequestBodyFraming
    let forbidsReuse: Bool
    let bytes: ByteBuffer
}

/// Head memory the connections of one pool key on one event loop share: the slots of responses
/// that ended, and the bytes of a request head sent again and again.
///
/// Each connection kept its own, so with many connections every request read, and every
/// response head was copied into, memory last touched one turn of the whole connection set
/// ago: out of the cache at 256 connections. `cachegrind` counted 39 last-level misses per
/// request for `courier bench -c 256` with each connection's own response slot and 26 with the
/// loop's. The loop's slots are handed out last in, first out: the next head, on any
/// connection, is copied into the slot the last response let go of, which is still in the cache.
///
/// A few slots cover heads whose responses overlap on one loop; beyond that, a connection keeps
/// the slot of its own last response (``HTTP1ConnectionStateMachine``), so overlapping responses
/// allocate nothing either.
///
/// `@unchecked Sendable`: it is touched only on its loop's thread, by the state machines of that
/// loop's connections (which run only there); each pool entry makes one per loop.
final class LoopHeadMemory: @unchecked Sendable {
    static let capacity = 4
    @exclusivity(unchecked) private var spares: [ResponseHeadSlot] = []
    /// A request head without a body some connection of the loop sent twice in a row from the
    /// same source: a load generator or a poller sends it on every connection. Never one with a
    /// body: the memory lasts as long as the pool, and the source (the request's box) would
    /// keep the body alive that long.
    @exclusivity(unchecked) var repeatedRequest: SentRequestHead?

    init() {
        spares.reserveCapacity(Self.capacity)
    }

    /// The bytes of ``repeatedRequest`` when it was made from `source` with `framing`.
    func repeatedBytes(of source: any AnyObject & Sendable, framing: RequestBodyFraming) -> (bytes: ByteBuffer, forbidsReuse: Bool)? {
        // Compared in place: binding the record would retain its members.
        guard repeatedRequest?.source === source, repeatedRequest?.framing == framing, let bytes = repeatedRequest?.bytes else { return nil }
        return (bytes, repeatedRequest?.forbidsReuse == true)
    }

    /// The slot the last ended response gave back, if any.
    func take() -> ResponseHeadSlot? {
        spares.popLast()
    }

    /// Keeps `slot` for the next head; returns it when there is no room.
    func give(_ slot: ResponseHeadSlot) -> ResponseHeadSlot? {
        guard spares.count < Self.capacity else { return slot }
        spares.append(slot)
        return nil
    }
}
