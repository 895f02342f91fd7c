import CourierClient
import CourierCore
import FoundationEssentials

/// What the session decided about a response head.
enum HeadDecision: Sendable {
    /// The response is the task's.
    case deliver
    /// Drop this response's body and make this request next.
    case follow(Request, FollowReason)
    /// Drop this response's body and make the attempt again after `after` seconds (the
    /// retrier decided so).
    case retry(after: Double)
    case cancel
    case fail(CourierError)
}

/// How a head is decided: now, by the session's own rules, or by a hook on the completion queue.
enum HeadResolution {
    case now(HeadDecision)
    case ask(@Sendable (SessionTask) -> HeadDecision)
    /// The task's retrier decides first whether the attempt is made again (an error status).
    case askRetrier(RetryContext)
}

extension SessionTask {
    typealias DispositionHook = @Sendable (SessionTask, Response) -> ResponseDisposition
    static let maximumAuthenticationAttempts = 10

    /// Decides, in this order: a 401/407 challenge (a Digest nonce the server calls stale is
    /// answered again with the same credential, RFC 7616 §3.3; otherwise the challenge hook,
    /// when set, is asked), the task's retrier for an error status (4xx, 5xx: RFC 9110 §15.5,
    /// §15.6), the response disposition hook, else delivery. (Redirects never get
    /// here: the transport follows them, asking the redirect hook through
    /// ``redirectHandler(original:)``; a redirect it stops is the task's response.)
    func resolution(for response: Response, request: Request) -> HeadResolution {
        // The two hooks that decide about heads, read together (not a copy of every hook).
        let (challengeHook, responseHook) = manager.headHooks

        // A challenge the session or the caller may answer (the machine is read only for one).
        if response.statusCode == 401 || response.statusCode == 407,
           case let (failures, staleRetries) = core.withLock({ ($0.machine.authenticationFailures, $0.machine.staleNonceRetries) }),
           let challenge = AuthenticationChallenge.parse(response, previousFailureCount: failures) {
            manager.report(.challenged) { .challenged(self, challenge) }
            if let decision = digestFollowUp(challenge, request: request, staleRetries: staleRetries) {
                return .now(decision)
            }
            if let hook = challengeHook, failures < SessionTask.maximumAuthenticationAttempts {
                let nonces = manager.digestNonces
                return .ask { task in
                    switch hook(task, challenge) {
                    case .useCredential(let credential):
                        do throws(CourierError) {
                            let field = try ChallengeAnswer.field(
                                challenge.answered, credential: credential, request: request, proxy: challenge.isProxy, nonces: nonces)
                            return .follow(request.replacingField(field), .authentication)
                        } catch {
                            return .fail(error)
                        }
                    case .performDefaultHandling:
                        return .deliver
                    case .cancel:
                        return .cancel
                    }
                }
            }
        }

        // An error status is a failed attempt the retrier may make again; the task's validation,
        // later, decides only what the caller sees of a response that stays.
        if interceptor != nil, response.statusCode >= 400 {
            let error = CourierError(
                .unacceptableStatusCode, response: response, failingURL: request.url,
                detail: "Request failed: \(StatusText.text(for: response.statusCode)) (\(response.statusCode))")
            return .askRetrier(RetryContext(
                request: request, response: response, error: error, retryCount: core.withLock { $0.machine.retryCount },
                requestBytesSent: true))
        }
        return dispositionResolution(for: response, hook: responseHook)
    }

    /// The response disposition hook's say (`hook`, the session's as read with the others), or
    /// delivery.
    func dispositionResolution(for response: Response, hook: DispositionHook?) -> HeadResolution {
        if kind != .download, let hook {
            return .ask { task in
                switch hook(task, response) {
                case .allow: .deliver
                case .cancel: .cancel
                }
            }
        }
        return .now(.deliver)
    }
}

extension SessionTask {
    /// What a challenge means for a request that carried a Digest answer of this session
    /// (RFC 7616 §3.3): with `stale=true` the same credential answers the new nonce, without
    /// asking the hook and without counting a failure (bounded like failures: past the bound the
    /// 401 is the task's response); otherwise the
    /// server refused the credential, which the session forgets. nil: decide as for any
    /// challenge.
    func digestFollowUp(_ challenge: AuthenticationChallenge, request: Request, staleRetries: Int) -> HeadDecision? {
        let name = challenge.isProxy ? "Proxy-Authorization" : "Authorization"
        guard let sent = request.headers[first: name], sent.lowercased().hasPrefix("digest "),
              let origin = request.httpURL?.origin else { return nil }
        let nonces = manager.digestNonces
        if let digest = try? DigestChallenge(challenge.answered), digest.isStale,
           let credential = nonces.credential(origin: origin, proxy: challenge.isProxy) {
            // A server that never stops calling the nonce stale gets its 401 delivered.
            guard staleRetries < SessionTask.maximumAuthenticationAttempts else { return .deliver }
            let count = nonces.remember(digest, credential: credential, origin: origin, proxy: challenge.isProxy)
            do throws(CourierError) {
                let field = try HTTPField.digestAuthorization(
                    digest, credential: credential, request: request, proxy: challenge.isProxy, nonceCount: count)
                return .follow(request.replacingField(field), .staleNonce)
            } catch {
                return .fail(error)
            }
        }
        nonces.forget(origin: origin, proxy: challenge.isProxy)
        return nil
    }
}

extension Request {
    /// The request with `field` in place of every field of its name.
    func replacingField(_ field: HTTPField) -> Request {
        var next = self
        next.headers.remove(name: field.name)
        next.headers.append(field)
        return next
    }
}

extension HTTPField {
    /// `Authorization: Basic …` or `Proxy-Authorization: Basic …` (RFC 7617 §2), built by the
    /// transport's one Basic encoder.
    ///
    /// - Throws: ``CourierError`` `.invalidHeader` (phase `serialize`) for credentials Basic
    ///   cannot carry: a `:` in the user-id, or a control character (RFC 7617 §2).
    static func basicAuthorization(username: String, password: String, proxy: Bool = false) throws(CourierError) -> HTTPField {
        do {
            let value = try basicAuthorizationValue(username: username, password: password)
            return try HTTPField(name: proxy ? "Proxy-Authorization" : "Authorization", value: value)
        } catch {
            throw CourierError(.invalidHeader, detail: "Basic credentials refused: \(error) (RFC 7617 §2)")
        }
    }

    static func basicAuthorization(_ credential: Credential, proxy: Bool) throws(CourierError) -> HTTPField {
        try basicAuthorization(username: credential.user, password: credential.password, proxy: proxy)
    }
}
