/// The subcomponent algorithms of RFC 6265bis §5.1: domain matching (§5.1.3), the default path
/// and path matching (§5.1.4).
enum CookieMatching {
    /// §5.1.3: `host` equals `domain`, or (for a host name, never an IP address) `domain` is a
    /// suffix of `host` preceded there by a dot.
    static func domainMatches(host: String, isIPAddress: Bool, domain: String) -> Bool {
        if host == domain { return true }
        guard !isIPAddress, host.utf8.count > domain.utf8.count, host.utf8.reversed().starts(with: domain.utf8.reversed()) else {
            return false
        }
        let dot = host.utf8.index(host.utf8.endIndex, offsetBy: -(domain.utf8.count + 1))
        return host.utf8[dot] == UInt8(ascii: ".")
    }

    /// §5.1.4: the directory of the request path: `/` for an empty path, one not starting with
    /// `/`, or one with a single `/`; otherwise up to (not including) the last `/`.
    static func defaultPath(_ requestPath: String) -> String {
        let utf8 = requestPath.utf8
        guard utf8.first == UInt8(ascii: "/"), let last = utf8.lastIndex(of: UInt8(ascii: "/")), last != utf8.startIndex else {
            return "/"
        }
        return String(requestPath[..<last])
    }

    /// §5.1.4: `cookiePath` equals `requestPath`, or is a prefix of it that ends in `/` or is
    /// followed there by `/`.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        if cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        let next = requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)
        return requestPath.utf8[next] == UInt8(ascii: "/")
    }

    /// The domains a cookie sent to `host` may be stored under: the host itself and, for a host
    /// name, each parent domain (`a.b.c`, `b.c`, `c`). The index is searched only under these.
    static func candidateDomains(of host: String, isIPAddress: Bool) -> [String] {
        guard !isIPAddress else { return [host] }
        var result = [host]
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if rest.isEmpty { break }
            result.append(String(rest))
        }
        return result
    }
}
