import CourierClient
import CourierCore
import FoundationEssentials

/// What the session decided about a response head.
enum HeadDecision: Sendable {
    /// The response is the task's.
    case deliver
    /// Drop this response's body and make this request next.
    case follow(Request, FollowReason)
    case cancel
    case fail(CourierError)
}

/// How a head is decided: now, by the session's own rules, or by a hook on the completion queue.
enum HeadResolution {
    case now(HeadDecision)
    case ask(@Sendable (SessionTask) -> HeadDecision)
}

extension SessionTask {
    static let maximumAuthenticationAttempts = 10

    /// Decides, in this order: a 401/407 challenge when the challenge hook is set, the response
    /// disposition hook, else delivery. (Redirects never get here: the transport follows them,
    /// asking the redirect hook through ``redirectHandler(original:)``; a redirect it stops is
    /// the task's response.)
    func resolution(for response: Response, request: Request) -> HeadResolution {
        // The two hooks that decide about heads, read together (not a copy of every hook).
        let (challengeHook, responseHook) = manager.headHooks

        // A challenge the caller may answer.
        if let hook = challengeHook, case let failures = core.withLock({ $0.machine.authenticationFailures }),
           let challenge = AuthenticationChallenge.parse(response, previousFailureCount: failures),
           failures < SessionTask.maximumAuthenticationAttempts {
            return .ask { task in
                switch hook(task, challenge) {
                case .useCredential(let credential) where challenge.scheme.lowercased() == "basic":
                    let field: HTTPField
                    do throws(CourierError) {
                        field = try HTTPField.basicAuthorization(credential, proxy: challenge.isProxy)
                    } catch {
                        return .fail(error)
                    }
                    var next = request
                    next.headers.remove(name: challenge.isProxy ? "Proxy-Authorization" : "Authorization")
                    next.headers.append(field)
                    return .follow(next, .authentication)
                case .useCredential, .performDefaultHandling:
                    return .deliver
                case .cancel:
                    return .cancel
                }
            }
        }

        // The task's response: the caller may look at it first.
        if kind != .download, let hook = responseHook {
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
