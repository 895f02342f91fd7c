/// A least-recently-used order over keys in O(1) per operation: a doubly linked list whose nodes
/// live in one array (indices, not references: no allocation per touch), with freed slots reused.
/// The caller keeps each key's node index beside its value.
struct LRUList<Key> {
    private struct Node {
        var key: Key?
        var newer = -1
        var older = -1
    }

    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    /// The most and the least recently used node, -1 when empty.
    private var newest = -1
    private var oldest = -1
    private(set) var count = 0

    /// Adds `key` as the most recently used; returns its node.
    mutating func insert(_ key: Key) -> Int {
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            nodes[slot] = Node(key: key)
        } else {
            slot = nodes.count
            nodes.append(Node(key: key))
        }
        link(slot)
        count += 1
        return slot
    }

    /// Marks `node` as the most recently used.
    mutating func touch(_ node: Int) {
        guard node != newest else { return }
        unlink(node)
        link(node)
    }

    mutating func remove(_ node: Int) {
        unlink(node)
        nodes[node].key = nil
        freeSlots.append(node)
        count -= 1
    }

    /// The least recently used key.
    var leastRecent: Key? { oldest >= 0 ? nodes[oldest].key : nil }

    /// The keys from the least to the most recently used (tests and diagnostics).
    var keysFromOldest: [Key] {
        var keys: [Key] = []
        var node = oldest
        while node >= 0 {
            if let key = nodes[node].key { keys.append(key) }
            node = nodes[node].newer
        }
        return keys
    }

    mutating func removeAll() {
        self = LRUList()
    }

    private mutating func link(_ node: Int) {
        nodes[node].older = newest
        nodes[node].newer = -1
        if newest >= 0 { nodes[newest].newer = node }
        newest = node
        if oldest < 0 { oldest = node }
    }

    private mutating func unlink(_ node: Int) {
        let (newer, older) = (nodes[node].newer, nodes[node].older)
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[node].newer = -1
        nodes[node].older = -1
    }
}
