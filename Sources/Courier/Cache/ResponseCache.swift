import CourierClient
import CourierCore
import FoundationEssentials
import Synchronization

/// Where a session keeps responses for reuse (`NSURLCache`). Keys are request URLs.
public protocol ResponseCache: Sendable {
    func cachedResponse(for request: Request) -> CachedResponse?
    func storeCachedResponse(_ cached: CachedResponse, for request: Request)
    func removeCachedResponse(for request: Request)
    func removeAllCachedResponses()
}

/// An in-memory ``ResponseCache`` bounded by total body bytes, evicting the least recently used.
public final class MemoryResponseCache: ResponseCache {
    private struct Entry {
        var cached: CachedResponse
        var lastUse: UInt64
    }

    private struct Store {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    /// The most body bytes kept at once; a single larger body is not stored.
    public let capacity: Int
    private let store = Mutex(Store())

    public init(capacity: Int = 16 * 1024 * 1024) {
        self.capacity = capacity
    }

    public var currentBytes: Int { store.withLock { $0.bytes } }

    public func cachedResponse(for request: Request) -> CachedResponse? {
        store.withLock { store in
            let key = request.location.string
            guard var entry = store.entries[key] else { return nil }
            store.clock += 1
            entry.lastUse = store.clock
            store.entries[key] = entry
            return entry.cached
        }
    }

    public func storeCachedResponse(_ cached: CachedResponse, for request: Request) {
        guard cached.data.count <= capacity else { return }
        store.withLock { store in
            let key = request.location.string
            if let old = store.entries.removeValue(forKey: key) { store.bytes -= old.cached.data.count }
            while store.bytes + cached.data.count > capacity,
                  let oldest = store.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                store.bytes -= oldest.value.cached.data.count
                store.entries.removeValue(forKey: oldest.key)
            }
            store.clock += 1
            store.entries[key] = Entry(cached: cached, lastUse: store.clock)
            store.bytes += cached.data.count
        }
    }

    public func removeCachedResponse(for request: Request) {
        store.withLock { store in
            if let old = store.entries.removeValue(forKey: request.location.string) { store.bytes -= old.cached.data.count }
        }
    }

    public func removeAllCachedResponses() {
        store.withLock { $0 = Store() }
    }
}
