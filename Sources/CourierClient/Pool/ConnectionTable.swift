/// A table from connection ids to values, for the pool's per-request lookups.
///
/// A pool makes its connection ids itself, counting up from 0, so an id's low bits already
/// spread ids evenly: the table puts each id at `id & mask` (linear probing, at most half
/// full) and needs no hash. A `Dictionary<Int, …>` spent about 150 instructions a lookup on
/// SipHash and its probing, four lookups per request; here a lookup is a mask and a compare.
///
/// Removal shifts the entries that follow back into the gap (no tombstones), so a lookup ends
/// at the first empty slot. Ids must not be negative.
struct ConnectionTable<Value>: Sequence {
    private var slots: [(id: Int, value: Value)?]
    private(set) var count = 0

    init() {
        slots = Array(repeating: nil, count: 8)
    }

    var isEmpty: Bool { count == 0 }

    private var mask: Int { slots.count &- 1 }

    /// The slot holding `id`, or nil.
    func index(of id: Int) -> Int? {
        var i = id & mask
        while let entry = slots[i] {
            if entry.id == id { return i }
            i = (i &+ 1) & mask
        }
        return nil
    }

    subscript(id: Int) -> Value? {
        get { index(of: id).map { slots[$0]!.value } }
        set {
            if let newValue {
                insert(id, newValue)
            } else {
                _ = removeValue(forID: id)
            }
        }
    }

    /// The value in slot `index` (from ``index(of:)``), read and written in place.
    subscript(slot index: Int) -> Value {
        get { slots[index]!.value }
        set { slots[index]!.value = newValue }
    }

    private mutating func insert(_ id: Int, _ value: Value) {
        precondition(id >= 0, "connection ids are not negative")
        if let i = index(of: id) {
            slots[i]!.value = value
            return
        }
        if (count &+ 1) &* 2 > slots.count { grow() }
        var i = id & mask
        while slots[i] != nil { i = (i &+ 1) & mask }
        slots[i] = (id, value)
        count &+= 1
    }

    @discardableResult
    mutating func removeValue(forID id: Int) -> Value? {
        guard let i = index(of: id) else { return nil }
        return remove(at: i)
    }

    /// Empties slot `index` (from ``index(of:)``) and returns its value.
    @discardableResult
    mutating func remove(at index: Int) -> Value {
        let removed = slots[index]!.value
        slots[index] = nil
        count &-= 1
        // Move back every entry after the gap whose home slot is not between the gap and it
        // (cyclically), so each entry stays reachable from its home without passing an empty slot.
        var gap = index
        var j = index
        while true {
            j = (j &+ 1) & mask
            guard let entry = slots[j] else { break }
            let home = entry.id & mask
            let stays = gap <= j ? (gap < home && home <= j) : (gap < home || home <= j)
            if stays { continue }
            slots[gap] = entry
            slots[j] = nil
            gap = j
        }
        return removed
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count &* 2)
        count = 0
        for case let (id, value)? in old { insert(id, value) }
    }

    /// The entries, in slot order (not id order).
    func makeIterator() -> some IteratorProtocol<(id: Int, value: Value)> {
        slots.lazy.compactMap { $0 }.makeIterator()
    }
}

extension ConnectionTable: Sendable where Value: Sendable {}
