import CourierCore
import CourierHTTP1
import CourierPosix

/// Following redirects (RFC 9110 §15.4): the one redirect driver. Every method runs on the loop
/// that owns the execution at that moment (see ``HTTPRequestExecution``): the connection's loop
/// while a response is read, and that same loop while an answer is awaited after the response
/// ended.
extension HTTPRequestExecution {
    /// The request the configuration proposes after `head`, nil when it does not follow it, or
    /// the error that fails the request (too many, loop, invalid Location, refused downgrade).
    func redirectDecision(for head: HTTPClientResponseHead) -> Result<RedirectedRequest?, ClientError> {
        do {
            let decision = try redirects.decide(
                method: request.method, url: request.url, headers: request.headers,
                body: request.body == nil ? .none : .replayable, status: head.status,
                location: head.headers[first: "Location"], history: history)
            guard case .follow(let next) = decision else { return .success(nil) }
            return .success(next)
        } catch {
            return .failure(Self.clientError(error, head: head))
        }
    }

    /// The typed error for a redirect that must not be followed.
    static func clientError(_ error: RedirectError, head: HTTPClientResponseHead? = nil) -> ClientError {
        let code: ClientError.Code =
            switch error {
            case .loop: .redirectLoop
            case .tooManyRedirects: .tooManyRedirects
            default: .unexpectedResponse
            }
        return ClientError(code, phase: .redirect, cause: error, detail: error.description, responseHead: head)
    }

    /// The current request turned into `next`.
    func request(following next: RedirectedRequest) -> HTTPClientRequest {
        var redirected = request
        redirected.method = next.method
        redirected.url = next.url
        redirected.headers = next.headers
        if !next.keepsBody { redirected.body = nil }
        return redirected
    }

    /// A redirect the configuration follows arrived (on the connection's loop). Without a
    /// handler it is followed once its body has been read; with one, the body is held until the
    /// answer. Returns an error to fail the response with.
    func startRedirect(_ head: HTTPClientResponseHead, proposed: RedirectedRequest) -> ClientError? {
        redirected = true
        redirectHead = head
        let next = request(following: proposed)
        guard let redirectHandler, let loop = attemptLoop else {
            hold.follow(next)
            return nil
        }
        proposedRedirect = proposed
        hold.startDeciding()
        let reply = HTTPClientRedirectReply()
        self.reply = reply
        let redirect = HTTPClientRedirect(response: head, request: request, proposed: next, number: history.count + 1)
        redirectHandler.decide(self, redirect, reply)
        // Answered inside the handler: applied here, before any body part (nothing held).
        guard let answer = reply.handlerReturned(loop: loop, execution: self) else { return nil }
        return apply(answer)
    }

    /// The handler's answer arrived (on the decision's loop).
    func redirectAnswered(_ reply: HTTPClientRedirectReply, _ answer: HTTPClientRedirectAnswer) {
        guard reply === self.reply else { return }
        let connection: HTTP1Connection? =
            if case .running(let connection) = shared.withLock({ $0.location }) { connection } else { nil }
        guard let error = apply(answer) else { return }
        // The response is still being read: fail it there (the connection is not reused).
        if let connection {
            connection.fail(self, error)
        } else {
            end(failure: error)
        }
    }

    /// Puts an answer into effect. Returns an error that fails the response still in flight, if
    /// any (a response that already ended is failed here).
    func apply(_ answer: HTTPClientRedirectAnswer) -> ClientError? {
        guard let proposed = proposedRedirect, let head = redirectHead else { return nil }
        reply = nil
        cancelDecisionTimer()
        let action: RedirectHold<HTTPClientRequest>.AnswerAction
        switch answer {
        case .follow:
            action = hold.answerFollow(request(following: proposed))
        case .modify(let modified):
            switch checked(modified, proposed: proposed) {
            case .success(let next):
                action = hold.answerFollow(next)
            case .failure(let error):
                return failDecision(error)
            }
        case .stop:
            action = hold.answerStop()
        }
        switch action {
        case .ignore:
            return nil
        case .follow(let next):
            follow(next)
        case .discard(let resume):
            if resume { resumeAttempt() }
        case .deliver(let held, let trailers, let resume):
            redirectHead = nil
            proposedRedirect = nil
            deliverHead(head)
            if let held {
                switch deliverBody(held) {
                case .abort(let error):
                    return failDecision(error)
                case .pause:
                    return nil  // the delegate resumes with `resumeReading()`
                case .more:
                    break
                }
            }
            if let trailers {
                finishResponse(trailers: trailers, at: .now())
            } else if resume {
                resumeAttempt()
            }
        }
        return nil
    }

    /// `modified` checked as ``HTTPClientRedirectAnswer/modify(_:)`` says.
    func checked(_ modified: HTTPClientRequest, proposed: RedirectedRequest) -> Result<HTTPClientRequest, ClientError> {
        if let problem = Self.validate(modified) { return .failure(problem) }
        do {
            let (url, headers) = try redirects.checkModified(
                method: modified.method, url: modified.url, headers: modified.headers, proposed: proposed,
                from: RedirectVisit(method: request.method, url: request.url), history: history)
            var next = request
            next.method = modified.method
            next.url = url
            next.headers = headers
            next.body = modified.body
            next.expectContinue = modified.expectContinue
            next.tls = modified.tls
            return .success(next)
        } catch {
            return .failure(Self.clientError(error, head: redirectHead))
        }
    }

    /// Fails the decision: the response in flight through its connection (returned), or here.
    private func failDecision(_ error: ClientError) -> ClientError? {
        hold.reset()
        guard case .running = shared.withLock({ $0.location }) else {
            end(failure: error)
            return nil
        }
        return error
    }

    /// The paused response may be read again.
    private func resumeAttempt() {
        guard case .running(let connection) = shared.withLock({ $0.location }) else { return }
        connection.resumeReading(self)
    }

    /// The redirect's response ended before the answer: wait on this loop, within the total
    /// deadline, and end at once if cancelled meanwhile.
    func waitForAnswer() {
        guard let loop = attemptLoop else { return }
        let cancelled = shared.withLock { shared -> Bool in
            if !shared.cancelled { shared.location = .deciding(loop) }
            return shared.cancelled
        }
        if cancelled {
            end(failure: ClientError(.cancelled))
            return
        }
        if let deadline {
            decisionTimer = loop.scheduleTimer(at: deadline) { [self] in
                decisionTimer = nil
                end(failure: ClientError(.totalTimeout, phase: .redirect, detail: "while a redirect was being decided"))
            }
        }
    }

    /// `cancel()` while the execution waits for an answer without a connection.
    func cancelWhileDeciding() {
        guard case .deciding = shared.withLock({ $0.location }) else { return }
        end(failure: ClientError(.cancelled))
    }

    private func cancelDecisionTimer() {
        if let decisionTimer, let attemptLoop { attemptLoop.cancelTimer(decisionTimer) }
        decisionTimer = nil
    }

    /// The execution ended: a pending answer no longer counts.
    func endDecision() {
        // Only a redirect sets a reply or a decision timer (`redirected` is on the execution's
        // first lines, the two are not).
        guard redirected else { return }
        reply?.abandon()
        reply = nil
        cancelDecisionTimer()
    }

    /// Makes `next` the request, after the redirect's response was read to its end; the
    /// delegate hears of the hop with its metrics first.
    func follow(_ next: HTTPClientRequest) {
        let head = redirectHead
        redirectHead = nil
        proposedRedirect = nil
        history.append(RedirectVisit(method: request.method, url: request.url))
        var hop = metrics
        hop.responseEnd = .now()
        if let head { delegate.didRedirect(self, response: head, to: next, metrics: hop) }
        request = next
        // Each hop has metrics of its own; the count says how many came before.
        metrics = HTTPClientMetrics(fetchStart: .now())
        metrics.redirectCount = history.count
        shared.withLock { $0.location = .starting }
        acquire()
    }
}
