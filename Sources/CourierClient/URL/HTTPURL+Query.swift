extension HTTPURL {
    /// This URL with `query` appended to its query (RFC 3986 §3.4): after `&` when the URL has a
    /// query, else after `?` (an empty `query` changes nothing). Nothing is parsed again: only
    /// the new bytes are checked, by the rules ``init(_:)`` applies to a query.
    ///
    /// - Throws: ``HTTPURLError`` whose `input` is `query`, for a byte no URL may contain
    ///   (controls, space, non-ASCII), a malformed percent-escape, or a `#`
    ///   (``HTTPURLError/Reason/numberSignInQuery``). Percent-encode such bytes first.
    public func appendingQuery(_ query: String) throws(HTTPURLError) -> HTTPURL {
        guard !query.isEmpty else { return self }
        let bytes = Array(query.utf8)
        if let reason = HTTPURL.firstForbiddenByte(bytes) { throw HTTPURLError(reason: reason, input: query) }
        if bytes.contains(UInt8(ascii: "#")) { throw HTTPURLError(reason: .numberSignInQuery, input: query) }
        let combined = self.query.map { $0 + "&" + query } ?? query
        return HTTPURL(
            scheme: scheme, host: host, hostKind: hostKind, explicitPort: explicitPort, path: path, query: combined,
            rawUserInfo: rawUserInfo, authorityHost: authorityHost)
    }
}
