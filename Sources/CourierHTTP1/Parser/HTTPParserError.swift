/// A typed parse failure with the byte offset in the message stream where it was detected.
///
/// Offsets count from the first byte the parser was ever fed, so the same input gives the same
/// error and offset whether it arrives whole, split, or one byte at a time.
public struct HTTPParserError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        // Start line (RFC 9112 §3, §4).
        case invalidVersion
        case unsupportedVersion
        case invalidStatusCode
        case invalidReasonPhrase
        case invalidMethod
        case invalidRequestTarget
        // Field lines (RFC 9112 §5, RFC 9110 §5).
        case invalidFieldName
        case whitespaceBeforeColon
        case invalidFieldValue
        case obsFold
        case bareLF
        case missingLF
        // Framing (RFC 9112 §6).
        case invalidContentLength
        case conflictingContentLength
        case contentLengthWithTransferEncoding
        case invalidTransferEncoding
        case chunkedNotFinal
        case unsupportedTransferCoding
        case transferEncodingInHTTP10
        // Chunked coding (RFC 9112 §7.1).
        case invalidChunkSize
        case invalidChunkExtension
        case invalidChunkTerminator
        case chunkFlood
        // Limits.
        case headerBlockTooLarge
        case tooManyFields
        case chunkSizeTooManyDigits
        case chunkSizeOverflow
        case chunkExtensionTooLong
        case bodyTooLarge
        // Stream.
        case truncatedMessage
    }

    public let code: Code
    /// Byte offset from the start of the stream where the problem was detected.
    public let offset: Int

    public init(_ code: Code, offset: Int) {
        self.code = code
        self.offset = offset
    }

    public var description: String { "HTTPParserError.\(code.rawValue) at byte \(offset)" }
}
