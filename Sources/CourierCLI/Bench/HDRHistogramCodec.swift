import CCourierZlib
import Courier

/// HdrHistogram's V2 histogram encoding, compressed, as its interval logs carry it (the Java
/// original's `encodeIntoCompressedByteBuffer`; read by HdrHistogram's Java, C, Python, Go and
/// Rust ports):
///
/// - the payload: a 40-byte big-endian header — cookie `0x1c849313` (the V2 encoding cookie
///   base `0x1c849303` with the word-size nibble), the length of the counts that follow,
///   normalizing index offset (0), significant digits, lowest discernible value (Int64), highest
///   trackable value (Int64), integer-to-double ratio (Double 1.0) — then the counts from index 0
///   to the maximum's, each a ZigZag LEB128 varint, a run of 2 or more zero counts written as
///   the negated run length;
/// - wrapped: cookie `0x1c849314` (the V2 compressed cookie base `0x1c849304` with the nibble),
///   the length of the zlib stream (big-endian Int32), then the payload deflated in zlib format;
/// - in a log line: that, in standard base64.
enum HDRHistogramCodec {
    static let encodingCookie: UInt32 = 0x1c84_9303 | 0x10
    static let compressedCookie: UInt32 = 0x1c84_9304 | 0x10
    static let headerSize = 40

    enum DecodeError: Error, Equatable, CustomStringConvertible {
        case base64
        case truncated
        case cookie(UInt32)
        case inflate(Int32)
        case settings
        case countsOverflow

        var description: String {
            switch self {
            case .base64: "not base64"
            case .truncated: "the encoded histogram is truncated"
            case .cookie(let cookie): "not a V2 HdrHistogram encoding (cookie 0x\(String(cookie, radix: 16)))"
            case .inflate(let code): "the compressed histogram does not inflate (zlib \(code))"
            case .settings: "the histogram's settings are out of range"
            case .countsOverflow: "more counts than the histogram's range holds"
            }
        }
    }

    // MARK: Encoding

    /// The uncompressed V2 payload of `histogram`.
    static func payload(of histogram: HDRHistogram) -> [UInt8] {
        var counts: [UInt8] = []
        let limit = histogram.totalCount > 0 ? histogram.index(of: histogram.maxValue) + 1 : 0
        counts.reserveCapacity(limit * 2)
        var index = 0
        while index < limit {
            let count = histogram.count(at: index)
            index += 1
            if count == 0 {
                var zeros: Int64 = 1
                while index < limit && histogram.count(at: index) == 0 {
                    zeros += 1
                    index += 1
                }
                putZigZag(zeros > 1 ? -zeros : 0, into: &counts)
            } else {
                putZigZag(count, into: &counts)
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + counts.count)
        putBigEndian(UInt64(encodingCookie), bytes: 4, into: &bytes)
        putBigEndian(UInt64(counts.count), bytes: 4, into: &bytes)
        putBigEndian(0, bytes: 4, into: &bytes)
        putBigEndian(UInt64(histogram.significantDigits), bytes: 4, into: &bytes)
        putBigEndian(UInt64(histogram.lowestDiscernibleValue), bytes: 8, into: &bytes)
        putBigEndian(UInt64(histogram.highestTrackableValue), bytes: 8, into: &bytes)
        putBigEndian((1.0 as Double).bitPattern, bytes: 8, into: &bytes)
        bytes += counts
        return bytes
    }

    /// The compressed encoding of `histogram` (not yet base64).
    static func compressed(_ histogram: HDRHistogram) -> [UInt8] {
        let plain = payload(of: histogram)
        var bound = compressBound(uLong(plain.count))
        var deflated = [UInt8](repeating: 0, count: Int(bound))
        let code = deflated.withUnsafeMutableBufferPointer { out in
            plain.withUnsafeBufferPointer { input in
                // Safe: both buffers live for the call; zlib writes at most `bound` bytes to `out`.
                compress2(out.baseAddress, &bound, input.baseAddress, uLong(input.count), Z_DEFAULT_COMPRESSION)
            }
        }
        precondition(code == Z_OK, "compress2 cannot fail with a compressBound-sized buffer")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + Int(bound))
        putBigEndian(UInt64(compressedCookie), bytes: 4, into: &bytes)
        putBigEndian(UInt64(bound), bytes: 4, into: &bytes)
        bytes += deflated[..<Int(bound)]
        return bytes
    }

    /// The base64 text an interval log line carries.
    static func encode(_ histogram: HDRHistogram) -> String {
        base64Encode(compressed(histogram))
    }

    /// Standard base64 with padding (RFC 4648 §4).
    static func base64Encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let group = UInt32(bytes[index]) << 16
                | (remaining > 1 ? UInt32(bytes[index + 1]) << 8 : 0)
                | (remaining > 2 ? UInt32(bytes[index + 2]) : 0)
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func putZigZag(_ value: Int64, into bytes: inout [UInt8]) {
        var rest = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        // Up to eight 7-bit groups; a ninth byte carries the last 8 bits whole (Java's ZigZag).
        for _ in 0..<8 {
            if rest >> 7 == 0 {
                bytes.append(UInt8(rest))
                return
            }
            bytes.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    static func putBigEndian(_ value: UInt64, bytes count: Int, into bytes: inout [UInt8]) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    // MARK: Decoding

    /// Decodes base64 text from a log line into a histogram (its own settings, from the payload).
    static func decode(_ text: some StringProtocol) throws(DecodeError) -> HDRHistogram {
        guard let bytes = base64Decode(text) else { throw .base64 }
        return try decode(compressed: bytes)
    }

    static func decode(compressed bytes: [UInt8]) throws(DecodeError) -> HDRHistogram {
        guard bytes.count >= 8 else { throw .truncated }
        let cookie = UInt32(readBigEndian(bytes, at: 0, count: 4))
        guard cookie & ~0xf0 == 0x1c84_9304 else { throw .cookie(cookie) }
        let length = Int(readBigEndian(bytes, at: 4, count: 4))
        guard length == bytes.count - 8 else { throw .truncated }
        return try decode(payload: inflate(Array(bytes[8...])))
    }

    static func decode(payload bytes: [UInt8]) throws(DecodeError) -> HDRHistogram {
        guard bytes.count >= headerSize else { throw .truncated }
        let cookie = UInt32(readBigEndian(bytes, at: 0, count: 4))
        guard cookie & ~0xf0 == 0x1c84_9303 else { throw .cookie(cookie) }
        let length = Int(readBigEndian(bytes, at: 4, count: 4))
        let digits = Int(readBigEndian(bytes, at: 12, count: 4))
        let lowest = Int64(bitPattern: readBigEndian(bytes, at: 16, count: 8))
        let highest = Int64(bitPattern: readBigEndian(bytes, at: 24, count: 8))
        guard length <= bytes.count - headerSize else { throw .truncated }
        guard (1...5).contains(digits), lowest >= 1, highest >= 2 * lowest, highest < Int64.max / 4 else { throw .settings }
        var histogram = HDRHistogram(lowestDiscernibleValue: lowest, highestTrackableValue: highest, significantDigits: digits)
        var position = headerSize
        let end = headerSize + length
        var index = 0
        while position < end {
            let value = try readZigZag(bytes, at: &position, end: end)
            if value < 0 {
                guard value > Int64.min, -value <= Int64(histogram.countsLength - index) else { throw .countsOverflow }
                index += Int(-value)
            } else {
                guard index < histogram.countsLength else { throw .countsOverflow }
                histogram.setCount(value, at: index)
                index += 1
            }
        }
        histogram.recomputeSummary()
        return histogram
    }

    static func readZigZag(_ bytes: [UInt8], at position: inout Int, end: Int) throws(DecodeError) -> Int64 {
        var raw: UInt64 = 0
        for group in 0..<9 {
            guard position < end else { throw .truncated }
            let byte = bytes[position]
            position += 1
            if group == 8 {
                raw |= UInt64(byte) << 56
                break
            }
            raw |= UInt64(byte & 0x7f) << UInt64(7 * group)
            if byte & 0x80 == 0 { break }
        }
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    static func readBigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + count) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    /// Inflates a zlib stream (at most 64 MiB out: a histogram's counts are far smaller).
    static func inflate(_ input: [UInt8]) throws(DecodeError) -> [UInt8] {
        var capacity = max(1024, input.count * 8)
        while capacity <= 64 << 20 {
            var output = [UInt8](repeating: 0, count: capacity)
            var produced = uLong(capacity)
            let code = output.withUnsafeMutableBufferPointer { out in
                input.withUnsafeBufferPointer { source in
                    // Safe: both buffers live for the call; zlib writes at most `produced` bytes.
                    uncompress(out.baseAddress, &produced, source.baseAddress, uLong(source.count))
                }
            }
            if code == Z_OK { return Array(output[..<Int(produced)]) }
            guard code == Z_BUF_ERROR else { throw .inflate(code) }
            capacity *= 4
        }
        throw .inflate(Z_BUF_ERROR)
    }

    /// Standard base64 (RFC 4648 §4), padding required, no whitespace.
    static func base64Decode(_ text: some StringProtocol) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count / 4 * 3)
        var group: UInt32 = 0
        var filled = 0
        var padding = 0
        for byte in text.utf8 {
            let sextet: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): sextet = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): sextet = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sextet = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): sextet = 62
            case UInt8(ascii: "/"): sextet = 63
            case UInt8(ascii: "="): padding += 1; sextet = 0
            default: return nil
            }
            if padding > 0 && byte != UInt8(ascii: "=") { return nil }
            group = group << 6 | sextet
            filled += 1
            if filled == 4 {
                output.append(UInt8(truncatingIfNeeded: group >> 16))
                if padding < 2 { output.append(UInt8(truncatingIfNeeded: group >> 8)) }
                if padding < 1 { output.append(UInt8(truncatingIfNeeded: group)) }
                group = 0
                filled = 0
            }
        }
        guard filled == 0, padding <= 2 else { return nil }
        return output
    }
}
