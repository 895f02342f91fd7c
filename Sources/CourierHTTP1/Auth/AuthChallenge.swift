/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field (RFC 9110 §11.6.1,
/// §11.3): an auth-scheme followed by a token68 or by a list of auth-params.
public struct AuthChallenge: Hashable, Sendable, CustomStringConvertible {
    /// The auth-scheme as sent (`Basic`, `Digest`). Schemes compare case-insensitively
    /// (RFC 9110 §11.1): use ``hasScheme(_:)``.
    public let scheme: String
    /// The token68 form of the challenge's data (RFC 9110 §11.2), when it has one.
    public let token68: String?
    /// The auth-params in the order sent, values unquoted (RFC 9110 §5.6.4). Names are unique
    /// within a challenge (RFC 9110 §11.2); the parser refuses a repeated one.
    public let parameters: [AuthParameter]

    public init(scheme: String, token68: String? = nil, parameters: [AuthParameter] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// Whether the auth-scheme is `name`, compared case-insensitively (RFC 9110 §11.1).
    public func hasScheme(_ name: String) -> Bool { AuthChallenge.equalIgnoringCase(scheme, name) }

    /// The parameter called `name` (case-insensitive, RFC 9110 §11.2), or nil.
    public subscript(parameter name: String) -> AuthParameter? {
        parameters.first { AuthChallenge.equalIgnoringCase($0.name, name) }
    }

    /// The scheme and its parameter names (never their values, which may be secrets).
    public var description: String {
        "\(scheme)(\(parameters.map(\.name).joined(separator: ", ")))"
    }

    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { ByteClass.lower($0) == ByteClass.lower($1) }
    }
}

/// One auth-param (RFC 9110 §11.2): `token BWS "=" BWS ( token / quoted-string )`.
public struct AuthParameter: Hashable, Sendable {
    /// The parameter name as sent (compare case-insensitively).
    public let name: String
    /// The value's exact bytes, with a quoted-string's quotes and quoted-pair backslashes
    /// removed (RFC 9110 §5.6.4). obs-text bytes are kept as they are.
    public let valueBytes: [UInt8]

    public init(name: String, valueBytes: [UInt8]) {
        self.name = name
        self.valueBytes = valueBytes
    }

    public init(name: String, value: String) { self.init(name: name, valueBytes: Array(value.utf8)) }

    /// The value as text (UTF-8; invalid sequences are replaced).
    public var value: String { String(decoding: valueBytes, as: UTF8.self) }
}

/// A `WWW-Authenticate` or `Proxy-Authenticate` field value that does not follow RFC 9110
/// §11.6.1. `offset` is the byte where parsing stopped.
public struct AuthChallengeError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// A challenge must start with an auth-scheme token.
        case missingScheme
        /// A byte that no production allows at this place.
        case unexpectedByte
        /// A quoted-string without its closing `"`.
        case unterminatedQuotedString
        /// An auth-param with no value after `=`.
        case missingValue
        /// The same parameter name twice in one challenge (RFC 9110 §11.2).
        case repeatedParameter
    }

    public let reason: Reason
    public let offset: Int

    public init(reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "AuthChallengeError.\(reason.rawValue) at byte \(offset)" }
}
