import CCourierZlib

/// Compression at test time (and for the demo server), with zlib itself — an implementation
/// independent of the decoder under test.
public enum TestCompression {
    /// `input` as gzip (RFC 1952) or, with `gzip: false`, the zlib format (RFC 1950) that HTTP's
    /// "deflate" coding names (RFC 9110 §8.4.1.2).
    public static func compress(_ input: [UInt8], gzip: Bool = true) -> [UInt8] {
        var stream = z_stream()
        let windowBits: Int32 = gzip ? 15 + 16 : 15
        let rc = deflateInit2_(&stream, 6, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(rc == Z_OK, "deflateInit2 failed: \(rc)")
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        var input = input
        let produced = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                // Safe: both buffers outlive the call and their counts bound what zlib touches.
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(destination.count)
                let result = deflate(&stream, Z_FINISH)
                precondition(result == Z_STREAM_END, "deflate did not finish: \(result)")
                return destination.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(produced))
    }
}
