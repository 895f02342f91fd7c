/// What Foundation's `URL(string:)` does to a string from the caller before it is parsed, and
/// so what the string APIs (``HTTPSessionManager`` paths, ``HTTPRequestSerializing`` URL
/// strings) have always accepted: the bytes RFC 3986 does not allow in a URI reference are
/// percent-encoded (§2.1), rather than refused.
///
/// Encoded: bytes outside US-ASCII, controls, space and DEL; `"`, `<`, `>`, `\`, `^`, `` ` ``,
/// `{`, `|`, `}`; a `%` not followed by two hex digits; and `[` `]` outside the authority (where
/// they only bracket an IPv6 literal, §3.2.2). Nothing else changes, so the result is then parsed
/// once, strictly, by ``HTTPURL``. Only the caller's own strings go through this: a URL from the
/// network (a redirect's Location) is never repaired.
enum URLStringEncoding {
    static func encodingInvalidCharacters(_ string: String) -> String {
        let bytes = Array(string.utf8)
        guard bytes.contains(where: needsCheck) else { return string }
        let authority = authorityRange(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        for (i, byte) in bytes.enumerated() {
            let bracketOutsideAuthority = (byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")) && !authority.contains(i)
            let looseEscape = byte == UInt8(ascii: "%") && !(i + 2 < bytes.count && isHex(bytes[i + 1]) && isHex(bytes[i + 2]))
            if isInvalid(byte) || bracketOutsideAuthority || looseEscape {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func needsCheck(_ byte: UInt8) -> Bool {
        isInvalid(byte) || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
    }

    private static func isInvalid(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, 0x7F...: true
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "`"),
             UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"): true
        default: false
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    /// The authority's byte range: after `scheme://` or a leading `//`, up to the next `/`, `?`
    /// or `#` (RFC 3986 Appendix B); empty when the reference has none.
    private static func authorityRange(_ bytes: [UInt8]) -> Range<Int> {
        let slash = UInt8(ascii: "/")
        var start: Int?
        if bytes.starts(with: [slash, slash]) {
            start = 2
        } else if let colon = bytes.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == slash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }),
                  bytes[colon] == UInt8(ascii: ":"), bytes[(colon + 1)...].starts(with: [slash, slash]) {
            start = colon + 3
        }
        guard let start else { return 0..<0 }
        let end = bytes[start...].firstIndex { $0 == slash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        return start..<end
    }
}
