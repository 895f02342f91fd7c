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
///
/// A response may offer several challenges, in one `WWW-Authenticate` field or in several
/// (RFC 9110 §11.6.1); ``offered`` holds them all. ``scheme`` and ``realm`` are those of the one
/// Courier answers when the hook returns ``AuthenticationChallengeDisposition/useCredential(_:)``
/// (``answered``): Digest (RFC 7616) with the strongest algorithm it computes (SHA-512-256, then
/// SHA-256, then MD5), else Basic (RFC 7617), else the first offered (which Courier cannot
/// answer: a credential for it fails the task).
public struct AuthenticationChallenge: Sendable {
    /// The scheme of ``answered``, e.g. `Digest` or `Basic`.
    public var scheme: String
    /// Its `realm` parameter, if any (RFC 9110 §11.5).
    public var realm: String?
    /// The challenge a credential answers.
    public var answered: AuthChallenge
    /// Every challenge of the response, in field order (RFC 9110 §11.6.1).
    public var offered: [AuthChallenge]
    public var host: String
    public var port: Int
    /// Whether the proxy asked (407) rather than the origin (401).
    public var isProxy: Bool
    /// How many credentials were already refused for this task.
    public var previousFailureCount: Int
    /// The response that carried the challenge.
    public var failureResponse: Response

    /// Parses the challenges of a 401/407 response (every `WWW-Authenticate`, or
    /// `Proxy-Authenticate`, field; a malformed field is skipped); nil when it has none.
    static func parse(_ response: Response, previousFailureCount: Int) -> AuthenticationChallenge? {
        let isProxy = response.statusCode == 407
        guard response.statusCode == 401 || isProxy else { return nil }
        let offered = AuthChallenge.parse(fields: response.headers.valueBytes(for: isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"))
        guard let answered = preferred(offered) else { return nil }
        return AuthenticationChallenge(
            scheme: answered.scheme, realm: answered[parameter: "realm"]?.value, answered: answered, offered: offered,
            host: response.httpURL?.host ?? "", port: response.httpURL?.port ?? 80, isProxy: isProxy,
            previousFailureCount: previousFailureCount, failureResponse: response)
    }

    /// The challenge Courier answers among `offered`: the Digest challenge with the strongest
    /// algorithm Courier computes (the first of equals), else the first Basic, else the first.
    static func preferred(_ offered: [AuthChallenge]) -> AuthChallenge? {
        var best: (challenge: AuthChallenge, strength: Int)?
        for challenge in offered where challenge.hasScheme("Digest") {
            guard let digest = try? DigestChallenge(challenge) else { continue }
            if digest.algorithm.strength > best?.strength ?? 0 { best = (challenge, digest.algorithm.strength) }
        }
        return best?.challenge ?? offered.first { $0.hasScheme("Basic") } ?? offered.first
    }

    /// The `realm` parameter of the first challenge of a field value (RFC 9110 §11.5), or nil
    /// when it has none or the value is malformed.
    static func realm(in challenge: String) -> String? {
        (try? AuthChallenge.parse(Array(challenge.utf8)))?.first?[parameter: "realm"]?.value
    }
}

/// The answer to an ``AuthenticationChallenge`` (`NSURLSessionAuthChallengeDisposition`).
public enum AuthenticationChallengeDisposition: Sendable {
    /// Send the request again with these credentials, answering
    /// ``AuthenticationChallenge/answered``: Basic (RFC 7617 §2) or Digest (RFC 7616 §3.4). For
    /// any other scheme the task fails with ``CourierError/Code/unsupportedAuthenticationScheme``
    /// naming it; nothing is sent.
    case useCredential(Credential)
    /// No credentials: complete with the 401/407 response.
    case performDefaultHandling
    /// Cancel the task.
    case cancel
}
