import CourierTestSupport
import Testing
@testable import CourierClient

@Suite("ConnectionTable")
struct ConnectionTableTests {
    /// The table against a `Dictionary` model over many random inserts, replacements and
    /// removals, with ids from a small range (so clusters form and wrap around the end) and
    /// from a counting-up sequence (the pool's ids).
    @Test(arguments: [8, 64, 100_000])
    func agreesWithADictionary(idRange: Int) {
        var rng = SplitMix64(seed: UInt64(idRange))
        var table = ConnectionTable<Int>()
        var model: [Int: Int] = [:]
        var nextID = 0
        for step in 0..<20_000 {
            let id: Int
            if idRange == 100_000 {
                // Mostly new ids counting up, sometimes one of the live ones.
                if model.isEmpty || rng.next() % 3 != 0 {
                    id = nextID
                    nextID += 1 + Int(rng.next() % 3)
                } else {
                    id = model.keys.sorted()[Int(rng.next() % UInt64(model.count))]
                }
            } else {
                id = Int(rng.next() % UInt64(idRange)) * 8 + Int(rng.next() % 2)
            }
            switch rng.next() % 4 {
            case 0, 1:
                table[id] = step
                model[id] = step
            case 2:
                #expect(table.removeValue(forID: id) == model.removeValue(forKey: id))
            default:
                if let slot = table.index(of: id) {
                    table[slot: slot] += 1
                    model[id]! += 1
                } else {
                    #expect(model[id] == nil)
                }
            }
            if idRange == 100_000, model.count > 40 {
                // Keep the live set small, as a pool does.
                let oldest = model.keys.min()!
                #expect(table.removeValue(forID: oldest) == model.removeValue(forKey: oldest))
            }
            #expect(table.count == model.count)
            #expect(table.isEmpty == model.isEmpty)
        }
        for (id, value) in model { #expect(table[id] == value) }
        #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.id, $0.value) }) == model)
        // Ids that were never stored are not found.
        #expect(table[1 << 40] == nil)
    }

    /// A removal inside a cluster that wraps from the last slot to the first keeps every later
    /// member of the cluster reachable.
    @Test func removingFromAWrappedClusterKeepsTheRestReachable() {
        var table = ConnectionTable<String>()
        // Capacity 8: ids 6, 14 and 22 all want slot 6, so they take slots 6, 7 and 0.
        table[6] = "a"
        table[14] = "b"
        table[22] = "c"
        #expect(table.index(of: 6) == 6)
        #expect(table.index(of: 14) == 7)
        #expect(table.index(of: 22) == 0)
        #expect(table.removeValue(forID: 6) == "a")
        #expect(table[14] == "b")
        #expect(table[22] == "c")
        #expect(table.index(of: 14) == 6, "moved back into the gap")
        #expect(table.index(of: 22) == 7)
        #expect(table.removeValue(forID: 6) == nil)
        #expect(table.count == 2)
    }

    /// Growing keeps every entry, and the table stays at most half full.
    @Test func growingKeepsEveryEntry() {
        var table = ConnectionTable<Int>()
        for id in 0..<1000 { table[id * 3] = id }
        #expect(table.count == 1000)
        for id in 0..<1000 { #expect(table[id * 3] == id) }
        #expect(table[1] == nil)
        for id in stride(from: 0, to: 1000, by: 2) { table[id * 3] = nil }
        #expect(table.count == 500)
        for id in 0..<1000 { #expect(table[id * 3] == (id % 2 == 0 ? nil : id)) }
    }
}
