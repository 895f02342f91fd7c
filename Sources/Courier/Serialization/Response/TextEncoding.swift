import FoundationEssentials

/// The character encodings ``StringResponseSerializer`` decodes, named by the `charset`
/// parameter of Content-Type (RFC 9110 §8.3.2). Each decoder is strict: bytes that are not valid
/// in the encoding are an error, never replaced.
public enum TextEncoding: String, Sendable, Hashable, CaseIterable {
    /// UTF-8 (RFC 3629). A leading byte-order mark is dropped.
    case utf8
    /// US-ASCII: bytes 0x00–0x7F only.
    case usASCII
    /// ISO-8859-1: each byte is the code point of the same value.
    case isoLatin1
    /// windows-1252: ISO-8859-1 except 0x80–0x9F, which hold `€ ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ`;
    /// 0x81, 0x8D, 0x8F, 0x90 and 0x9D are unassigned and refused.
    case windows1252
    /// UTF-16 with its byte order from a byte-order mark (dropped), big-endian without one
    /// (RFC 2781 §4.3).
    case utf16
    /// UTF-16LE (RFC 2781 §3.2); a leading U+FEFF is kept as a character.
    case utf16LittleEndian
    /// UTF-16BE (RFC 2781 §3.2); a leading U+FEFF is kept as a character.
    case utf16BigEndian

    /// The encoding a charset label names (case-insensitive, common aliases included), or nil.
    public init?(charset: String) {
        switch charset.lowercased() {
        case "utf-8", "utf8", "unicode-1-1-utf-8": self = .utf8
        case "us-ascii", "ascii", "iso646-us", "ansi_x3.4-1968", "us": self = .usASCII
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "l1", "iso-ir-100", "cp819", "ibm819":
            self = .isoLatin1
        case "windows-1252", "cp1252", "x-cp1252": self = .windows1252
        case "utf-16", "utf16": self = .utf16
        case "utf-16le", "utf16le": self = .utf16LittleEndian
        case "utf-16be", "utf16be": self = .utf16BigEndian
        default: return nil
        }
    }

    /// The text, or nil when the bytes are not valid in this encoding.
    public func decode(_ data: Data) -> String? {
        switch self {
        case .utf8:
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            let bytes = data.starts(with: bom) ? data.dropFirst(3) : data[...]
            return String(validating: bytes, as: UTF8.self)
        case .usASCII:
            guard data.allSatisfy({ $0 < 0x80 }) else { return nil }
            return String(decoding: data, as: UTF8.self)
        case .isoLatin1:
            var text = String.UnicodeScalarView()
            for byte in data { text.append(Unicode.Scalar(byte)) }
            return String(text)
        case .windows1252:
            var text = String.UnicodeScalarView()
            for byte in data {
                if (0x80...0x9F).contains(byte) {
                    let value = Self.windows1252High[Int(byte - 0x80)]
                    guard value != 0, let scalar = Unicode.Scalar(value) else { return nil }
                    text.append(scalar)
                } else {
                    text.append(Unicode.Scalar(byte))
                }
            }
            return String(text)
        case .utf16:
            let bytes = Array(data)
            if bytes.starts(with: [0xFF, 0xFE]) { return Self.decodeUTF16(bytes.dropFirst(2), bigEndian: false) }
            if bytes.starts(with: [0xFE, 0xFF]) { return Self.decodeUTF16(bytes.dropFirst(2), bigEndian: true) }
            return Self.decodeUTF16(bytes[...], bigEndian: true)
        case .utf16LittleEndian:
            return Self.decodeUTF16(Array(data)[...], bigEndian: false)
        case .utf16BigEndian:
            return Self.decodeUTF16(Array(data)[...], bigEndian: true)
        }
    }

    private static func decodeUTF16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String? {
        guard bytes.count % 2 == 0 else { return nil }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return String(validating: units, as: UTF16.self)
    }

    /// Code points of windows-1252 bytes 0x80–0x9F; 0 marks an unassigned byte.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]
}
