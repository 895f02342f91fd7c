import CourierClient
import CourierCore
import CourierHTTP1
import Dispatch
import FoundationEssentials

/// What a hook decided about a response head.
enum HeadDecision: Sendable {
    /// The response is the task's.
    case deliver
    /// Drop this response's body and make this request next (`visit`: the redirect followed).
    case follow(Request, visit: RedirectVisit?)
    case cancel
    case fail(CourierError)
}

extension SessionTask {
    // MARK: Launching attempts

    /// Starts the first attempt (after `resume()`), or answers from the cache.
    func start() {
        if manager.isInvalidated {
            complete(.failure(CourierError(.sessionInvalidated, failingURL: originalRequest.url, detail: "the session was invalidated")))
            return
        }
        if let error = core.withLock({ $0.preflightError }) {
            complete(.failure(error))
            return
        }
        if kind == .data, let cached = manager.cachedResponse(for: originalRequest) {
            core.withLock { core in
                core.response = cached.response
                core.body = cached.data
                core.bodyBytes = Int64(cached.data.count)
            }
            _ = downloadProgress.update { progress in
                progress.totalUnitCount = Int64(cached.data.count)
                progress.completedUnitCount = Int64(cached.data.count)
            }
            complete(.success(.data(cached.data)))
            return
        }
        launch(core.withLock { $0.currentRequest })
    }

    /// Makes `request` as the task's next attempt.
    func launch(_ request: Request) {
        let converted: HTTPClientRequest
        let (deadline, redirected) = core.withLock { ($0.deadline, $0.redirectCount > 0) }
        do {
            converted = try manager.convert(
                request, sameOriginAs: originalRequest.url, deadline: deadline, phase: redirected ? .redirect : .connect)
        } catch {
            complete(.failure(error))
            return
        }
        let attempt = core.withLock { core -> Int? in
            guard !core.completed, core.state != .canceling else { return nil }
            core.currentRequest = request
            core.attempt += 1
            core.mode = .awaitingHead
            core.heldPart = nil
            core.heldFinish = false
            core.readingPaused = false
            core.clientTask = nil
            core.launching = true
            return core.attempt
        }
        guard let attempt else {
            completeIfCanceling()
            return
        }
        let client = manager.client.execute(converted, delegate: AttemptDelegate(task: self, attempt: attempt))
        // The transport may already have called back (and the delegate adopted `client`), or the
        // task may have moved past this attempt (failed, completed): then `client` is cancelled —
        // a no-op when it already ended — so no request runs for nobody.
        let cancelNow = core.withLock { core -> Bool in
            guard core.attempt == attempt else { return true }
            core.launching = false
            guard !core.completed else { return true }
            core.clientTask = client
            return core.state == .canceling
        }
        if cancelNow { client.cancel() }
    }

    /// Records the transport request of the current attempt when its callbacks come before
    /// `execute` returned to ``launch(_:)`` (so that pausing, resuming and cancelling reach it).
    func adopt(_ client: HTTPClientTask, attempt: Int) {
        core.withLock { core in
            if core.attempt == attempt, !core.completed, core.clientTask == nil { core.clientTask = client }
        }
    }

    func completeIfCanceling() {
        let error = core.withLock { core -> CourierError? in
            guard !core.completed, core.state == .canceling else { return nil }
            return core.cancellation ?? CourierError(.cancelled, failingURL: originalRequest.url)
        }
        if let error { complete(.failure(error)) }
    }

    // MARK: Transport callbacks

    func sentBody(total: Int64, attempt: Int) {
        guard core.withLock({ $0.attempt == attempt && !$0.completed }) else { return }
        if let uploadReporter {
            uploadReporter.report { $0.completedUnitCount = total }
        } else {
            _ = uploadProgress.update { $0.completedUnitCount = total }
        }
    }

    func receivedHead(_ head: HTTPClientResponseHead, attempt: Int) {
        guard let request = core.withLock({ core -> Request? in
            guard core.attempt == attempt, !core.completed else { return nil }
            return core.currentRequest
        }) else { return }
        let response = Response(
            url: request.url, statusCode: head.status, headers: head.headers, undecodedContentCodings: head.undecodedContentCodings)
        let hooks = manager.hooks

        // A redirect the configuration follows.
        switch redirectTarget(for: response, request: request) {
        case .failure(let error):
            fail(attempt: attempt, error)
            return
        case .success(let next?):
            if let hook = hooks.taskWillPerformHTTPRedirection {
                decide(attempt: attempt, response: response) { task in
                    hook(task, response, next.request).map { .follow($0, visit: next.visit) } ?? .deliver
                }
            } else {
                apply(.follow(next.request, visit: next.visit), response: response, attempt: attempt)
            }
            return
        case .success(nil):
            break
        }

        // A challenge the caller may answer.
        let failures = core.withLock { $0.authenticationFailures }
        if let hook = hooks.taskDidReceiveAuthenticationChallenge,
           let challenge = AuthenticationChallenge.parse(response, previousFailureCount: failures),
           failures < SessionTask.maximumAuthenticationAttempts {
            decide(attempt: attempt, response: response) { task in
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
                    task.core.withLock { $0.authenticationFailures += 1 }
                    return .follow(next, visit: nil)
                case .useCredential, .performDefaultHandling:
                    return .deliver
                case .cancel:
                    return .cancel
                }
            }
            return
        }

        // The task's response: the caller may look at it first.
        if kind != .download, let hook = hooks.dataTaskDidReceiveResponse {
            decide(attempt: attempt, response: response) { task in
                switch hook(task, response) {
                case .allow: .deliver
                case .cancel: .cancel
                }
            }
            return
        }
        apply(.deliver, response: response, attempt: attempt)
    }

    /// The next request when `response` is a redirect the configuration follows, nil when it is
    /// not one, or the redirect error (too many, loop, refused downgrade).
    private func redirectTarget(for response: Response, request: Request) -> Result<(request: Request, visit: RedirectVisit)?, CourierError> {
        guard [301, 302, 303, 307, 308].contains(response.statusCode) else { return .success(nil) }
        let configuration = manager.redirectConfiguration(for: originalRequest)
        guard let url = try? HTTPURL(request.url.absoluteString) else { return .success(nil) }
        let history = core.withLock { $0.history }
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

    /// Holds the body while `hook` runs on the completion queue, then applies its decision.
    private func decide(attempt: Int, response: Response, _ hook: @escaping @Sendable (SessionTask) -> HeadDecision) {
        core.withLock { core in
            guard core.attempt == attempt else { return }
            core.mode = .deciding
        }
        manager.completionQueue.async { [self] in
            apply(hook(self), response: response, attempt: attempt)
        }
    }

    /// Puts a decision into effect, then replays what arrived while it was being made.
    func apply(_ decision: HeadDecision, response: Response, attempt: Int) {
        var decision = decision
        var delivery: Delivery?
        if case .deliver = decision {
            do { delivery = try prepareDelivery(response) } catch { decision = .fail(error) }
        }
        enum Next { case none, cancel, fail(CourierError), replay(ByteBuffer?, finished: Bool, resume: HTTPClientTask?) }
        let next = core.withLock { core -> Next in
            guard core.attempt == attempt, !core.completed else { return .none }
            switch decision {
            case .cancel:
                return .cancel
            case .fail(let error):
                return .fail(error)
            case .follow(let request, let visit):
                if let visit {
                    core.redirectCount += 1
                    core.history.append(visit)
                }
                core.mode = .discard(then: request)
            case .deliver:
                core.mode = .deliver
                delivery?.install(into: &core)
                // Under the lock, so no body part reported meanwhile is overwritten.
                if let delivery { delivery.announce(self) }
            }
            let held = core.heldPart
            let finished = core.heldFinish
            core.heldPart = nil
            core.heldFinish = false
            // While the held part is replayed, `resume()` must not let the transport deliver the
            // next one first.
            core.replaying = held != nil
            var resume: HTTPClientTask?
            if core.readingPaused, !finished, core.state == .running, !core.sinkBusy, held == nil {
                core.readingPaused = false
                resume = core.clientTask
            }
            return .replay(held, finished: finished, resume: resume)
        }
        // A sink opened on a resumed download's partial file keeps it (the resume data points at it).
        let keepFile = (delivery?.resumeOffset ?? 0) > 0
        switch next {
        case .none:
            delivery?.sink?.abandon(keepFile: keepFile)
        case .cancel:
            delivery?.sink?.abandon(keepFile: keepFile)
            cancel()
            // Already cancelling with nothing left to end the task (the transport finished while
            // the hook decided): end it here.
            if core.withLock({ $0.clientTask == nil && !$0.launching }) { completeIfCanceling() }
        case .fail(let error):
            delivery?.sink?.abandon(keepFile: keepFile)
            fail(attempt: attempt, error)
        case .replay(let held, let finished, let resume):
            if let held {
                // The transport is paused; consume the held part, then resume if the task may read.
                let demand = receivedBody(held, attempt: attempt)
                let client = core.withLock { core -> HTTPClientTask? in
                    core.replaying = false
                    guard demand == .more, !finished, core.readingPaused, core.state == .running, !core.sinkBusy else { return nil }
                    core.readingPaused = false
                    return core.clientTask
                }
                client?.resumeReading()
            }
            if finished { attemptEnded(attempt: attempt) }
            resume?.resumeReading()
            if core.withLock({ $0.state == .canceling && $0.clientTask == nil && !$0.launching }) { completeIfCanceling() }
        }
    }

    /// Fails the task because of something the session found (not the transport): stops the
    /// attempt and completes with `error`.
    func fail(attempt: Int, _ error: CourierError) {
        let client = core.withLock { core -> HTTPClientTask? in
            guard core.attempt == attempt, !core.completed else { return nil }
            core.attempt += 1  // ignore the cancelled attempt's callbacks
            defer { core.clientTask = nil }
            return core.clientTask
        }
        client?.cancel()
        complete(.failure(error))
    }

    func receivedBody(_ part: ByteBuffer, attempt: Int) -> HTTPClientBodyDemand {
        enum Step { case ignore, drop, hold, consumed(Int64, Data?, HTTPClientBodyDemand), tooLarge }
        let limit = manager.configuration.maximumInMemoryBodySize
        // Read once per part, and only this hook (not a copy of all of them).
        let dataHook = kind == .download ? nil : manager.hook(\.dataTaskDidReceiveData)
        let wantsData = dataHook != nil
        let step = core.withLock { core -> Step in
            guard core.attempt == attempt, !core.completed else { return .ignore }
            switch core.mode {
            case .awaitingHead, .discard:
                return .drop
            case .deciding:
                // The transport stops after this `.pause`; should one more part come first, it is
                // kept too (appended), never dropped.
                if var held = core.heldPart {
                    held.writeBuffer(part)
                    core.heldPart = held
                } else {
                    core.heldPart = part
                }
                core.readingPaused = true
                return .hold
            case .deliver:
                let count = part.readableBytes
                var copy: Data?
                if let sink = core.sink {
                    if sink.write(part) { core.sinkBusy = true }
                } else {
                    guard core.body.count + count <= limit else { return .tooLarge }
                    part.withUnsafeReadableBytes { core.body.append(contentsOf: $0) }
                    if wantsData { copy = part.withUnsafeReadableBytes { Data($0) } }
                }
                core.bodyBytes += Int64(count)
                let demand: HTTPClientBodyDemand
                if core.state != .running || core.sinkBusy {
                    core.readingPaused = true
                    demand = .pause
                } else {
                    demand = .more
                }
                return .consumed(core.resumeOffset + core.bodyBytes, copy, demand)
            }
        }
        switch step {
        case .ignore, .drop:
            return .more
        case .hold:
            return .pause
        case .tooLarge:
            fail(attempt: attempt, CourierError(
                .bodyTooLarge, failingURL: originalRequest.url,
                detail: "the body is larger than maximumInMemoryBodySize (\(limit) bytes); use a download task"))
            return .more
        case .consumed(let total, let copy, let demand):
            if let downloadReporter {
                downloadReporter.report { $0.completedUnitCount = total }
            } else {
                _ = downloadProgress.update { $0.completedUnitCount = total }
            }
            if let copy, let hook = dataHook {
                manager.completionQueue.async { [self] in hook(self, copy) }
            }
            return demand
        }
    }

    /// The download sink wrote enough to take more.
    func sinkDrained() {
        let client = core.withLock { core -> HTTPClientTask? in
            core.sinkBusy = false
            guard core.readingPaused, core.state == .running, !core.awaitingDecision, !core.replaying else { return nil }
            core.readingPaused = false
            return core.clientTask
        }
        client?.resumeReading()
    }

    func attemptFinished(metrics: HTTPClientMetrics, attempt: Int) {
        let ended = core.withLock { core -> Bool in
            guard core.attempt == attempt, !core.completed else { return false }
            core.transactions.append(metrics)
            core.clientTask = nil
            if case .deciding = core.mode {
                core.heldFinish = true
                return false
            }
            return true
        }
        // A cancel that raced the end of the response wins, as it does for the transport.
        if core.withLock({ $0.state == .canceling }) {
            completeIfCanceling()
            return
        }
        if ended { attemptEnded(attempt: attempt) }
    }

    /// The attempt's response is complete and its mode decided.
    private func attemptEnded(attempt: Int) {
        let mode = core.withLock { core -> AttemptMode? in
            guard core.attempt == attempt, !core.completed else { return nil }
            return core.mode
        }
        switch mode {
        case .discard(let next):
            launch(next)
        case .deliver:
            finishDelivery()
        case .awaitingHead, .deciding, nil:
            break
        }
    }

    func attemptFailed(_ error: ClientError, metrics: HTTPClientMetrics, attempt: Int) {
        let mapped = core.withLock { core -> CourierError? in
            guard core.attempt == attempt, !core.completed else { return nil }
            core.transactions.append(metrics)
            core.clientTask = nil
            if error.code == .cancelled, let cancellation = core.cancellation { return cancellation }
            let url = core.currentRequest.url
            // A body stream of this layer (multipart) failed: its own error says what and where.
            if let own = error.cause as? CourierError { return CourierError(own.code, phase: .send, underlying: error, failingURL: url, detail: own.detail) }
            return SecurityPolicy.courierError(from: error, host: url.host())?.with(response: nil, body: nil, failingURL: url)
                ?? CourierError.transport(error, url: url)
        }
        if let mapped { complete(.failure(mapped.with(response: nil, body: nil, failingURL: nil))) }
    }

    static let maximumAuthenticationAttempts = 10
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
