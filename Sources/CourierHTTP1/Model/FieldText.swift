/// How field-value bytes become a `String` (RFC 9110 §5.5).
///
/// A field value is bytes: VCHAR, SP, HTAB and obs-text (0x80–0xFF), which RFC 9110 §5.5 says
/// a recipient treats as opaque data. The `String` view decodes the bytes as UTF-8 when they are
/// valid UTF-8, and otherwise as ISO-8859-1: every byte becomes the scalar with the same number
/// (0xE9 → "é"), so no byte is replaced and each one can be recovered. The exact bytes are always
/// available next to the string (``HTTPBytes``, ``HTTPField/valueBytes``), and those are what to
/// use when it matters which bytes the peer sent.
enum FieldText {
    /// The `String` view of `bytes`, and whether it was decoded as ISO-8859-1 (the bytes were not
    /// valid UTF-8).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> (string: String, isLatin1: Bool) {
        // Almost every value is ASCII: decoding it needs no validation (three times faster than
        // `String(validating:)` on typical values).
        if isASCII(bytes) { return (String(decoding: bytes, as: UTF8.self), false) }
        let utf8 = bytes.withMemoryRebound(to: UInt8.self) { String(validating: $0, as: UTF8.self) }
        if let utf8 { return (utf8, false) }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes.lazy.map { Unicode.Scalar($0) })
        return (String(scalars), true)
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    @inline(__always)
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var seen: UInt64 = 0
        if count >= 8 {
            var i = 0
            while i &+ 8 < count {
                // Safe: i + 8 < count, inside the caller's buffer.
                seen |= base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            // The last eight bytes, overlapping ones already seen. Safe: count >= 8.
            seen |= base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        } else {
            for i in 0..<count { seen |= UInt64(bytes[i]) }
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }

    /// The bytes a `String` view stands for: its UTF-8, or with `isLatin1` one byte per scalar.
    static func bytes(of string: String, isLatin1: Bool) -> [UInt8] {
        // Latin-1 views are built by `decode` only, so every scalar is at most 0xFF.
        isLatin1 ? string.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } : Array(string.utf8)
    }
}
