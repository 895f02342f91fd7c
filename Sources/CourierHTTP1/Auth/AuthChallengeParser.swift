extension AuthChallenge {
    /// Parses the challenges of one `WWW-Authenticate` or `Proxy-Authenticate` field value
    /// (RFC 9110 §11.6.1, §11.7.1):
    ///
    /// ```
    /// WWW-Authenticate = #challenge
    /// challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
    /// auth-param = token BWS "=" BWS ( token / quoted-string )
    /// token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    /// ```
    ///
    /// A field may hold several challenges, and empty list elements are skipped (RFC 9110
    /// §5.6.1.2). After a comma, a token followed by `=` continues the current challenge's
    /// parameters; a token followed by anything else starts the next challenge.
    ///
    /// - Throws: ``AuthChallengeError`` at the first byte no production allows; nothing of a
    ///   malformed field is returned.
    public static func parse(_ value: some Collection<UInt8>) throws(AuthChallengeError) -> [AuthChallenge] {
        var parser = AuthChallengeParser(bytes: Array(value))
        return try parser.challenges()
    }

    /// The challenges of every field value, in field order (RFC 9110 §5.3: several fields are
    /// one list). A malformed field is skipped; the others still count.
    public static func parse(fields: [[UInt8]]) -> [AuthChallenge] {
        fields.flatMap { (try? parse($0)) ?? [] }
    }
}

/// The parser behind ``AuthChallenge/parse(_:)``: a cursor over the field's bytes.
struct AuthChallengeParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private static let comma = UInt8(ascii: ","), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

    private var atEnd: Bool { index >= bytes.count }
    private var current: UInt8? { atEnd ? nil : bytes[index] }

    private func error(_ reason: AuthChallengeError.Reason) -> AuthChallengeError {
        AuthChallengeError(reason: reason, offset: index)
    }

    private mutating func skipWhitespace() {
        while let byte = current, ByteClass.isWhitespace(byte) { index += 1 }
    }

    /// Skips OWS and commas: empty list elements (RFC 9110 §5.6.1.2).
    private mutating func skipListSeparators() {
        while let byte = current, ByteClass.isWhitespace(byte) || byte == Self.comma { index += 1 }
    }

    private mutating func token() -> String? {
        let start = index
        while let byte = current, ByteClass.isToken(byte) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    mutating func challenges() throws(AuthChallengeError) -> [AuthChallenge] {
        var result: [AuthChallenge] = []
        skipListSeparators()
        while !atEnd {
            guard let scheme = token() else { throw error(.missingScheme) }
            result.append(try challenge(scheme: scheme))
            skipListSeparators()
        }
        return result
    }

    /// What follows an auth-scheme, up to the start of the next challenge or the end.
    private mutating func challenge(scheme: String) throws(AuthChallengeError) -> AuthChallenge {
        guard let byte = current, byte != Self.comma else { return AuthChallenge(scheme: scheme) }
        // `1*SP` separates the scheme from its data.
        guard byte == UInt8(ascii: " ") else { throw error(.unexpectedByte) }
        skipWhitespace()
        if atEnd || current == Self.comma { return AuthChallenge(scheme: scheme) }
        if let token68 = token68() { return AuthChallenge(scheme: scheme, token68: token68) }
        var parameters: [AuthParameter] = []
        while true {
            let start = index
            guard let name = token() else { throw error(.unexpectedByte) }
            skipWhitespace()
            guard current == Self.equals else {
                // Not a parameter: the next challenge's scheme (only after a comma).
                guard !parameters.isEmpty else { throw error(.unexpectedByte) }
                index = start
                return AuthChallenge(scheme: scheme, parameters: parameters)
            }
            index += 1
            skipWhitespace()
            let value = try parameterValue()
            if parameters.contains(where: { AuthChallenge.equalIgnoringCase($0.name, name) }) {
                index = start
                throw error(.repeatedParameter)
            }
            parameters.append(AuthParameter(name: name, valueBytes: value))
            skipWhitespace()
            guard !atEnd else { break }
            guard current == Self.comma else { throw error(.unexpectedByte) }
            skipListSeparators()
            guard !atEnd else { break }
        }
        return AuthChallenge(scheme: scheme, parameters: parameters)
    }

    /// A token68 that makes up the whole of the challenge's data, or nil (the cursor unmoved).
    private mutating func token68() -> String? {
        let start = index
        func isToken68(_ b: UInt8) -> Bool {
            URIGrammar.isUnreserved(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "/")
        }
        while let byte = current, isToken68(byte) { index += 1 }
        guard index > start else { return nil }
        while current == Self.equals { index += 1 }
        let end = index
        skipWhitespace()
        // Only a token68 when nothing but the end of the challenge follows.
        guard atEnd || current == Self.comma else {
            index = start
            return nil
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `token / quoted-string` (RFC 9110 §5.6.2, §5.6.4), unquoted.
    private mutating func parameterValue() throws(AuthChallengeError) -> [UInt8] {
        guard current == Self.quote else {
            let start = index
            while let byte = current, ByteClass.isToken(byte) { index += 1 }
            guard index > start else { throw error(.missingValue) }
            return Array(bytes[start..<index])
        }
        index += 1
        var value: [UInt8] = []
        while let byte = current {
            index += 1
            switch byte {
            case Self.quote:
                return value
            case Self.backslash:
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard let escaped = current, ByteClass.isFieldValue(escaped) else {
                    if atEnd { throw error(.unterminatedQuotedString) }
                    throw error(.unexpectedByte)
                }
                value.append(escaped)
                index += 1
            default:
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                guard ByteClass.isFieldValue(byte) else {
                    index -= 1
                    throw error(.unexpectedByte)
                }
                value.append(byte)
            }
        }
        throw error(.unterminatedQuotedString)
    }
}
