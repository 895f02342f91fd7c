/// Base 64 encoding with the standard alphabet and padding (RFC 4648 §4).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes`: every 3 input bytes become 4 characters; a final group of 1 or 2 bytes
    /// is padded with `=` to 4 characters (RFC 4648 §4).
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = b1 == nil ? nil : iterator.next()
            let group = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(alphabet[Int(group >> 18 & 0x3F)])
            out.append(alphabet[Int(group >> 12 & 0x3F)])
            out.append(b1 == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 0x3F)])
            out.append(b2 == nil ? UInt8(ascii: "=") : alphabet[Int(group & 0x3F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes the UTF-8 bytes of `string`.
    public static func encode(_ string: String) -> String { encode(Array(string.utf8)) }
}
