/// AFNetworking's `AFPercentEscapedStringFromString`: percent-encodes a query-string key or
/// value.
///
/// Kept as is: RFC 3986 §2.3 unreserved characters (`A–Z a–z 0–9 - . _ ~`) plus `?` and `/`,
/// which RFC 3986 §3.4 allows unescaped in a query. Everything else is encoded as `%XX` over its
/// UTF-8 bytes (RFC 3986 §2.1, uppercase hex), including all other reserved characters
/// (`:#[]@!$&'()*+,;=`), `%` itself, space (`%20`, never `+`), controls, CR and LF, and every
/// non-ASCII character. The result is therefore always plain visible ASCII.
public func percentEscapedQueryComponent(_ string: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(string.utf8.count)
    for byte in string.utf8 {
        if QueryEscaping.isKept(byte) {
            bytes.append(byte)
        } else {
            bytes.append(UInt8(ascii: "%"))
            bytes.append(QueryEscaping.hex[Int(byte >> 4)])
            bytes.append(QueryEscaping.hex[Int(byte & 0x0F)])
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

enum QueryEscaping {
    static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "?"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
