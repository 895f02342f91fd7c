import CourierClient

/// Where a stored response is: its URL (the primary key, §4) and its secondary key, the
/// request's values of the fields its Vary names (§4.1; "" when it names none).
struct CacheKey: Hashable, Sendable {
    var url: HTTPURL
    var variant: String
}

/// The in-memory index both stores keep: each URL's variants with their values and their place
/// in the least-recently-used order. A lookup is one hash of the URL, a walk over that URL's
/// variants (one, unless the server says Vary) and a list touch: no scan of the other entries,
/// and no allocation when nothing varies.
struct CacheIndex<Value> {
    private struct Variant {
        /// The Vary names of the stored response (sorted, lowercased).
        var names: [String]
        var key: String
        var value: Value
        var node: Int
    }

    /// At most this many variants per URL; storing one more drops the least recently stored.
    static var maximumVariants: Int { 16 }

    private var variants: [HTTPURL: [Variant]] = [:]
    private var order = LRUList<CacheKey>()

    var count: Int { order.count }

    /// The entry for `request` (its URL, and the variant whose Vary fields the request matches),
    /// now the most recently used.
    mutating func lookup(_ request: Request) -> (key: CacheKey, value: Value)? {
        guard let url = request.httpURL, let candidates = variants[url] else { return nil }
        // By index: copying a whole variant (its value's fields) per step would retain them all.
        for index in candidates.indices {
            let names = candidates[index].names
            let requestKey = names.isEmpty ? "" : CacheRules.variantKey(names: names, request: request.headers)
            guard requestKey == candidates[index].key else { continue }
            order.touch(candidates[index].node)
            return (CacheKey(url: url, variant: requestKey), candidates[index].value)
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
        if let list = variants[key.url], list.count >= Self.maximumVariants, let first = list.first,
           let old = remove(CacheKey(url: key.url, variant: first.key)) {
            displaced.append(old)
        }
        let node = order.insert(key)
        variants[key.url, default: []].append(Variant(names: names, key: key.variant, value: value, node: node))
        return displaced
    }

    @discardableResult
    mutating func remove(_ key: CacheKey) -> Value? {
        guard var list = variants[key.url], let index = list.firstIndex(where: { $0.key == key.variant }) else { return nil }
        let removed = list.remove(at: index)
        order.remove(removed.node)
        variants[key.url] = list.isEmpty ? nil : list
        return removed.value
    }

    /// Removes every variant stored for `url`.
    mutating func remove(url: HTTPURL) -> [Value] {
        guard let list = variants.removeValue(forKey: url) else { return [] }
        for variant in list { order.remove(variant.node) }
        return list.map(\.value)
    }

    /// Removes and returns the least recently used entry.
    mutating func removeLeastRecent() -> (key: CacheKey, value: Value)? {
        guard let key = order.leastRecent, let value = remove(key) else { return nil }
        return (key, value)
    }

    func value(at key: CacheKey) -> Value? { variants[key.url]?.first { $0.key == key.variant }?.value }

    var keysFromOldest: [CacheKey] { order.keysFromOldest }

    mutating func removeAll() {
        self = CacheIndex()
    }
}
