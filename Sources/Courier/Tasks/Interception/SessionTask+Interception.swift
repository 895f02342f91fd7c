import CourierCore
import FoundationEssentials

extension SessionTask {
    /// Runs `work` — adapting a request, asking the retrier, waiting out a retry's delay — as the
    /// task's interception, which a cancel of the task ends (``endInterception()``). A task that
    /// already ended has it cancelled at once; what it reports then is ignored by the machine.
    ///
    /// The work starts on the calling thread and runs there until it first suspends (an adapter
    /// or retrier that decides at once costs no thread hop: measured, a hop per request cost a
    /// do-nothing interceptor 8 µs on W2); after a suspension it continues on
    /// ``InterceptionExecutor``. So interceptors must not block: they may run on an event loop.
    func intercept(_ work: @escaping @Sendable () async -> Void) {
        // Numbered so that a later interception's handle is never replaced by an earlier one's.
        let number = core.withLock { core in
            core.interceptionNumber += 1
            return core.interceptionNumber
        }
        let running = Task.immediateDetached(executorPreference: InterceptionExecutor.shared) { await work() }
        let ended = core.withLock { core -> Bool in
            if core.machine.state == .completed { return true }
            if core.interceptionNumber == number { core.interception = running }
            return false
        }
        if ended { running.cancel() }
    }

    /// Cancels the interception in progress, if any (the task was cancelled).
    func endInterception() {
        let running = core.withLock { core in
            defer { core.interception = nil }
            return core.interception
        }
        running?.cancel()
    }

    /// Puts a failed attempt to the retrier (``TaskAction/askRetrier(_:)``) and reports its
    /// decision to the machine.
    func askRetrier(_ context: RetryContext) {
        guard let interceptor else { return }
        intercept { [self] in
            let decision = await interceptor.retry(context)
            let (delay, error) = retryDelay(for: decision)
            manager.report(.retryDecided) { .retryDecided(self, delay, context.error) }
            run(core.withLock { $0.machine.retryDecided(delay: delay, error: error) })
        }
    }

    /// Puts a response head with an error status (RFC 9110 §15.5, §15.6) to the retrier: a
    /// retry drops the response and makes the attempt again; otherwise the head is decided as
    /// any other (the response disposition hook, then delivery).
    func askRetrier(about context: RetryContext, response: Response, request: Request, attempt: Int) {
        guard let interceptor else { return }
        intercept { [self] in
            let decision = await interceptor.retry(context)
            let (delay, error) = retryDelay(for: decision)
            manager.report(.retryDecided) { .retryDecided(self, delay, context.error) }
            switch (delay, error) {
            case (let delay?, _):
                decide(.retry(after: delay), response: response, request: request, attempt: attempt)
            case (nil, let error?):
                decide(.fail(error), response: response, request: request, attempt: attempt)
            case (nil, nil):
                let hook = manager.hook(\.dataTaskDidReceiveResponse)
                resolve(dispositionResolution(for: response, hook: hook), response: response, request: request, attempt: attempt)
            }
        }
    }

    /// The seconds until the next attempt for `decision` (nil: no retry), and the retrier's own
    /// error. A delay that would end past the task's deadline is no retry: the failure stands
    /// rather than the task timing out while it waits.
    private func retryDelay(for decision: RetryDecision) -> (delay: Double?, error: CourierError?) {
        switch decision {
        case .retry:
            return (0, nil)
        case .retryWithDelay(let seconds):
            guard seconds.isFinite else { return (nil, nil) }
            let delay = max(0, seconds)
            if let deadline = core.withLock({ $0.machine.deadline }),
               Double(deadline.remaining().nanoseconds) / 1e9 <= delay { return (nil, nil) }
            return (delay, nil)
        case .doNotRetry:
            return (nil, nil)
        case .doNotRetryWithError(let error):
            return (nil, error)
        }
    }
}

extension CourierError {
    /// An adapter's failure as the task reports it: a ``CourierError`` as it is, anything else as
    /// ``Code/requestAdaptationFailed`` naming the adapter, with the error underneath.
    static func adaptation(_ error: any Error, by adapter: any RequestAdapter, url: URL) -> CourierError {
        if let error = error as? CourierError { return error }
        return CourierError(.requestAdaptationFailed, underlying: error, failingURL: url,
                            detail: "the request adapter \(type(of: adapter)) failed: \(error)")
    }
}
