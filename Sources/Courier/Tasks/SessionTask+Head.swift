import CourierClient
import CourierCore
import CourierHTTP1
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

    /// Decides, in this order: a redirect the configuration follows (the redirect hook may
    /// rewrite or refuse it), a 401/407 challenge when the challenge hook is set, the response
    /// disposition hook, else delivery.
    func resolution(for response: Response, request: Request) -> HeadResolution {
        let hooks = manager.hooks

        // A redirect the configuration follows.
        switch redirectTarget(for: response, request: request) {
        case .failure(let error):
            return .now(.fail(error))
        case .success(let next?):
            guard let hook = hooks.taskWillPerformHTTPRedirection else { return .now(.follow(next.request, .redirect(next.visit))) }
            return .ask { task in
                hook(task, response, next.request).map { .follow($0, .redirect(next.visit)) } ?? .deliver
            }
        case .success(nil):
            break
        }

        // A challenge the caller may answer.
        let failures = core.withLock { $0.machine.authenticationFailures }
        if let hook = hooks.taskDidReceiveAuthenticationChallenge,
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
        if kind != .download, let hook = hooks.dataTaskDidReceiveResponse {
            return .ask { task in
                switch hook(task, response) {
                case .allow: .deliver
                case .cancel: .cancel
                }
            }
        }
        return .now(.deliver)
    }

    /// The next request when `response` is a redirect the configuration follows, nil when it is
    /// not one, or the redirect error (too many, loop, refused downgrade).
    private func redirectTarget(for response: Response, request: Request) -> Result<(request: Request, visit: RedirectVisit)?, CourierError> {
        guard response.isRedirect else { return .success(nil) }
        let configuration = manager.redirectConfiguration(for: originalRequest)
        guard let url = try? HTTPURL(request.url.absoluteString) else { return .success(nil) }
        let history = core.withLock { $0.machine.history }
        do {
            let decision = try configuration.decide(
                method: request.method, url: url, headers: request.headers, body: request.body == nil ? .none : .replayable,
                status: response.statusCode, location: response.headers[first: "Location"], history: history)
            guard case .follow(let redirected) = decision, let target = URL(string: redirected.url.absoluteString) else {
                return .success(nil)
            }
            var next = Request(url: target, method: redirected.method, headers: redirected.headers,
                               body: redirected.keepsBody ? request.body : nil, timeoutInterval: request.timeoutInterval,
                               totalTimeoutInterval: request.totalTimeoutInterval)
            if !redirected.keepsBody { next.body = nil }
            return .success((next, RedirectVisit(method: request.method, url: url)))
        } catch {
            return .failure(CourierError(.redirectRefused, underlying: error, response: response, failingURL: request.url, detail: error.description))
        }
    }
}

extension Response {
    var isRedirect: Bool { [301, 302, 303, 307, 308].contains(statusCode) }
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
