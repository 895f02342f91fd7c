import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials

extension SessionTask {
    typealias Action = TaskAction<HTTPRequestExecution, DownloadSink>
    typealias Actions = TaskActions<HTTPRequestExecution, DownloadSink>

    /// Performs what the state machine asked for, in order, outside its lock: the one place a
    /// task's side effects happen.
    func run(_ actions: Actions) {
        actions.forEach { run($0) }
    }

    private func run(_ action: Action) {
        switch action {
        case .publishResumed:
            manager.report(.resumed) { .resumed(self) }
        case .publishSuspended:
            manager.report(.suspended) { .suspended(self) }
        case .prepare:
            prepare()
        case .prepareAfter(let seconds):
            intercept { [self] in
                // A cancel ends the sleep early; `prepare` then finds the task ended.
                try? await Task.sleep(for: .seconds(seconds))
                prepare()
            }
        case .askRetrier(let context):
            askRetrier(context)
        case .resumeReading(let transport):
            transport.resumeReading()
        case .cancelTransport(let transport):
            transport.cancel()
        case .reportDownload(let completed):
            if let downloadReporter {
                downloadReporter.report { $0.completedUnitCount = completed }
            } else {
                core.withLock { $0.download.update { $0.completedUnitCount = completed } }
            }
        case .announceDownload(let completed, let total):
            core.withLock { core in
                core.download.update { progress in
                    progress.completedUnitCount = completed
                    progress.totalUnitCount = total
                }
            }
        case .forwardData(let part):
            // Copied only when a monitor wants it (the hook, read once per part, or the caller's).
            guard kind != .download else { return }
            manager.report(.data) { .data(self, part.withUnsafeReadableBytes { Data($0) }) }
        case .write(let part, let sink, let attempt, let held):
            let busy = sink.write(part)
            run(core.withLock { $0.machine.partWritten(busy: busy, held: held, attempt: attempt) })
            // The sink may have drained before the pause was recorded: then nothing else would
            // resume reading.
            if busy, !sink.isWaitingForDrain { sinkDrained() }
        case .finishDownload(let sink):
            finishDownload(sink)
        case .abandonSink(let sink, let keepFile):
            sink.abandon(keepFile: keepFile)
        case .complete(let ending):
            complete(ending)
        }
    }

    // MARK: Preparing and launching attempts

    /// Makes the request the machine prepares the task's next attempt: checks the session (the
    /// first attempt may be answered from the cache), converts it for the transport and hands
    /// it over. Nothing when the task ended meanwhile (a cancel).
    private func prepare() {
        guard case let (prepared, attempts, deadline, redirected, retries)? = core.withLock({ core in
            core.machine.preparingRequest.map {
                ($0, core.machine.attemptCount, core.machine.deadline, core.machine.redirectCount > 0, core.machine.retryCount)
            }
        }) else { return }
        var request = prepared
        if attempts == 0 {
            if manager.isInvalidated {
                run(core.withLock { $0.machine.preparationFailed(CourierError(
                    .sessionInvalidated, failingURL: originalRequest.url, detail: "the session was invalidated")) })
                return
            }
            if let preflightError {
                run(core.withLock { $0.machine.preparationFailed(preflightError) })
                return
            }
            if kind == .data {
                // The session's cache (RFC 9111): answer now, revalidate, or go to the network.
                switch manager.cacheDecision(for: originalRequest) {
                case .fresh(let cached):
                    run(core.withLock { $0.machine.answeredFromCache(cached.response, data: cached.data) })
                    return
                case .validate(let stored, let conditional):
                    core.withLock { $0.machine.revalidating(stored) }
                    request = CacheRules.conditionalRequest(request, conditional)
                case .unavailable:
                    run(core.withLock { $0.machine.preparationFailed(CourierError(
                        .resourceUnavailable, failingURL: originalRequest.url,
                        detail: "the cache policy forbids the network and nothing is stored for the request")) })
                    return
                case .miss:
                    break
                }
            }
            // A Digest nonce this session answered for the origin is reused (RFC 7616 §3.4).
            request = manager.digestNonces.authorizing(request)
        }
        guard adapts, let interceptor else {
            launch(request, deadline: deadline, redirected: redirected)
            return
        }
        let context = AdaptationContext(taskIdentifier: taskIdentifier, retryCount: retries)
        intercept { [self, request] in
            do {
                let adapted = try await interceptor.adapt(request, context: context)
                manager.report(.adapted) { .adapted(self, request, adapted) }
                launch(adapted, deadline: deadline, redirected: redirected)
            } catch {
                let failure = CourierError.adaptation(error, by: interceptor, url: request.url)
                manager.report(.adaptationFailed) { .adaptationFailed(self, request, failure) }
                run(core.withLock { $0.machine.preparationFailed(failure) })
            }
        }
    }

    /// Converts the request for the transport and hands it over as the task's next attempt.
    private func launch(_ request: Request, deadline: Deadline?, redirected: Bool) {
        var converted: HTTPClientRequest
        let cookies: CookieChain
        do {
            converted = try manager.convert(request, sameOriginAs: originalRequest.httpURL?.origin, deadline: deadline, phase: redirected ? .redirect : .connect)
            cookies = CookieChain(caller: converted.headers.values(for: "Cookie"))
            manager.attachCookies(to: &converted, caller: cookies.caller)
            converted.redirectHandler = redirectHandler(cookies: cookies)
            // The task's first request says which redirects it follows (nil: the client's).
            converted.redirects = originalRequest.redirects
        } catch {
            run(core.withLock { $0.machine.preparationFailed(error) })
            return
        }
        guard let attempt = core.withLock({ $0.machine.launch(request) }) else { return }
        manager.report(.attemptStarted) { .attemptStarted(self, attempt, request) }
        let transport = manager.client.execute(converted, delegate: AttemptDelegate(task: self, attempt: attempt, cookies: cookies))
        // The transport may already have called back (and adopted the handle), or the task may
        // have moved past this attempt: then the machine says to cancel it.
        run(core.withLock { $0.machine.launched(transport, attempt: attempt) })
    }

    // MARK: Transport events (on event loops, one at a time per attempt)

    /// The request head of this attempt (or of a redirect hop) went out: monitors see the head
    /// as written and what the connection had measured by then.
    func sentHead(_ head: HTTPRequestHead, transport: HTTPRequestExecution, attempt: Int) {
        // Only the caller's monitors take this event (no hook or observer carries it).
        guard manager.hasEventMonitors, core.withLock({ $0.machine.isCurrent(attempt) }) else { return }
        manager.report(.sentHead) { .sentHead(self, transport.headAsWritten(head), transport.metricsSoFar) }
    }

    func sentBody(total: Int64, attempt: Int) {
        guard core.withLock({ $0.machine.isCurrent(attempt) }) else { return }
        if let uploadReporter {
            uploadReporter.report { $0.completedUnitCount = total }
        } else {
            core.withLock { $0.upload.update { $0.completedUnitCount = total } }
        }
    }

    /// The transport followed a redirect (the redirect hook, if any, agreed): the request made
    /// now is `next`, as the session sees requests.
    func redirected(
        from head: HTTPClientResponseHead, to next: HTTPClientRequest, metrics: HTTPClientMetrics, attempt: Int, transport: HTTPRequestExecution,
        callerCookies: [String]? = nil
    ) {
        let previous = core.withLock { $0.machine.currentRequest }
        // The session's requests carry the caller's Cookie values only; the jar's are added to
        // each request made (so a retry or an answer to a challenge gets the jar's current ones).
        var request = Request(following: next, from: previous)
        if let callerCookies, manager.configuration.httpCookieStorage != nil {
            request.headers.remove(name: "Cookie")
            for value in callerCookies { try? request.headers.append(name: "Cookie", value: value) }
        }
        let followed = core.withLock { core in
            guard core.machine.isCurrent(attempt) else { return false }
            core.machine.redirected(to: request, metrics: metrics, attempt: attempt, transport: transport)
            return true
        }
        guard followed else { return }
        manager.report(.redirected) {
            .redirected(self, Response(location: previous.location, statusCode: head.status, headers: head.headers), request)
        }
    }

    func receivedHead(_ head: HTTPClientResponseHead, attempt: Int, transport: HTTPRequestExecution) {
        guard let request = core.withLock({ core -> Request? in
            core.machine.receivedHead(attempt: attempt, transport: transport) ? core.machine.currentRequest : nil
        }) else { return }
        // The response's cookies (RFC 6265bis §5.7), before any hook sees it. (A redirect's were
        // stored by the redirect handler.)
        manager.storeCookies(from: head.headers, for: request.httpURL)
        let response = Response(location: request.location, head: head)
        manager.report(.response) { .response(self, response) }
        resolve(resolution(for: response, request: request), response: response, request: request, attempt: attempt)
    }

    /// Puts a head's resolution into effect: a decision now, a hook's on the completion queue, or
    /// the retrier's first.
    func resolve(_ resolution: HeadResolution, response: Response, request: Request, attempt: Int) {
        switch resolution {
        case .now(let decision):
            decide(decision, response: response, request: request, attempt: attempt)
        case .ask(let hook):
            manager.completionQueue.async { [self] in
                decide(hook(self), response: response, request: request, attempt: attempt)
            }
        case .askRetrier(let context):
            askRetrier(about: context, response: response, request: request, attempt: attempt)
        }
    }

    func receivedBody(_ part: ByteBuffer, attempt: Int, transport: HTTPRequestExecution) -> HTTPClientBodyDemand {
        let outcome = core.withLock { $0.machine.receivedBodyPart(part, attempt: attempt, transport: transport) }
        guard !outcome.actions.isEmpty else { return outcome.demand }
        run(outcome.actions)
        // A part written to the download sink: its answer (pause when the sink is full) is known
        // only now.
        guard case .write = outcome.actions.first else { return outcome.demand }
        return core.withLock { $0.machine.demand(attempt: attempt) }
    }

    func transportFinished(metrics: HTTPClientMetrics, attempt: Int) {
        run(core.withLock { $0.machine.transportFinished(metrics: metrics, attempt: attempt) })
    }

    func transportFailed(_ error: ClientError, metrics: HTTPClientMetrics, attempt: Int) {
        let url = core.withLock { $0.machine.currentRequest.url }
        let mapped = CourierError.session(from: error, url: url)
        run(core.withLock { $0.machine.transportFailed(mapped, metrics: metrics, attempt: attempt) })
    }

    /// The download sink wrote enough to take more.
    func sinkDrained() {
        run(core.withLock { $0.machine.sinkDrained() })
    }

    // MARK: Decisions

    /// Puts a decision about a head into effect; delivering first opens what the delivery needs.
    /// `request`: the attempt's request (it stays the current one while its head is decided).
    func decide(_ decision: HeadDecision, response: Response, request: Request, attempt: Int) {
        let machineDecision: TaskDecision<DownloadSink>
        switch decision {
        case .deliver:
            do throws(CourierError) {
                machineDecision = .deliver(try prepareDelivery(response, request: request))
            } catch {
                machineDecision = .fail(error)
            }
        case .follow(let request, let reason):
            machineDecision = .follow(request, reason)
        case .retry(let delay):
            machineDecision = .retry(after: delay)
        case .cancel:
            machineDecision = .cancel
        case .fail(let error):
            machineDecision = .fail(error)
        }
        run(core.withLock { $0.machine.decided(machineDecision, attempt: attempt) })
    }
}
