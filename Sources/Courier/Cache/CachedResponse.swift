import FoundationEssentials

/// A stored response (`NSCachedURLResponse`): head, body and when it was stored.
public struct CachedResponse: Sendable {
    public var response: Response {
        didSet { freshness = CacheFreshness(response, storedAt: storedAt) }
    }
    public var data: Data
    /// When the response was received (its `response_time`, RFC 9111 §4.2.3); a 304 that
    /// revalidated it moves it to the 304's arrival.
    public var storedAt: Date {
        didSet { freshness = CacheFreshness(response, storedAt: storedAt) }
    }
    /// What the rules need of the head, worked out once when it is stored (not on every lookup).
    private(set) var freshness: CacheFreshness

    public init(response: Response, data: Data, storedAt: Date = Date()) {
        self.response = response
        self.data = data
        self.storedAt = storedAt
        self.freshness = CacheFreshness(response, storedAt: storedAt)
    }
}

/// Where a response came from (``TaskMetrics/responseSource``).
public enum ResponseSource: String, Sendable, Hashable {
    /// From the network: no stored response was used.
    case network
    /// From the session's cache, without contacting the server (a fresh entry, or a cache
    /// policy that allows a stale one).
    case cache
    /// From the cache after the server confirmed it with `304 Not Modified` (RFC 9111 §4.3.4):
    /// the stored body with the updated head.
    case revalidated
}
