import FoundationEssentials

/// A stored response (`NSCachedURLResponse`): head, body and when it was stored.
public struct CachedResponse: Sendable {
    public var response: Response
    public var data: Data
    /// When the response was received.
    public var storedAt: Date

    public init(response: Response, data: Data, storedAt: Date = Date()) {
        self.response = response
        self.data = data
        self.storedAt = storedAt
    }
}
