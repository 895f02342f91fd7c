extension HTTPURL {
    /// Resolves a URI reference against this URL (RFC 3986 §5.2.2, strict parser), removing dot
    /// segments (§5.2.4), and validates the result as an ``HTTPURL``.
    ///
    /// - A reference with a scheme is parsed on its own. The strict reading applies: `http:g`
    ///   has a scheme and no authority, so it is refused (``HTTPURLError/Reason/missingAuthority``),
    ///   not read as the relative `g` (§5.4.2 allows either).
    /// - An empty reference yields this URL.
    /// - The result's fragment is dropped, like every ``HTTPURL`` fragment.
    ///
    /// - Throws: ``HTTPURLError`` whose `input` is the reference, when the reference or the
    ///   resolved URL is invalid (for example a scheme other than http, https or http+unix).
    public func resolving(_ reference: String) throws(HTTPURLError) -> HTTPURL {
        let r = Array(reference.utf8)
        let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/"), question = UInt8(ascii: "?"),
            hash = UInt8(ascii: "#")
        if let reason = HTTPURL.firstForbiddenByte(r) { throw HTTPURLError(reason: reason, input: reference) }

        // Appendix B: ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
        if let delimiter = r.firstIndex(where: { $0 == colon || $0 == slash || $0 == question || $0 == hash }),
            r[delimiter] == colon, delimiter > 0
        {
            return try HTTPURL(reference)
        }
        var i = 0
        var referenceAuthority: ArraySlice<UInt8>?
        if r.starts(with: [slash, slash]) {
            let end = r[2...].firstIndex { $0 == slash || $0 == question || $0 == hash } ?? r.count
            referenceAuthority = r[2..<end]
            i = end
        }
        let pathEnd = r[i...].firstIndex { $0 == question || $0 == hash } ?? r.count
        let referencePath = r[i..<pathEnd]
        i = pathEnd
        var referenceQuery: ArraySlice<UInt8>?
        if i < r.count, r[i] == question {
            let queryEnd = r[(i + 1)...].firstIndex(of: hash) ?? r.count
            referenceQuery = r[(i + 1)..<queryEnd]
            i = queryEnd
        }
        // Whatever is left is "#" fragment: checked above, then dropped.

        var target = Array((scheme.rawValue + "://").utf8)
        var query: [UInt8]?
        if let referenceAuthority {
            target += referenceAuthority
            target += referencePath
            query = referenceQuery.map(Array.init)
        } else {
            target += authority.utf8
            if referencePath.isEmpty {
                target += path.utf8
                query = referenceQuery.map(Array.init) ?? self.query.map { Array($0.utf8) }
            } else if referencePath.first == slash {
                target += referencePath
                query = referenceQuery.map(Array.init)
            } else {
                // merge (§5.2.3): the base path always has a "/" (it is never empty).
                let base = Array(path.utf8)
                let lastSlash = base.lastIndex(of: slash)!
                target += base[...lastSlash]
                target += referencePath
                query = referenceQuery.map(Array.init)
            }
        }
        if let query {
            target.append(question)
            target += query
        }
        // HTTPURL.init applies remove_dot_segments to the path and validates everything else.
        do {
            return try HTTPURL(String(decoding: target, as: UTF8.self))
        } catch {
            throw HTTPURLError(reason: error.reason, input: reference)
        }
    }
}
