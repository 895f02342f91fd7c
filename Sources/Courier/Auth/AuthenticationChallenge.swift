import CourierClient
import FoundationEssentials

/// A user name and password for HTTP authentication (`NSURLCredential`).
public struct Credential: Sendable, Hashable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// A 401 (or 407) response asking for credentials (`NSURLAuthenticationChallenge`,
/// RFC 9110 §11.6).
public struct AuthenticationChallenge: Sendable {
    /// The scheme of the first challenge in WWW-Authenticate (or Proxy-Authenticate), e.g. `Basic`.
    public var scheme: String
    /// Its `realm` parameter, if any (RFC 9110 §11.5).
    public var realm: String?
    public var host: String
    public var port: Int
    /// Whether the proxy asked (407) rather than the origin (401).
    public var isProxy: Bool
    /// How many credentials were already refused for this task.
    public var previousFailureCount: Int
    /// The response that carried the challenge.
    public var failureResponse: Response

    /// Parses the challenge of a 401/407 response; nil when the response has none.
    static func parse(_ response: Response, previousFailureCount: Int) -> AuthenticationChallenge? {
        let isProxy = response.statusCode == 407
        guard response.statusCode == 401 || isProxy,
              let value = response.headers[first: isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"] else { return nil }
        let trimmed = value.trimmingOWS
        let scheme = String(trimmed.prefix(while: { $0 != " " && $0 != "," }))
        guard !scheme.isEmpty else { return nil }
        return AuthenticationChallenge(
            scheme: scheme, realm: Self.realm(in: trimmed), host: response.httpURL?.host ?? "",
            port: response.httpURL?.port ?? 80, isProxy: isProxy,
            previousFailureCount: previousFailureCount, failureResponse: response)
    }

    /// The `realm="…"` (or token) parameter of a challenge.
    static func realm(in challenge: String) -> String? {
        let bytes = Array(challenge.utf8)
        let needle = Array("realm=".utf8)
        guard bytes.count >= needle.count,
              let start = (0...(bytes.count - needle.count)).first(where: { index in
                  zip(bytes[index...], needle).allSatisfy { pair in pair.0 | 0x20 == pair.1 | 0x20 }
              }) else { return nil }
        let rest = Substring(decoding: bytes[(start + needle.count)...], as: UTF8.self)
        if rest.hasPrefix("\"") {
            var realm = ""
            var escaped = false
            for character in rest.dropFirst() {
                if escaped { realm.append(character); escaped = false }
                else if character == "\\" { escaped = true }
                else if character == "\"" { return realm }
                else { realm.append(character) }
            }
            return nil
        }
        let token = rest.prefix(while: { $0 != "," && $0 != " " })
        return token.isEmpty ? nil : String(token)
    }
}

/// The answer to an ``AuthenticationChallenge`` (`NSURLSessionAuthChallengeDisposition`).
public enum AuthenticationChallengeDisposition: Sendable {
    /// Send the request again with these credentials (Basic, RFC 7617). Only the `Basic` scheme
    /// can be answered; for others this behaves as ``performDefaultHandling``.
    case useCredential(Credential)
    /// No credentials: complete with the 401/407 response.
    case performDefaultHandling
    /// Cancel the task.
    case cancel
}
