import CourierClient

/// Where a stored response is: its URL (the primary key, §4) and its secondary key, the
/// request's values of the fields its Vary names (§4.1; "" when it names none).
struct CacheKey: Hashable, Sendable {
    var url: HTTPURL
    var variant: String
}

/// The in-memory index both stores keep: each URL's variants, each entry's value and its place
/// in the least-recently-used order. A lookup is a hash of the URL, a walk over that URL's
/// variants (one, unless the server says Vary), a hash of the key and a list touch: no scan of
/// the other entries, and no allocation when nothing varies.
struct CacheIndex<Value> {
    struct Variant {
        /// The Vary names of the stored response (sorted, lowercased).
        var names: [String]
        var key: String
    }

    private struct Slot {
        var value: Value
        var node: Int
    }

    /// At most this many variants per URL; storing one more drops the least recently stored.
    static var maximumVariants: Int { 16 }

    private var variants: [HTTPURL: [Variant]] = [:]
    private var slots: [CacheKey: Slot] = [:]
    private var order = LRUList<CacheKey>()

    var count: Int { slots.count }

    /// The entry for `request` (its URL, and the variant whose Vary fields the request matches),
    /// now the most recently used.
    mutating func lookup(_ request: Request) -> (key: CacheKey, value: Value)? {
        guard let url = request.httpURL, let candidates = variants[url] else { return nil }
        for variant in candidates {
            let requestKey = variant.names.isEmpty ? "" : CacheRules.variantKey(names: variant.names, request: request.headers)
            guard requestKey == variant.key else { continue }
            let key = CacheKey(url: url, variant: variant.key)
            guard let slot = slots[key] else { continue }
            order.touch(slot.node)
            return (key, slot.value)
        }
        return nil
    }

    /// The key a response with Vary names `names` gets when stored for `request`.
    static func key(for request: Request, names: [String]) -> CacheKey? {
        guard let url = request.httpURL else { return nil }
        return CacheKey(url: url, variant: CacheRules.variantKey(names: names, request: request.headers))
    }

    /// Stores `value` at `key` as the most recently used; returns the values it displaced (the
    /// one at the same key, and a variant over the bound).
    mutating func insert(_ value: Value, at key: CacheKey, names: [String]) -> [Value] {
        var displaced: [Value] = []
        if let old = remove(key) { displaced.append(old) }
        var list = variants[key.url] ?? []
        if list.count >= Self.maximumVariants, let first = list.first,
           let old = remove(CacheKey(url: key.url, variant: first.key)) {
            displaced.append(old)
            list = variants[key.url] ?? []
        }
        list.append(Variant(names: names, key: key.variant))
        variants[key.url] = list
        slots[key] = Slot(value: value, node: order.insert(key))
        return displaced
    }

    @discardableResult
    mutating func remove(_ key: CacheKey) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        order.remove(slot.node)
        if var list = variants[key.url] {
            list.removeAll { $0.key == key.variant }
            variants[key.url] = list.isEmpty ? nil : list
        }
        return slot.value
    }

    /// Removes every variant stored for `url`.
    mutating func remove(url: HTTPURL) -> [Value] {
        guard let list = variants[url] else { return [] }
        return list.compactMap { remove(CacheKey(url: url, variant: $0.key)) }
    }

    /// Removes and returns the least recently used entry.
    mutating func removeLeastRecent() -> (key: CacheKey, value: Value)? {
        guard let key = order.leastRecent, let value = remove(key) else { return nil }
        return (key, value)
    }

    func value(at key: CacheKey) -> Value? { slots[key]?.value }

    var keysFromOldest: [CacheKey] { order.keysFromOldest }

    mutating func removeAll() {
        self = CacheIndex()
    }
}
