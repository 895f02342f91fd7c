/// Credentials refused by ``basicAuthorizationValue(username:password:)``.
public struct BasicAuthorizationError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// The user-id contains `:`, which would move the split between user-id and password
        /// (RFC 7617 §2).
        case colonInUsername
        /// The user-id contains a control character (RFC 7617 §2: CTL is not allowed).
        case controlCharacterInUsername
        /// The password contains a control character (RFC 7617 §2: CTL is not allowed).
        case controlCharacterInPassword
    }

    public let reason: Reason

    public init(reason: Reason) { self.reason = reason }

    /// Names the problem only; the credentials themselves are never part of the message.
    public var description: String { "BasicAuthorizationError.\(reason.rawValue)" }
}

/// The value of an `Authorization` or `Proxy-Authorization` field for the Basic scheme
/// (RFC 7617 §2): `Basic ` followed by the base64 (RFC 4648 §4) of the UTF-8 bytes of
/// `user-id ":" password` (the `charset="UTF-8"` of §2.1, which is what servers expect today).
///
/// - Throws: ``BasicAuthorizationError`` when the user-id contains `:` or a control character,
///   or the password contains a control character (CTL = 0x00–0x1F and 0x7F, RFC 5234 B.1).
public func basicAuthorizationValue(username: String, password: String) throws(BasicAuthorizationError) -> String {
    func isControl(_ b: UInt8) -> Bool { b < 0x20 || b == 0x7F }
    if username.utf8.contains(where: isControl) { throw BasicAuthorizationError(reason: .controlCharacterInUsername) }
    if username.utf8.contains(UInt8(ascii: ":")) { throw BasicAuthorizationError(reason: .colonInUsername) }
    if password.utf8.contains(where: isControl) { throw BasicAuthorizationError(reason: .controlCharacterInPassword) }
    return "Basic " + Base64.encode(Array(username.utf8) + [UInt8(ascii: ":")] + Array(password.utf8))
}
