import CourierCore

/// The memory of one owned response head: its box and the buffer its fields' bytes are copied
/// into (``HTTPClientResponseHead/reused(_:reusing:box:)`` fills both again once nothing else
/// holds them).
struct ResponseHeadSlot {
    var buffer = ByteBuffer()
    var box: HTTPClientResponseHead.Storage?

    /// A slot that grew past a page is not kept, as an idle connection keeps no more than a page.
    var isWorthKeeping: Bool { buffer.capacity <= 4096 }
}

/// The slots of responses that ended, shared by the connections of one event loop.
///
/// Each connection kept its own slot, so with many connections every head was copied into
/// memory last touched one turn of the whole connection set ago: out of the cache at 256
/// connections (about five of the 39 last-level misses per request `cachegrind` counts for
/// `courier bench -c 256`, most of them the copy's writes). The loop's slots are handed out last
/// in, first out: the next head, on any connection, is copied into the slot the last response
/// let go of, which is still in the cache.
///
/// A few slots cover heads whose responses overlap on one loop; beyond that, a connection keeps
/// the slot of its own last response (``HTTP1ConnectionStateMachine``), so overlapping responses
/// allocate nothing either.
///
/// `@unchecked Sendable`: it is touched only on its loop's thread, by the state machines of that
/// loop's connections (which run only there); the pool makes one per loop.
final class ResponseHeadRecycler: @unchecked Sendable {
    static let capacity = 4
    @exclusivity(unchecked) private var spares: [ResponseHeadSlot] = []

    init() {
        spares.reserveCapacity(Self.capacity)
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
