/// A string was refused as an ``HTTPURL``, or a reference could not be resolved against one.
///
/// Every refusal names its class, so a caller can tell "this would have injected bytes into the
/// request" (``Reason/controlCharacter``, ``Reason/space``, ``Reason/nonASCII``) from "this is
/// not an http URL" (``Reason/unsupportedScheme``).
public struct HTTPURLError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// The string is empty.
        case empty
        /// CR, LF, NUL, another C0 control, or DEL (RFC 3986 §2: never allowed in a URI).
        case controlCharacter
        /// A space. Callers must percent-encode it as `%20` (RFC 3986 §2.1).
        case space
        /// A byte outside US-ASCII. Callers must percent-encode it (RFC 3986 §2.1); IDNA host
        /// names are not supported.
        case nonASCII
        /// A `%` not followed by two hex digits (RFC 3986 §2.1).
        case invalidPercentEncoding
        /// No `scheme ":"` at the start: the string is a relative reference.
        case missingScheme
        /// A scheme other than `http`, `https` or `http+unix`.
        case unsupportedScheme
        /// The scheme is not followed by `//` and an authority (e.g. `http:foo`).
        case missingAuthority
        /// The user information has a byte outside `unreserved / pct-encoded / sub-delims / ":"`
        /// (RFC 3986 §3.2.1), such as a second `@`, or does not decode to UTF-8.
        case invalidUserInfo
        /// The host is empty (`http:///`, `http://user@/`, `http://:80/`).
        case emptyHost
        /// The host has a byte outside `unreserved / sub-delims` (RFC 3986 §3.2.2).
        case invalidHost
        /// The host is percent-encoded. Percent-encoded and internationalised host names are not
        /// supported; pass the A-label (`xn--…`) form.
        case percentEncodedHostNotSupported
        /// The host looks numeric but is not a dotted-quad IPv4 address with four decimal
        /// octets 0–255 and no leading zeros. `127.1`, `0x7f.0.0.1` and `0177.0.0.1` are refused
        /// because `inet_aton` and browsers would read them as addresses different from what
        /// the text seems to say.
        case invalidIPv4Address
        /// The text between `[` and `]` is not an IPv6 address, the `]` is missing, or it is an
        /// `IPvFuture` literal.
        case invalidIPv6Address
        /// An IPv6 literal carries a zone ID (`[fe80::1%25eth0]`, RFC 6874): not supported.
        case zoneIDNotSupported
        /// The port is not decimal digits, is 0, or is above 65535.
        case invalidPort
        /// An `http+unix` host does not decode to a usable socket path (empty, NUL or another
        /// control byte, or not UTF-8), or an `http+unix` URL has a port.
        case invalidUnixSocketPath
        /// A query given to ``HTTPURL/appendingQuery(_:)`` has a `#`, which would start a
        /// fragment and cut the query short (RFC 3986 §3.4).
        case numberSignInQuery
    }

    public let reason: Reason
    /// The refused string, with control and non-ASCII bytes escaped and any user information
    /// (credentials, RFC 3986 §3.2.1) replaced by `***`, so it is safe to log.
    public let input: String

    public init(reason: Reason, input: String) {
        self.reason = reason
        self.input = HTTPURLError.loggable(input)
    }

    /// `s` with user information redacted and control and non-ASCII bytes escaped.
    static func loggable(_ s: String) -> String { escaped(UserInfoRedaction.redactingText(s)) }

    public var description: String { "HTTPURLError.\(reason.rawValue): \"\(input)\"" }

    /// `\r`, `\n`, `\0`, and `\u{XX}` for other controls, DEL and non-ASCII scalars.
    static func escaped(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\0": out += "\\0"
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            default:
                if scalar.value < 0x20 || scalar.value >= 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
