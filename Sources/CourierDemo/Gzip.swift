import CCourierZlib

/// gzip-compresses `input` (RFC 1952) with zlib, for the demo server's compressed responses.
func gzip(_ input: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    // windowBits 15 + 16: zlib writes a gzip header and trailer.
    guard deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        fatalError("deflateInit2 failed")
    }
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
    var input = input
    let produced = input.withUnsafeMutableBufferPointer { source in
        output.withUnsafeMutableBufferPointer { target -> Int in
            // Safe: both buffers outlive the deflate call and their counts bound what zlib touches.
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            stream.next_out = target.baseAddress
            stream.avail_out = uInt(target.count)
            let status = deflate(&stream, Z_FINISH)
            precondition(status == Z_STREAM_END, "deflate did not finish")
            return target.count - Int(stream.avail_out)
        }
    }
    return Array(output[0..<produced])
}

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
