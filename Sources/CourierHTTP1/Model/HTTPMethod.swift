/// A request method (RFC 9110 §9). Any token is allowed; the common ones have constants.
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    /// The method as sent on the wire, case-sensitive (RFC 9110 §9.1).
    public let rawValue: String

    /// Creates a method, or fails when `rawValue` is empty or not a token (RFC 9110 §5.6.2).
    public init?(_ rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.allSatisfy(ByteClass.isToken) else { return nil }
        self.rawValue = rawValue
    }

    private init(known: String) { self.rawValue = known }

    public static let GET = HTTPMethod(known: "GET")
    public static let HEAD = HTTPMethod(known: "HEAD")
    public static let POST = HTTPMethod(known: "POST")
    public static let PUT = HTTPMethod(known: "PUT")
    public static let PATCH = HTTPMethod(known: "PATCH")
    public static let DELETE = HTTPMethod(known: "DELETE")
    public static let OPTIONS = HTTPMethod(known: "OPTIONS")
    public static let TRACE = HTTPMethod(known: "TRACE")
    public static let CONNECT = HTTPMethod(known: "CONNECT")

    /// Whether the method is idempotent (RFC 9110 §9.2.2), which makes an automatic retry safe.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": return true
        default: return false
        }
    }

    public var description: String { rawValue }
}
