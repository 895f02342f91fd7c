import CCourierZlib
import CourierCore
import CourierHTTP1

/// gzip-compresses `input` (RFC 1952) with zlib, for the demo server's compressed responses.
func gzip(_ input: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    guard deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        return []
    }
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
    var input = input
    let produced = input.withUnsafeMutableBufferPointer { source in
        output.withUnsafeMutableBufferPointer { destination -> Int in
            // Safe: both buffers outlive the call and their counts bound what zlib touches.
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            stream.next_out = destination.baseAddress
            stream.avail_out = uInt(destination.count)
            guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return 0 }
            return destination.count - Int(stream.avail_out)
        }
    }
    return Array(output.prefix(produced))
}

/// gunzips `input` with the library's own decoder (CourierHTTP1's `ContentDecoder`), to check a
/// downloaded .gz file; nil when it is not a whole gzip stream.
func gunzip(_ input: [UInt8]) -> [UInt8]? {
    let decoder = ContentDecoder(codings: [.gzip])
    var output = ByteBuffer()
    do {
        try decoder.decode(ByteBuffer(bytes: input), into: &output)
        try decoder.finish()
    } catch {
        return nil
    }
    return output.readableBytesArray()
}
