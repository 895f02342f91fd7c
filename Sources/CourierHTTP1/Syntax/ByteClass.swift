/// Character classes of RFC 9110 §5.6 and RFC 9112, as branch-light checks with no tables in
/// memory (two 64-bit masks stand for a 128-entry table).
@usableFromInline
enum ByteClass {
    /// `tchar` of RFC 9110 §5.6.2 for bytes 0–63 and 64–127.
    @usableFromInline static let tokenMaskLow: UInt64 = 0x03ff_6cfa_0000_0000
    @usableFromInline static let tokenMaskHigh: UInt64 = 0x57ff_ffff_c7ff_fffe

    /// Whether `byte` is a `tchar` (RFC 9110 §5.6.2).
    @inlinable @inline(__always)
    static func isToken(_ byte: UInt8) -> Bool {
        if byte < 64 { return (tokenMaskLow >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (tokenMaskHigh >> UInt64(byte &- 64)) & 1 == 1 }
        return false
    }

    /// Whether `byte` may appear in a field value (RFC 9110 §5.5): VCHAR, SP, HTAB or obs-text.
    /// CR, LF, NUL, the other controls and DEL are refused.
    @inlinable @inline(__always)
    static func isFieldValue(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte != 0x7F) || byte == 0x09
    }

    /// Whether `byte` is SP or HTAB (RFC 9110 §5.6.3 OWS).
    @inlinable @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Whether `byte` may appear in a request-target: any visible US-ASCII or obs-text, no
    /// controls, SP or DEL. (RFC 9112 §3.2 restricts it further by form; the encoder checks forms.)
    @inlinable @inline(__always)
    static func isTargetByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F
    }

    /// The value of a hex digit, or nil (arithmetic, no range pattern matching on the hot path).
    @inlinable @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        if letter < 6 { return letter &+ 10 }
        return nil
    }

    /// ASCII lower-casing of one byte.
    @inlinable @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    /// Index of the first byte in `bytes[from..<to]` below 0x20 or equal to 0x7F, or nil.
    ///
    /// Sixteen bytes at a time (SIMD compares), eight (SWAR) for short ranges. A field line has
    /// no such byte before its CR, so this one pass finds the line's end and proves the bytes
    /// before it valid (RFC 9110 §5.5). The last vector or word may overlap bytes already checked;
    /// they had no match, so the lowest flag is still at or after the current position. In a SWAR
    /// word the bit tricks can misflag only bytes above a real match, so the lowest flag is exact.
    @inlinable
    static func firstControlOrDEL(_ bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var i = from
        #if _endian(little)
        if to &- from >= 16 {
            // Vector-vector compares lower to SSE2/NEON; comparing with a scalar or using `any`
            // goes lane by lane through generic code, so keep this form.
            let space = SIMD16<UInt8>(repeating: 0x20)
            let del = SIMD16<UInt8>(repeating: 0x7F)
            while true {
                // Safe: from <= i and i + 16 <= to <= bytes.count.
                let v = base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                let lanes = unsafeBitCast((v .< space) .| (v .== del), to: SIMD2<UInt64>.self)
                if lanes[0] | lanes[1] != 0 {
                    return lanes[0] != 0
                        ? i &+ lanes[0].trailingZeroBitCount &>> 3
                        : i &+ 8 &+ lanes[1].trailingZeroBitCount &>> 3
                }
                if i &+ 16 == to { return nil }
                i = Swift.min(i &+ 16, to &- 16)
            }
        }
        #endif
        while i &+ 8 <= to {
            // Safe: i + 8 <= to <= bytes.count.
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let mask = controlOrDELMask(word)
            if mask != 0 { return i &+ mask.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < to {
            let b = bytes[i]
            if b < 0x20 || b == 0x7F { return i }
            i &+= 1
        }
        return nil
    }

    /// 0x80 in each byte lane of `word` that is below 0x20 or equal to 0x7F (lowest lane exact).
    @inlinable @inline(__always)
    static func controlOrDELMask(_ word: UInt64) -> UInt64 {
        let lows: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- (lows &* 0x20)) & ~word & highs
        let x7f = word ^ (lows &* 0x7F)
        let isDel = (x7f &- lows) & ~x7f & highs
        return below20 | isDel
    }
}
