import CourierClient

/// The `Cache-Control` directives of a request or response (RFC 9111 §5.2), parsed from network
/// bytes without trusting them.
///
/// Grammar (§5.2, RFC 9110 §5.6): `#cache-directive`, `cache-directive = token [ "=" ( token /
/// quoted-string ) ]`. Names are case-insensitive. The parser never traps and never loops on
/// hostile input: empty items, items without a name (`=`, `==`), unbalanced quotes and control
/// bytes are skipped; a comma inside a quoted string does not end the directive. Delta-seconds
/// (§1.2.2) saturate at 2^31; a value that is not all digits is invalid. When a directive
/// appears more than once, the first occurrence counts (§4.2.1 allows using the first).
public struct CacheControl: Sendable, Hashable {
    /// `max-age` (§5.2.1.1, §5.2.2.1): seconds, or `.invalid` for a malformed value (a response
    /// with an invalid max-age is treated as stale, §4.2.1).
    public var maxAge: Seconds?
    /// `max-stale` (§5.2.1.2): `.any` when it has no value.
    public var maxStale: Seconds?
    /// `min-fresh` (§5.2.1.3).
    public var minFresh: Seconds?
    /// `no-cache` (§5.2.1.4, §5.2.2.4): in a response, with or without field names (a private
    /// cache treats the qualified form as the unqualified one, validating every time).
    public var noCache = false
    /// `no-store` (§5.2.1.5, §5.2.2.5).
    public var noStore = false
    /// `only-if-cached` (§5.2.1.7).
    public var onlyIfCached = false
    /// `must-revalidate` (§5.2.2.2) or `proxy-revalidate` (§5.2.2.8, read the same way here).
    public var mustRevalidate = false
    /// `private` (§5.2.2.7): a private cache may store the response.
    public var isPrivate = false
    /// `public` (§5.2.2.9).
    public var isPublic = false
    /// `immutable` (RFC 8246).
    public var immutable = false

    /// A delta-seconds value.
    public enum Seconds: Sendable, Hashable {
        case seconds(Int)
        /// No value where one is optional (`max-stale`).
        case any
        /// A value that is not delta-seconds.
        case invalid

        /// The number of seconds, `Int.max` for ``any`` and nil for ``invalid``.
        public var value: Int? {
            switch self {
            case .seconds(let seconds): seconds
            case .any: Int.max
            case .invalid: nil
            }
        }
    }

    /// The largest delta-seconds value kept; larger ones saturate to it (§1.2.2).
    public static let maximumSeconds = 2_147_483_648
    /// More directives than this in one message are ignored (bounded work per message).
    public static let maximumDirectives = 64

    public init() {}

    /// Parses every `Cache-Control` field line of `fields`.
    public init(_ fields: HTTPFields) {
        self.init()
        var seen = 0
        for field in fields where field.name.utf8.count == 13 && field.name.lowercased() == "cache-control" {
            parse(field.valueBytes[...], seen: &seen)
        }
    }

    /// Parses one field value.
    public init(parsing value: some Collection<UInt8>) {
        self.init()
        var seen = 0
        parse(ArraySlice(value), seen: &seen)
    }

    /// Calls `body` with each directive's lowercased name and unquoted argument ("" for none),
    /// in order, at most ``maximumDirectives`` of them.
    public static func forEachDirective(in value: some Collection<UInt8>, _ body: (String, String) -> Void) {
        var seen = 0
        forEachDirective(in: ArraySlice(value), seen: &seen, body)
    }

    // The byte loops work on one concrete type (a generic one would be unspecialised when called
    // from another module, and slow).
    private mutating func parse(_ value: ArraySlice<UInt8>, seen: inout Int) {
        Self.forEachDirective(in: value, seen: &seen) { name, argument in
            switch name {
            case "max-age": if maxAge == nil { maxAge = Self.seconds(argument, optional: false) }
            case "max-stale": if maxStale == nil { maxStale = Self.seconds(argument, optional: true) }
            case "min-fresh": if minFresh == nil { minFresh = Self.seconds(argument, optional: false) }
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "only-if-cached": onlyIfCached = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "immutable": immutable = true
            default: break
            }
        }
    }

    private static func forEachDirective(in value: ArraySlice<UInt8>, seen: inout Int, _ body: (String, String) -> Void) {
        var index = value.startIndex
        while index != value.endIndex, seen < maximumDirectives {
            // The name: a token, after optional whitespace and commas.
            while index != value.endIndex, value[index] == UInt8(ascii: " ") || value[index] == UInt8(ascii: "\t") || value[index] == UInt8(ascii: ",") {
                index = value.index(after: index)
            }
            var name: [UInt8] = []
            while index != value.endIndex, isToken(value[index]) {
                if name.count < 64 { name.append(lowercase(value[index])) }
                index = value.index(after: index)
            }
            index = skipWhitespace(value, index)
            var argument: [UInt8] = []
            var valid = !name.isEmpty
            if index != value.endIndex, value[index] == UInt8(ascii: "=") {
                index = skipWhitespace(value, value.index(after: index))
                if index != value.endIndex, value[index] == UInt8(ascii: "\"") {
                    // quoted-string: qdtext and quoted-pairs up to the closing quote.
                    index = value.index(after: index)
                    var closed = false
                    while index != value.endIndex {
                        let byte = value[index]
                        index = value.index(after: index)
                        if byte == UInt8(ascii: "\"") { closed = true; break }
                        if byte == UInt8(ascii: "\\"), index != value.endIndex {
                            if argument.count < 1024 { argument.append(value[index]) }
                            index = value.index(after: index)
                            continue
                        }
                        if argument.count < 1024 { argument.append(byte) }
                    }
                    if !closed { valid = false }
                } else {
                    while index != value.endIndex, isToken(value[index]) {
                        if argument.count < 1024 { argument.append(value[index]) }
                        index = value.index(after: index)
                    }
                }
                index = skipWhitespace(value, index)
            }
            // Anything else up to the next comma makes the directive malformed: skipped.
            if index != value.endIndex, value[index] != UInt8(ascii: ",") {
                valid = false
                var quoted = false
                var escaped = false
                while index != value.endIndex, quoted || value[index] != UInt8(ascii: ",") {
                    let byte = value[index]
                    if quoted {
                        if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { quoted = false }
                    } else if byte == UInt8(ascii: "\"") {
                        quoted = true
                    }
                    index = value.index(after: index)
                }
            }
            guard valid else { continue }
            seen += 1
            body(String(decoding: name, as: UTF8.self), String(decoding: argument, as: UTF8.self))
        }
    }

    /// delta-seconds: 1*DIGIT, saturating; "" is `.any` where the value is optional.
    static func seconds(_ text: String, optional: Bool) -> Seconds {
        if text.isEmpty { return optional ? .any : .invalid }
        var total = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return .invalid }
            total = min(maximumSeconds, total * 10 + Int(byte - UInt8(ascii: "0")))
        }
        return .seconds(total)
    }

    private static func skipWhitespace(_ value: ArraySlice<UInt8>, _ start: Int) -> Int {
        var index = start
        while index != value.endIndex, value[index] == UInt8(ascii: " ") || value[index] == UInt8(ascii: "\t") {
            index = value.index(after: index)
        }
        return index
    }

    /// tchar (RFC 9110 §5.6.2).
    static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"),
             UInt8(ascii: "~"): true
        default: false
        }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
