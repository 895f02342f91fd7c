/// A compressed body could not be decoded, or decoding it crossed a limit.
public struct ContentDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// The stream is not valid gzip or deflate (bad header, bad data, bad checksum).
        case corruptStream
        /// The body ended before the compressed stream did.
        case truncatedStream
        /// Bytes followed the end of a zlib or raw deflate stream.
        case trailingData
        /// Decoded output passed ``ContentDecoderLimits/maxDecodedBytes``.
        case decodedSizeLimit
        /// Decoded output passed ``ContentDecoderLimits/maxRatio`` times the input after the
        /// first ``ContentDecoderLimits/ratioGraceBytes`` (a decompression bomb).
        case compressionRatioLimit
        /// zlib could not be set up (out of memory).
        case zlibFailure
    }

    public let reason: Reason
    /// Compressed bytes consumed by the layer that failed when the failure was detected.
    public let inputOffset: UInt64

    public init(_ reason: Reason, inputOffset: UInt64) {
        self.reason = reason
        self.inputOffset = inputOffset
    }

    public var description: String { "ContentDecodingError.\(reason.rawValue) after \(inputOffset) input bytes" }
}

/// Limits on decoded output (DESIGN.md: fail past a ratio of 100:1 once output exceeds 1 MiB).
public struct ContentDecoderLimits: Hashable, Sendable {
    /// The most decoded bytes a body may produce, or nil for no limit (default).
    public var maxDecodedBytes: UInt64? = nil
    /// The most decoded bytes per compressed byte, checked once past ``ratioGraceBytes`` (default 100).
    public var maxRatio: UInt64 = 100
    /// Output below this size is never judged by ratio (default 1 MiB).
    public var ratioGraceBytes: UInt64 = 1 << 20

    public init() {}

    public static let `default` = ContentDecoderLimits()
}
