import CCourierZlib
import CourierTestSupport

/// gzip-compresses `input` (RFC 1952), for the demo server's compressed responses.
func gzip(_ input: [UInt8]) -> [UInt8] { TestCompression.compress(input) }

/// gunzips `input` (concatenated members are not needed here), to check a downloaded .gz file.
func gunzip(_ input: [UInt8]) -> [UInt8]? {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    var input = input
    return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
        stream.next_in = source.baseAddress
        stream.avail_in = uInt(source.count)
        while true {
            let (status, count) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                // Safe: `target` is valid for this call; zlib writes at most avail_out bytes.
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                let status = inflate(&stream, Z_NO_FLUSH)
                return (status, target.count - Int(stream.avail_out))
            }
            result.append(contentsOf: chunk[0..<count])
            if status == Z_STREAM_END { return result }
            if status != Z_OK { return nil }
        }
    }
}
