import CourierCore

/// Streams a body through the content codings a response declares (RFC 9110 §8.4), with limits
/// on decoded size and on compression ratio.
///
/// Codings are given in the order the sender applied them (`Content-Encoding: gzip, deflate`
/// means gzip first), and are undone last-first. Output is handed to a sink in pieces of at most
/// 256 KiB (or appended to a buffer, 256 KiB per zlib call at most), with the limits checked
/// after every piece, so memory stays bounded however large the body is.
public final class ContentDecoder {
    private let layers: [Inflater]
    public let limits: ContentDecoderLimits
    private var inputBytes: UInt64 = 0
    private var outputBytes: UInt64 = 0

    /// - Parameter codings: in the order applied by the sender; at most
    ///   ``ContentDecodingPlan/maximumLayers`` are expected (the plan enforces it).
    public init(codings: [ContentCoding], limits: ContentDecoderLimits = .default) {
        precondition(!codings.isEmpty, "a content decoder needs at least one coding")
        self.layers = codings.reversed().map { Inflater(coding: $0) }
        self.limits = limits
    }

    public convenience init(coding: ContentCoding, limits: ContentDecoderLimits = .default) {
        self.init(codings: [coding], limits: limits)
    }

    /// Compressed bytes taken in so far.
    public var bytesIn: UInt64 { inputBytes }
    /// Decoded bytes handed out so far.
    public var bytesOut: UInt64 { outputBytes }

    /// Prepares for another body, keeping zlib's allocations where it can.
    public func reset() {
        for layer in layers { layer.reset() }
        inputBytes = 0
        outputBytes = 0
    }

    /// Decodes a piece of the body, calling `sink` with each piece of decoded output.
    public func decode(
        _ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) -> Void
    ) throws(ContentDecodingError) {
        inputBytes &+= UInt64(input.count)
        try feed(layer: 0, input, sink: sink)
    }

    /// Decodes a piece of the body, appending the decoded output to `output`. With one coding
    /// (the usual case) zlib writes straight into `output`, saving a copy of every byte.
    public func decode(_ input: ByteBuffer, into output: inout ByteBuffer) throws(ContentDecodingError) {
        try input.withUnsafeReadableBytes { (bytes) throws(ContentDecodingError) in
            guard layers.count == 1 else {
                try decode(bytes) { output.writeBytes($0) }
                return
            }
            inputBytes &+= UInt64(bytes.count)
            let layer = layers[0]
            try layer.decode(bytes, into: &output) { (made) throws(ContentDecodingError) in
                try self.check(layer)
                self.outputBytes &+= UInt64(made)
                try self.checkTotal(layer)
            }
        }
    }

    /// The body ended; throws ``ContentDecodingError/Reason/truncatedStream`` if any layer's
    /// stream did not.
    public func finish() throws(ContentDecodingError) {
        for layer in layers { try layer.finish() }
    }

    private func feed(
        layer index: Int, _ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) -> Void
    ) throws(ContentDecodingError) {
        let layer = layers[index]
        let isLast = index == layers.count - 1
        try layer.decode(input) { (piece) throws(ContentDecodingError) in
            try self.check(layer)
            if isLast {
                self.outputBytes &+= UInt64(piece.count)
                try self.checkTotal(layer)
                sink(piece)
            } else {
                try self.feed(layer: index + 1, piece, sink: sink)
            }
        }
    }

    /// Each layer's own expansion is judged, so a bomb inside a bomb is caught at the inner layer.
    private func check(_ layer: Inflater) throws(ContentDecodingError) {
        if layer.produced > limits.ratioGraceBytes, Self.exceedsRatio(layer.produced, layer.consumed, limits.maxRatio) {
            throw ContentDecodingError(.compressionRatioLimit, inputOffset: layer.consumed)
        }
    }

    private func checkTotal(_ layer: Inflater) throws(ContentDecodingError) {
        if let max = limits.maxDecodedBytes, outputBytes > max {
            throw ContentDecodingError(.decodedSizeLimit, inputOffset: layer.consumed)
        }
        if outputBytes > limits.ratioGraceBytes, Self.exceedsRatio(outputBytes, inputBytes, limits.maxRatio) {
            throw ContentDecodingError(.compressionRatioLimit, inputOffset: layer.consumed)
        }
    }

    /// Whether `output` is more than `ratio` times `input`, without overflow.
    static func exceedsRatio(_ output: UInt64, _ input: UInt64, _ ratio: UInt64) -> Bool {
        let (allowed, overflow) = input.multipliedReportingOverflow(by: ratio)
        return !overflow && output > allowed
    }
}
