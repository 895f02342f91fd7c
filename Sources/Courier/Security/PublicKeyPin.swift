import FoundationEssentials

/// The text form of SPKI SHA-256 pins: `sha256/` followed by the base64 of the 32-byte digest,
/// as HPKP wrote them (RFC 7469 §2.1.1, `pin-sha256`) and as most pinning tools print them.
enum PublicKeyPin {
    static let prefix = "sha256/"

    /// Parses `"sha256/BASE64"` or a bare `"BASE64"` (surrounding spaces ignored) into the
    /// 32-byte digest.
    static func parse(_ text: String) throws(CourierError) -> [UInt8] {
        var body = Substring(text)
        while let first = body.first, first == " " || first == "\t" || first == "\n" || first == "\r" { body.removeFirst() }
        while let last = body.last, last == " " || last == "\t" || last == "\n" || last == "\r" { body.removeLast() }
        if body.lowercased().hasPrefix(prefix) { body = body.dropFirst(prefix.count) }
        guard let data = Data(base64Encoded: String(body)), data.count == 32 else {
            throw CourierError(
                .invalidSecurityPolicy,
                detail: "\"\(text)\" is not a public-key pin: expected \"sha256/\" and the base64 of a 32-byte SHA-256 digest")
        }
        return Array(data)
    }

    /// The bare base64 of a digest.
    static func base64(_ digest: [UInt8]) -> String {
        Data(digest).base64EncodedString()
    }

    /// `sha256/` + base64.
    static func string(_ digest: [UInt8]) -> String {
        prefix + base64(digest)
    }
}
