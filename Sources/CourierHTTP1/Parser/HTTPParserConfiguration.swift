/// Limits and opt-in leniencies for the HTTP/1.1 parsers.
///
/// Every limit overflow is its own ``HTTPParserError/Code``. Every leniency is off by default and
/// relaxes exactly one rule.
public struct HTTPParserConfiguration: Hashable, Sendable {
    /// Maximum bytes in the start line plus all field lines and the blank line (default 64 KiB).
    /// Also applies to a chunked body's trailer section.
    public var maxHeaderBytes: Int = 64 * 1024
    /// Maximum number of field lines in a header or trailer section (default 256).
    public var maxFieldCount: Int = 256
    /// Maximum hex digits in a chunk size, leading zeros included (default 16: a full 64-bit value).
    public var maxChunkSizeDigits: Int = 16
    /// Maximum bytes of chunk extensions on one chunk-size line (default 4 KiB).
    public var maxChunkExtensionBytes: Int = 4 * 1024
    /// Maximum body bytes (after chunked decoding), or nil for no limit (default).
    public var maxBodyBytes: UInt64? = nil
    /// Tiny-chunk amplification guard: after this many chunks, the mean chunk payload must be
    /// at least ``minimumMeanChunkBytes`` (default 1,024 chunks).
    public var chunkFloodThreshold: Int = 1024
    /// The mean payload per chunk required once ``chunkFloodThreshold`` chunks were seen (default 8).
    public var minimumMeanChunkBytes: Int = 8

    /// Opt-in leniency: unfold obs-fold continuation lines into one SP-joined value
    /// (RFC 9112 §5.2) instead of rejecting them. A continuation of Content-Length,
    /// Transfer-Encoding or Connection is still refused, because the framing is read from the
    /// field's first line.
    public var allowObsFold: Bool = false
    /// Opt-in leniency: accept a bare LF as a line terminator (RFC 9112 §2.2 permits it, but it
    /// is a request-smuggling vector, so it is refused by default).
    public var allowBareLF: Bool = false
    /// Opt-in leniency: when both Content-Length and Transfer-Encoding: chunked are present, frame
    /// by chunked and ignore Content-Length (RFC 9112 §6.3 ¶3) instead of failing. The connection
    /// is still marked as not reusable.
    public var allowContentLengthWithTransferEncoding: Bool = false

    public init() {}

    /// The defaults.
    public static let `default` = HTTPParserConfiguration()
}
