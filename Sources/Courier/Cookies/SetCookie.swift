import FoundationEssentials

/// One `Set-Cookie` field value parsed as RFC 6265bis §5.6 says, before the storage model
/// (§5.7) judges it against the request's URL. Parsing is strict where the RFC tells a user agent
/// to ignore the whole line (control characters, an empty name and value, more than 4096 bytes
/// of name and value) and ignores single attributes the way it says (a value over 1024 bytes,
/// an unparsable date, an empty Domain, a bad Max-Age). The last of each attribute counts.
public struct SetCookie: Hashable, Sendable {
    public var name: String
    public var value: String
    /// The last valid `Expires` (§5.6.1), by the cookie-date algorithm (§5.1.1).
    public var expires: Date?
    /// The last valid `Max-Age` in seconds (§5.6.2), saturated; ≤ 0 means already expired. It wins
    /// over ``expires`` (§5.7 step 3).
    public var maxAge: Int64?
    /// The last non-empty `Domain`, lowercase, its leading dot removed (§5.6.3).
    public var domain: String?
    /// The last `Path`'s value (§5.6.4); nil without one. An empty value or one not starting with
    /// `/` stands for the default path.
    public var path: String?
    public var isSecure = false
    public var isHTTPOnly = false
    public var sameSite: Cookie.SameSite = .default

    /// Largest name plus value (§5.6 step 6, §6.1).
    public static let maximumNameValueBytes = 4096
    /// Largest attribute value (§5.6 step 7.5).
    public static let maximumAttributeValueBytes = 1024

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses one `Set-Cookie` field value (§5.6).
    ///
    /// - Throws: ``CookieError`` with `controlCharacter`, `emptyNameAndValue`, `tooLarge` or
    ///   `notUTF8`: the whole line is ignored.
    public static func parse(_ line: some Collection<UInt8>) throws(CookieError) -> SetCookie {
        let bytes = Array(line)
        // Step 1: CTLs other than HTAB refuse the line.
        if bytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) { throw CookieError(.controlCharacter) }
        let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        let pair = bytes[..<semicolon]
        let name: ArraySlice<UInt8>
        let value: ArraySlice<UInt8>
        if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
            name = trimmed(pair[..<equals])
            value = trimmed(pair[(equals + 1)...])
        } else {
            name = []
            value = trimmed(pair)
        }
        if name.isEmpty, value.isEmpty { throw CookieError(.emptyNameAndValue) }
        if name.count + value.count > maximumNameValueBytes { throw CookieError(.tooLarge) }
        guard let nameString = utf8(name), let valueString = utf8(value) else { throw CookieError(.notUTF8) }
        var cookie = SetCookie(name: nameString, value: valueString)
        var rest = bytes[semicolon...]
        while !rest.isEmpty {
            rest = rest.dropFirst()  // the ";"
            let end = rest.firstIndex(of: UInt8(ascii: ";")) ?? rest.endIndex
            cookie.apply(attribute: rest[..<end])
            rest = rest[end...]
        }
        return cookie
    }

    /// Parses a `Set-Cookie` value given as a string.
    public static func parse(_ line: String) throws(CookieError) -> SetCookie { try parse(Array(line.utf8)) }

    /// One cookie-av (§5.6 step 7 and §5.6.1–§5.6.7).
    mutating func apply(attribute av: ArraySlice<UInt8>) {
        let name: ArraySlice<UInt8>
        let value: ArraySlice<UInt8>
        if let equals = av.firstIndex(of: UInt8(ascii: "=")) {
            name = Self.trimmed(av[..<equals])
            value = Self.trimmed(av[(equals + 1)...])
        } else {
            name = Self.trimmed(av)
            value = []
        }
        guard value.count <= Self.maximumAttributeValueBytes else { return }
        switch Self.lowercased(name) {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            if let seconds = Self.maxAge(value) { maxAge = seconds }
        case "domain":
            guard !value.isEmpty else { return }
            var domain = value
            if domain.first == UInt8(ascii: ".") { domain = domain.dropFirst() }
            // Non-ASCII is kept, for the storage model to refuse the cookie (§5.7 step 5).
            self.domain = String(decoding: domain.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        case "path":
            path = String(decoding: value, as: UTF8.self)
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            switch Self.lowercased(value) {
            case "none": sameSite = .none
            case "strict": sameSite = .strict
            case "lax": sameSite = .lax
            default: sameSite = .default
            }
        default:
            break
        }
    }

    /// Max-Age's value (§5.6.2): `-`? DIGIT+, saturated at Int64's range; nil when invalid.
    static func maxAge(_ value: ArraySlice<UInt8>) -> Int64? {
        guard let first = value.first, first == UInt8(ascii: "-") || isDigit(first) else { return nil }
        let negative = first == UInt8(ascii: "-")
        let digits = negative ? value.dropFirst() : value
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        var number: Int64 = 0
        for digit in digits {
            let (times10, o1) = number.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(digit - 0x30))
            if o1 || o2 { number = .max; break }
            number = sum
        }
        return negative ? -number : number
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Without leading and trailing SP and HTAB (WSP).
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The bytes as a string, nil when they are not UTF-8.
    static func utf8(_ bytes: ArraySlice<UInt8>) -> String? {
        String(validating: bytes, as: UTF8.self)
    }
}
