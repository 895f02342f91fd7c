import CCourierZlib
import CourierCore

/// One streaming zlib inflate layer: gzip (with concatenated members) or deflate (zlib-wrapped or
/// raw, detected from the first two bytes).
///
/// A class because zlib keeps a pointer back to its `z_stream` and checks it on every call: the
/// stream must never move, so it lives in memory this object allocates and frees. Not Sendable: a
/// decoder belongs to one request on one thread.
final class Inflater {
    private let coding: ContentCoding
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutableRawBufferPointer
    private var initialised = false
    /// The first byte of a deflate body, held until the second arrives to detect the wrapper.
    private var pendingFirstByte: UInt8?
    /// Whether the stream (or, for gzip, the latest member) reached its end.
    private var atStreamEnd = false
    private var sawInput = false
    private(set) var consumed: UInt64 = 0
    private(set) var produced: UInt64 = 0

    /// Output per `inflate` call. zlib copies the last 32 KiB of every call's output into its
    /// window, so a larger buffer means fewer of those copies: on the W5 body, 32 KiB gave 0.83×
    /// zlib's own in-memory speed, 128 KiB 0.89×, 256–512 KiB about 0.94× (Benchmarks/RESULTS.md).
    /// The memory exists only while a coded body is being decoded.
    static let scratchSize = 256 * 1024

    init(coding: ContentCoding) {
        self.coding = coding
        self.stream = .allocate(capacity: 1)
        self.stream.initialize(to: z_stream())
        self.scratch = .allocate(byteCount: Self.scratchSize, alignment: 16)
    }

    deinit {
        if initialised { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Prepares for a new body, keeping zlib's window allocation when the format is the same.
    func reset() {
        if initialised { inflateReset(stream) }
        if coding == .deflate, initialised {
            // The wrapper may differ next time: start over.
            inflateEnd(stream)
            initialised = false
        }
        pendingFirstByte = nil
        atStreamEnd = false
        sawInput = false
        consumed = 0
        produced = 0
    }

    private func initialise(windowBits: Int32) throws(ContentDecodingError) {
        let rc = inflateInit2_(stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw ContentDecodingError(.zlibFailure, inputOffset: consumed) }
        initialised = true
    }

    /// Inflates `input`, calling `sink` with each run of output (valid only during the call).
    func decode(
        _ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws(ContentDecodingError) -> Void
    ) throws(ContentDecodingError) {
        // The output value lives only for this call, so the closure does not really escape.
        try withoutActuallyEscaping(sink) { (sink) throws(ContentDecodingError) in
            var output = ScratchOutput(scratch: scratch, sink: sink)
            try decode(input, output: &output)
        }
    }

    /// Inflates `input` straight into `buffer`'s writable space (no copy through the scratch
    /// buffer); `check` runs after every `inflate` call with the bytes it made, so limits are
    /// enforced as the output grows.
    func decode(
        _ input: UnsafeRawBufferPointer, into buffer: inout ByteBuffer, check: (Int) throws(ContentDecodingError) -> Void
    ) throws(ContentDecodingError) {
        try withoutActuallyEscaping(check) { (check) throws(ContentDecodingError) in
            var output = BufferOutput(buffer: buffer, check: check)
            buffer = ByteBuffer()  // the output owns the storage meanwhile, so writes do not copy
            defer { buffer = output.buffer }
            try decode(input, output: &output)
        }
    }

    private func decode<Output: InflateOutput>(_ input: UnsafeRawBufferPointer, output: inout Output) throws(ContentDecodingError) {
        guard input.count > 0 else { return }
        sawInput = true
        if !initialised {
            switch coding {
            case .gzip:
                try initialise(windowBits: 16 + MAX_WBITS)
            case .deflate:
                guard let first = pendingFirstByte else {
                    if input.count == 1 {
                        pendingFirstByte = input[0]
                        return
                    }
                    try initialise(windowBits: Self.looksLikeZlib(input[0], input[1]) ? MAX_WBITS : -MAX_WBITS)
                    return try run(input, output: &output)
                }
                pendingFirstByte = nil
                try initialise(windowBits: Self.looksLikeZlib(first, input[0]) ? MAX_WBITS : -MAX_WBITS)
                try withUnsafeBytes(of: first) { (b) throws(ContentDecodingError) in try run(b, output: &output) }
            }
        }
        try run(input, output: &output)
    }

    /// A zlib header (RFC 1950 §2.2): CM = 8 (deflate), CINFO ≤ 7, and the check bits make the
    /// first two bytes a multiple of 31.
    static func looksLikeZlib(_ cmf: UInt8, _ flg: UInt8) -> Bool {
        cmf & 0x0F == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
    }

    private func run<Output: InflateOutput>(_ input: UnsafeRawBufferPointer, output: inout Output) throws(ContentDecodingError) {
        var offset = 0
        while offset < input.count {
            if atStreamEnd {
                // gzip allows another member (what `cat a.gz b.gz` makes); zlib and raw deflate
                // streams end once.
                guard coding == .gzip else { throw ContentDecodingError(.trailingData, inputOffset: consumed) }
                inflateReset(stream)
                atStreamEnd = false
            }
            // Safe: zlib reads at most avail_in bytes from next_in and writes at most avail_out
            // bytes into the region; both pointers are cleared before `input` and the region go away.
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Bytef.self))
            let given = Swift.min(input.count - offset, Int(UInt32.max))
            stream.pointee.avail_in = uInt(given)
            let (rc, made) = try inflateStep(into: &output)
            let used = given - Int(stream.pointee.avail_in)
            stream.pointee.next_in = nil
            offset += used
            consumed += UInt64(used)
            switch rc {
            case Z_OK:
                continue
            case Z_STREAM_END:
                atStreamEnd = true
            case Z_BUF_ERROR where used == 0 && made == 0:
                // No progress possible: zlib wants more input than this call has.
                return
            case Z_BUF_ERROR:
                continue
            case Z_MEM_ERROR:
                throw ContentDecodingError(.zlibFailure, inputOffset: consumed)
            default:
                throw ContentDecodingError(.corruptStream, inputOffset: consumed)
            }
        }
        // Input is used up, but zlib may hold more output than one region took.
        while !atStreamEnd {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            let (rc, made) = try inflateStep(into: &output)
            if rc == Z_STREAM_END { atStreamEnd = true }
            else if rc == Z_BUF_ERROR || made == 0 { return }
            else if rc != Z_OK { throw ContentDecodingError(.corruptStream, inputOffset: consumed) }
        }
    }

    /// One `inflate` call into the region `output` provides; returns zlib's code and the bytes made.
    private func inflateStep<Output: InflateOutput>(into output: inout Output) throws(ContentDecodingError) -> (Int32, Int) {
        var rc: Int32 = Z_OK
        let made = try output.write { region in
            // Safe: zlib writes at most avail_out bytes into the region, and next_out is cleared
            // before the region goes away.
            stream.pointee.next_out = region.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(region.count)
            rc = inflate(stream, Z_NO_FLUSH)
            let made = region.count - Int(stream.pointee.avail_out)
            stream.pointee.next_out = nil
            // Counted before `write` runs the output's limit check, which reads it.
            produced += UInt64(made)
            return made
        }
        return (rc, made)
    }

    /// The body ended: the compressed stream must have ended too. An empty body is accepted as
    /// empty output, since servers send `Content-Encoding: gzip` on empty bodies.
    func finish() throws(ContentDecodingError) {
        guard sawInput else { return }
        guard atStreamEnd, pendingFirstByte == nil else {
            throw ContentDecodingError(.truncatedStream, inputOffset: consumed)
        }
    }
}

/// Where one `inflate` call writes: `write` hands `body` a region, and `body` returns how many
/// bytes it filled.
private protocol InflateOutput {
    mutating func write(_ body: (UnsafeMutableRawBufferPointer) -> Int) throws(ContentDecodingError) -> Int
}

/// The inflater's own scratch memory, passed to a sink after each call.
private struct ScratchOutput: InflateOutput {
    let scratch: UnsafeMutableRawBufferPointer
    let sink: (UnsafeRawBufferPointer) throws(ContentDecodingError) -> Void

    func write(_ body: (UnsafeMutableRawBufferPointer) -> Int) throws(ContentDecodingError) -> Int {
        let made = body(scratch)
        if made > 0 { try sink(UnsafeRawBufferPointer(rebasing: scratch[0..<made])) }
        return made
    }
}

/// A byte buffer's writable space: `Inflater.scratchSize` for the first call into an empty
/// buffer (large regions spare zlib window copies), then whatever is left if that is at least
/// 32 KiB, so a call that makes little or nothing does not grow (and copy) the buffer.
private struct BufferOutput: InflateOutput {
    var buffer: ByteBuffer
    let check: (Int) throws(ContentDecodingError) -> Void

    mutating func write(_ body: (UnsafeMutableRawBufferPointer) -> Int) throws(ContentDecodingError) -> Int {
        let wanted = buffer.readableBytes == 0 ? Inflater.scratchSize : 32 * 1024
        // The check runs before the bytes are committed: output refused by a limit never
        // becomes readable in the buffer, as with the sink, which is not called then.
        return try buffer.withUnsafeMutableWritableBytes(minimumCapacity: wanted) { (region) throws(ContentDecodingError) -> Int in
            let made = body(region)
            if made > 0 { try check(made) }
            return made
        }
    }
}
