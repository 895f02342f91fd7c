import CourierClient
import FoundationEssentials

/// Builds the `Authorization` (or `Proxy-Authorization`) field answering a challenge with a
/// credential: Basic (RFC 7617 §2) or Digest (RFC 7616 §3.4), nothing else.
enum ChallengeAnswer {
    /// The field for `request`, answering `challenge` (a Digest challenge counts its nonce in the
    /// session's ``DigestNonces``).
    static func field(
        _ challenge: AuthChallenge, credential: Credential, request: Request, proxy: Bool, nonces: DigestNonces
    ) throws(CourierError) -> HTTPField {
        if challenge.hasScheme("Basic") {
            return try HTTPField.basicAuthorization(credential, proxy: proxy)
        }
        guard challenge.hasScheme("Digest") else {
            throw CourierError(
                .unsupportedAuthenticationScheme,
                detail: "cannot answer a \(challenge.scheme) challenge: Courier answers Basic and Digest (RFC 9110 §11.6)")
        }
        let digest: DigestChallenge
        do { digest = try DigestChallenge(challenge) } catch {
            throw CourierError(.unsupportedAuthenticationScheme, underlying: error, detail: "cannot answer \(error.detail) (RFC 7616 §3.3)")
        }
        guard let origin = request.httpURL?.origin else {
            throw CourierError(.invalidURL, detail: "no origin to authenticate with")
        }
        let count = nonces.remember(digest, credential: credential, origin: origin, proxy: proxy)
        return try HTTPField.digestAuthorization(digest, credential: credential, request: request, proxy: proxy, nonceCount: count)
    }
}

extension HTTPField {
    /// `Authorization: Digest …` or `Proxy-Authorization: Digest …` for `request` (RFC 7616 §3.4),
    /// its `uri` the request-target in origin-form (RFC 9112 §3.2.1).
    ///
    /// - Throws: ``CourierError`` `.invalidHeader` (phase `serialize`) for a user name or value
    ///   with a control character (CR, LF would inject a field).
    static func digestAuthorization(
        _ challenge: DigestChallenge, credential: Credential, request: Request, proxy: Bool, nonceCount: UInt32
    ) throws(CourierError) -> HTTPField {
        guard let url = request.httpURL else { throw CourierError(.invalidURL, detail: "no request-target to authenticate") }
        do {
            let value = try digestAuthorizationValue(
                challenge: challenge, username: credential.user, password: credential.password,
                method: request.method.rawValue, uri: url.requestTarget, nonceCount: nonceCount, cnonce: makeDigestClientNonce())
            return try HTTPField(name: proxy ? "Proxy-Authorization" : "Authorization", value: value)
        } catch let error as DigestAuthorizationError {
            throw CourierError(.invalidHeader, underlying: error, detail: "Digest credentials refused: \(error) (RFC 7616 §3.4)")
        } catch {
            throw CourierError(.invalidHeader, underlying: error, detail: "Digest credentials refused (RFC 7616 §3.4)")
        }
    }
}
