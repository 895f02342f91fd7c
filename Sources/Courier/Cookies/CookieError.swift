/// Why a `Set-Cookie` line or a cookie was ignored (RFC 6265bis §5.6, §5.7). A cookie that is
/// refused is dropped without affecting the request; the error says why, for logs and tests.
public struct CookieError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// A control character other than HTAB (NUL included) in the line (§5.6 step 1).
        case controlCharacter
        /// Neither a name nor a value (§5.6 step 5).
        case emptyNameAndValue
        /// Name and value together exceed 4096 bytes (§5.6 step 6, §6.1).
        case tooLarge
        /// Name or value bytes that are not UTF-8 (this library keeps cookies as strings).
        case notUTF8
        /// A Domain attribute with a non-ASCII character (§5.7 step 5).
        case nonASCIIDomain
        /// A Domain attribute naming a public suffix other than the request's host (§5.7 step 6).
        case publicSuffix
        /// A Domain attribute the request's host does not domain-match: another site (§5.7 step 7).
        case domainMismatch
        /// `Secure` from a request that was not `https` (§5.7 step 10).
        case secureFromInsecureOrigin
        /// A non-secure cookie from `http` that would shadow a secure one (§5.7 step 13).
        case overwritesSecureCookie
        /// `SameSite=None` without `Secure` (§5.7 step 16).
        case sameSiteNoneWithoutSecure
        /// A `__Secure-` name without `Secure` (§5.4, §5.7 step 17).
        case securePrefix
        /// A `__Host-` name without `Secure`, with a Domain attribute, or a path other than `/`
        /// (§5.4, §5.7 step 18).
        case hostPrefix
        /// A nameless cookie whose value starts with `__Secure-` or `__Host-` (§5.7 step 19).
        case prefixInNamelessValue
        /// The request's URL cannot hold cookies (a Unix-domain socket, no host).
        case unsupportedURL
        /// A cookie-file line that is not a cookie (Netscape format).
        case malformedLine
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String { "CookieError.\(reason.rawValue)" }
}
