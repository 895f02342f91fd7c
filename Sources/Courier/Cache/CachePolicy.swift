/// How one request uses the session's cache (`NSURLRequest.CachePolicy`), ``Request/cachePolicy``.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111's rules: a fresh stored response answers; a stale one with validators is
    /// revalidated with a conditional request; otherwise the network. The default.
    case useProtocolCachePolicy
    /// The network, whatever is stored; the response may still be stored for later requests.
    case reloadIgnoringCacheData
    /// A stored response when there is one, fresh or stale, without validating it; else the
    /// network.
    case returnCacheDataElseLoad
    /// A stored response, fresh or stale, or the task fails with
    /// ``CourierError/Code/resourceUnavailable``; never the network.
    case returnCacheDataDontLoad
}

extension CourierError.Code {
    /// The request's ``CachePolicy/returnCacheDataDontLoad`` (or `Cache-Control: only-if-cached`,
    /// RFC 9111 §5.2.1.7) forbids the network and the cache holds nothing for it.
    public static let resourceUnavailable = CourierError.Code("resourceUnavailable", .connect)
}
