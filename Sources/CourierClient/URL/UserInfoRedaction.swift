/// Keeps credentials written in a URL (`user:password@`, RFC 3986 §3.2.1) out of every
/// description and error message. RFC 3986 §7.5 and RFC 9110 §17.6 warn that user information in
/// a URL is a credential: it is replaced, never printed.
///
/// - A password becomes `***`: `http://alice:***@h/`.
/// - User information without a `:` is replaced whole, since it is often a token on its own
///   (`https://TOKEN@host/`): `http://***@h/`.
package enum UserInfoRedaction {
    /// The user information as it may be printed.
    package static func redacted(_ rawUserInfo: Substring) -> String {
        guard let colon = rawUserInfo.firstIndex(of: ":") else { return "***" }
        return rawUserInfo[..<colon] + ":***"
    }

    /// `url` (a string that parsed as a URL, so its user information holds no `/`, `?` or `#`)
    /// with its user information redacted; unchanged when it has none.
    package static func redactingURL(_ url: String) -> String {
        let utf8 = Array(url.utf8)
        let start = authorityStart(utf8)
        let end = utf8[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? utf8.count
        guard let at = utf8[start..<end].lastIndex(of: UInt8(ascii: "@")) else { return url }
        let userInfo = String(decoding: utf8[start..<at], as: UTF8.self)
        return String(decoding: utf8[..<start], as: UTF8.self) + redacted(userInfo[...])
            + String(decoding: utf8[at...], as: UTF8.self)
    }

    /// `text` (a string that may not be a valid URL) with everything between the authority's
    /// start and the last `@` replaced by `***`. A malformed password may hold a `/`, `?` or `#`,
    /// so the search stops at none of them; over-redacting a refused string is fine.
    package static func redactingText(_ text: String) -> String {
        let utf8 = Array(text.utf8)
        let start = authorityStart(utf8)
        guard let at = utf8[start...].lastIndex(of: UInt8(ascii: "@")) else { return text }
        return String(decoding: Array(utf8[..<start]) + Array("***".utf8) + Array(utf8[at...]), as: UTF8.self)
    }

    /// Where the authority starts: after `scheme://`, after a leading `//` (a network-path
    /// reference), else at 0 (`user:pass@host:port`, as proxy settings are written).
    private static func authorityStart(_ utf8: [UInt8]) -> Int {
        if utf8.starts(with: "//".utf8) { return 2 }
        let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?"), hash = UInt8(ascii: "#")
        if let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
            !utf8[..<colon].contains(where: { $0 == slash || $0 == question || $0 == hash }),
            utf8[(colon + 1)...].starts(with: "//".utf8)
        {
            return colon + 3
        }
        return 0
    }
}
