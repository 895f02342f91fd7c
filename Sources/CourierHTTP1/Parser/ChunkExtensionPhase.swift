/// Where a chunk-size line is inside its chunk extensions, checked one byte at a time against
/// RFC 9112 §7.1.1:
///
/// ```
/// chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
/// chunk-ext-name = token
/// chunk-ext-val  = token / quoted-string
/// ```
///
/// with `quoted-string` and `quoted-pair` of RFC 9110 §5.6.4. A phase is entered after the
/// first `;`. Anything outside the grammar (an empty name, `=` without a value, an unterminated
/// quoted string, whitespace inside a name or at the end of the line, controls, obs-text outside
/// quotes) is refused: parsers that disagree on where a chunk line ends are a request-smuggling
/// vector. Only the line ending (CR or LF) is the decoder's; ``mayEndLine`` says whether it may
/// come now.
enum ChunkExtensionPhase: UInt8, Sendable {
    /// After `;`, before the name (BWS allowed).
    case beforeName
    /// Inside the name.
    case name
    /// After the name and BWS, before `=` or the next `;`.
    case afterName
    /// After `=`, before the value (BWS allowed).
    case beforeValue
    /// Inside a token value.
    case token
    /// Inside a quoted-string value.
    case quoted
    /// After a backslash inside a quoted string.
    case quotedPair
    /// Right after a quoted string's closing quote.
    case afterQuote
    /// After a value and BWS, before the next `;`.
    case afterValue

    /// Whether the line may end (CR or LF) in this phase: after a name or a whole value.
    @inline(__always)
    var mayEndLine: Bool {
        switch self {
        case .name, .token, .afterQuote: return true
        default: return false
        }
    }

    /// The phase after `byte` (not CR or LF), or nil when the byte breaks the grammar.
    @inline(__always)
    func next(_ byte: UInt8) -> ChunkExtensionPhase? {
        let semicolon = UInt8(ascii: ";")
        switch self {
        case .beforeName:
            if ByteClass.isWhitespace(byte) { return .beforeName }
            return ByteClass.isToken(byte) ? .name : nil
        case .name, .afterName:
            if self == .name && ByteClass.isToken(byte) { return .name }
            if ByteClass.isWhitespace(byte) { return .afterName }
            if byte == UInt8(ascii: "=") { return .beforeValue }
            return byte == semicolon ? .beforeName : nil
        case .beforeValue:
            if ByteClass.isWhitespace(byte) { return .beforeValue }
            if byte == UInt8(ascii: "\"") { return .quoted }
            return ByteClass.isToken(byte) ? .token : nil
        case .token, .afterQuote, .afterValue:
            if self == .token && ByteClass.isToken(byte) { return .token }
            if ByteClass.isWhitespace(byte) { return .afterValue }
            return byte == semicolon ? .beforeName : nil
        case .quoted:
            // qdtext is HTAB, SP, VCHAR except DQUOTE and backslash, and obs-text.
            if byte == UInt8(ascii: "\"") { return .afterQuote }
            if byte == UInt8(ascii: "\\") { return .quotedPair }
            return ByteClass.isFieldValue(byte) ? .quoted : nil
        case .quotedPair:
            // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
            return ByteClass.isFieldValue(byte) ? .quoted : nil
        }
    }
}
