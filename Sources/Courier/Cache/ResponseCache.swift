import CourierClient
import CourierCore
import FoundationEssentials
import Synchronization

/// Where a session keeps responses for reuse (`NSURLCache`). The primary key is the request's
/// URL; a response with `Vary` is stored under the request's values of the fields it names too,
/// and found only for a request with the same values (RFC 9111 §4.1). A store holds what the
/// session gives it: the rules of what may be stored and when it may be used are the session's
/// (`CacheRules`).
public protocol ResponseCache: Sendable {
    /// The stored response for `request`'s URL whose Vary fields `request` matches.
    func cachedResponse(for request: Request) -> CachedResponse?
    /// Stores `cached` for `request`, replacing the entry with the same URL and Vary values.
    func storeCachedResponse(_ cached: CachedResponse, for request: Request)
    /// Removes every entry for `request`'s URL (all its variants).
    func removeCachedResponse(for request: Request)
    func removeAllCachedResponses()
}

/// An in-memory ``ResponseCache`` bounded by total body bytes, evicting the least recently used
/// (an O(1) list, not a scan). One `Mutex` guards its index; a lookup holds it for a hash
/// lookup and a list update.
public final class MemoryResponseCache: ResponseCache {
    private struct Store {
        var index = CacheIndex<CachedResponse>()
        var bytes = 0
    }

    /// The most body bytes kept at once; a single larger body is not stored.
    public let capacity: Int
    private let store = Mutex(Store())

    public init(capacity: Int = 16 * 1024 * 1024) {
        self.capacity = capacity
    }

    public var currentBytes: Int { store.withLock { $0.bytes } }

    /// Entries held (each variant counts).
    public var count: Int { store.withLock { $0.index.count } }

    public func cachedResponse(for request: Request) -> CachedResponse? {
        store.withLock { $0.index.lookup(request)?.value }
    }

    public func storeCachedResponse(_ cached: CachedResponse, for request: Request) {
        guard cached.data.count <= capacity, let names = cached.freshness.varyNames,
              let key = CacheIndex<CachedResponse>.key(for: request, names: names) else { return }
        store.withLock { store in
            for old in store.index.insert(cached, at: key, names: names) { store.bytes -= old.data.count }
            store.bytes += cached.data.count
            while store.bytes > capacity, let (_, oldest) = store.index.removeLeastRecent() {
                store.bytes -= oldest.data.count
            }
        }
    }

    public func removeCachedResponse(for request: Request) {
        guard let url = request.httpURL else { return }
        store.withLock { store in
            for old in store.index.remove(url: url) { store.bytes -= old.data.count }
        }
    }

    public func removeAllCachedResponses() {
        store.withLock { $0 = Store() }
    }
}
