import CourierClient
import CourierCore
import FoundationEssentials

/// The logic of one ``SessionTask`` as a value: it takes events — from the caller (resume,
/// suspend, cancel), from the transport (head, body part, end, failure), from the session
/// (a hook's decision, the download sink drained or wrote, the next request prepared) — and
/// returns the ``TaskAction``s to perform. It never calls out; ``SessionTask`` keeps it in a
/// `Mutex` and performs the actions in one `run` switch, after the lock is released.
///
/// Generic over the transport handle and the download sink so that it is unit-tested without
/// sockets or files (`TaskStateMachineTests`); the task uses `HTTPRequestExecution` and `DownloadSink`.
///
/// Every transport event carries the attempt number it belongs to: an attempt is one HTTP
/// request of the task (redirects and authentication retries make more), and events of an
/// attempt the task has moved past are ignored.
struct TaskStateMachine<Transport: AnyObject & Sendable, Sink: AnyObject & Sendable> {
    typealias Action = TaskAction<Transport, Sink>
    typealias Actions = TaskActions<Transport, Sink>

    private(set) var phase: Phase = .idle
    /// The caller suspended the task: reading pauses at the next body part.
    private(set) var suspended = true
    /// The download sink has too much unwritten: reading pauses until it drains.
    private(set) var sinkBusy = false
    let originalRequest: Request
    let kind: SessionTask.Kind
    /// In-memory bodies larger than this fail (data and upload tasks).
    let bodyLimit: Int
    /// Whether received body bytes are kept (``SessionConfiguration/retainsDataTaskBodies``).
    let retainsBody: Bool

    // What the task has produced, across attempts.
    private(set) var currentRequest: Request
    /// The request to make next: the first one, or the one that follows a discarded response
    /// (an authentication retry), until it is launched. Kept here rather than in ``Phase`` so
    /// that phases and attempts stay small to copy.
    private(set) var pendingRequest: Request?
    /// The task has a retrier: a failed attempt is put to it (``TaskAction/askRetrier(_:)``)
    /// before the failure ends the task.
    let asksRetrier: Bool
    /// The running attempt's request as it was before the adapter ran: what a retry makes again
    /// (and adapts again).
    private(set) var retryRequest: Request?
    /// Retries made so far.
    private(set) var retryCount = 0
    /// Seconds to wait before the next attempt (a retry with a delay, decided on a head).
    private(set) var pendingDelay: Double = 0
    /// The failure the retrier is deciding about.
    private(set) var retryFailure: CourierError?
    private(set) var attemptCount = 0
    private(set) var response: Response?
    private(set) var error: CourierError?
    private(set) var metrics: TaskMetrics?
    private(set) var transactions: [HTTPClientMetrics] = []
    private(set) var redirectCount = 0
    private(set) var authenticationFailures = 0
    /// Digest answers repeated because the server called the nonce stale (RFC 7616 §3.3): not
    /// failures, but bounded too.
    private(set) var staleNonceRetries = 0
    private(set) var body = Data()
    private(set) var bodyBytes: Int64 = 0
    private(set) var sink: Sink?
    /// Bytes already in the download file before this attempt (a resumed download).
    private(set) var resumeOffset: Int64
    private(set) var validator: String?
    private(set) var resumeData: Data?
    private(set) var startDate: Date?
    /// When the task must have ended (monotonic), fixed by the first `resume()`.
    private(set) var deadline: Deadline?
    /// The download's temporary file (download tasks).
    let downloadPath: String?
    /// Why a cancellation (or a sink failure) ends the task.
    private(set) var cancellation: CourierError?
    /// The stored response the first request revalidates (its conditional fields are on it): a
    /// 304 answers with it (``revalidating(_:)``).
    private(set) var revalidating: CachedResponse?
    /// Where the response came from (``TaskMetrics/responseSource``).
    private(set) var responseSource: ResponseSource = .network

    init(
        request: Request, kind: SessionTask.Kind, bodyLimit: Int, downloadPath: String? = nil, resumeOffset: Int64 = 0,
        asksRetrier: Bool = false, retainsBody: Bool = true
    ) {
        self.retainsBody = retainsBody
        self.originalRequest = request
        self.asksRetrier = asksRetrier
        self.downloadPath = downloadPath
        self.currentRequest = request
        self.kind = kind
        self.bodyLimit = bodyLimit
        self.resumeOffset = resumeOffset
    }
}

// MARK: - Caller events

extension TaskStateMachine {
    /// `resume()`: starts an idle task (the session then prepares its first request), or lets a
    /// suspended one read again.
    mutating func resume(deadline: Deadline?) -> Actions {
        switch phase {
        case .idle:
            suspended = false
            self.deadline = deadline
            pendingRequest = currentRequest
            phase = .preparing
            startDate = Date()
            return Actions(.publishResumed, .prepare)
        case .preparing, .retrying, .finishing:
            guard suspended else { return .none }
            suspended = false
            return Actions(.publishResumed)
        case .running(var attempt):
            guard suspended else { return .none }
            suspended = false
            var actions = Actions(.publishResumed)
            if let transport = resumeIfAllowed(&attempt) { actions.append(.resumeReading(transport)) }
            phase = .running(attempt)
            return actions
        case .canceling, .completed:
            return .none
        }
    }

    /// `suspend()`: reading pauses at the next body part. An idle task stays idle.
    mutating func suspend() -> Actions {
        guard state == .running else { return .none }
        suspended = true
        return Actions(.publishSuspended)
    }

    /// `cancel()`, or a failure of the session's own (the download file could not be written):
    /// ends the task with `error`, at once when no transport request is in flight, else when it
    /// confirms. Too late once a download's file is being finished.
    mutating func cancel(_ error: CourierError? = nil) -> Actions {
        let error = error ?? cancelledError
        switch phase {
        case .idle, .preparing, .retrying:
            cancellation = error
            return complete(.failure(error))
        case .running(let attempt):
            cancellation = error
            switch attempt.transport {
            case .launching:
                phase = .canceling(attempt: attempt.number, transport: nil)
                return .none
            case .running(let transport):
                phase = .canceling(attempt: attempt.number, transport: transport)
                return Actions(.cancelTransport(transport))
            case .ended:
                // The response ended while a hook decided or a held part was written: nothing
                // else will end the task.
                return complete(.failure(error))
            }
        case .canceling, .finishing, .completed:
            return .none
        }
    }
}

// MARK: - Session events

extension TaskStateMachine {
    /// The session answered the request from its cache: the task succeeds without the network.
    mutating func answeredFromCache(_ cached: Response, data: Data) -> Actions {
        guard case .preparing = phase else { return .none }
        response = cached
        body = data
        bodyBytes = Int64(data.count)
        responseSource = .cache
        return Actions(.announceDownload(completed: bodyBytes, total: bodyBytes)) + complete(.success(.data(data)))
    }

    /// The session found a stale (or `no-cache`) stored response and prepares a conditional
    /// request for it (RFC 9111 §4.3.1): a `304` to the first attempt, without a redirect, then
    /// completes the task with `stored` updated by the 304's head; any other response is the
    /// task's as usual (and the session's cache replaces the entry with it).
    mutating func revalidating(_ stored: CachedResponse) {
        guard case .preparing = phase, attemptCount == 0 else { return }
        revalidating = stored
    }

    /// The session could not prepare the request (invalid URL, deadline passed, invalidated
    /// session, bad resume data): the task fails.
    mutating func preparationFailed(_ error: CourierError) -> Actions {
        guard case .preparing = phase else { return .none }
        return complete(.failure(error))
    }

    /// The next request is ready for the transport: a new attempt starts. Returns its number
    /// for the session to hand the request to the transport with (then `launched`), or nil when
    /// the task ended meanwhile.
    mutating func launch(_ request: Request) -> Int? {
        guard case .preparing = phase else { return nil }
        attemptCount += 1
        currentRequest = request
        if asksRetrier { retryRequest = pendingRequest }
        pendingRequest = nil
        phase = .running(Attempt(number: attemptCount, transport: .launching, step: .awaitingHead))
        return attemptCount
    }

    /// `execute` returned the transport handle of `attempt`.
    mutating func launched(_ transport: Transport, attempt number: Int) -> Actions {
        switch phase {
        case .running(var attempt) where attempt.number == number:
            if case .launching = attempt.transport {
                attempt.transport = .running(transport)
                phase = .running(attempt)
            }
            return .none
        case .canceling(number, nil):
            phase = .canceling(attempt: number, transport: transport)
            return Actions(.cancelTransport(transport))
        default:
            // The task moved past this attempt (it failed or completed first): no request may
            // run for nobody. Cancelling a request that already ended does nothing.
            return Actions(.cancelTransport(transport))
        }
    }

    /// A hook decided about the head of `attempt` (or the head needed no hook).
    mutating func decided(_ decision: TaskDecision<Sink>, attempt number: Int) -> Actions {
        guard var attempt = current(number) else {
            // Moved on, or cancelled while the hook ran (the transport's end completes the task).
            return abandon(decision)
        }
        // A decision answers a head: only an attempt that is deciding takes one.
        guard case .deciding(let held) = attempt.step else { return abandon(decision) }
        switch decision {
        case .cancel:
            return cancel()
        case .fail(let error):
            return fail(error, attempt: attempt)
        case .retry(let delay):
            // The response is dropped and the attempt made again once its body is read. (Only a
            // task with a retrier decides so; it kept the attempt's request before adaptation.)
            retryCount += 1
            pendingDelay = delay
            attempt.step = .discarding
            pendingRequest = retryRequest ?? currentRequest
            if case .ended = attempt.transport { return prepareNext() }
            var actions = Actions.none
            if let transport = resumeIfAllowed(&attempt) { actions.append(.resumeReading(transport)) }
            phase = .running(attempt)
            return actions
        case .follow(let next, let reason):
            switch reason {
            case .authentication: authenticationFailures += 1
            case .staleNonce: staleNonceRetries += 1
            }
            attempt.step = .discarding
            pendingRequest = next
            if case .ended = attempt.transport { return prepareNext() }
            var actions = Actions.none
            if let transport = resumeIfAllowed(&attempt) { actions.append(.resumeReading(transport)) }
            phase = .running(attempt)
            return actions
        case .deliver(let delivery) where delivery.response.statusCode == 304 && redirectCount == 0 && delivery.sink == nil && revalidating != nil:
            guard let stored = revalidating else { return .none }
            // §4.3.4: the stored response, its head updated by the 304's, answers.
            let updated = CacheRules.updated(stored, with: delivery.response)
            response = updated.response
            body = updated.data
            bodyBytes = Int64(updated.data.count)
            responseSource = .revalidated
            attempt.step = .servingStored
            let actions = Actions(.announceDownload(completed: bodyBytes, total: bodyBytes))
            if case .ended = attempt.transport {
                phase = .running(attempt)
                return actions + complete(.success(.data(body)))
            }
            var more = Actions.none
            if let transport = resumeIfAllowed(&attempt) { more.append(.resumeReading(transport)) }
            phase = .running(attempt)
            return actions + more
        case .deliver(let delivery):
            response = delivery.response
            sink = delivery.sink
            resumeOffset = delivery.resumeOffset
            validator = delivery.validator
            body = Data()
            bodyBytes = 0
            var actions = Actions(.announceDownload(completed: delivery.resumeOffset, total: delivery.total))
            if let held {
                if let sink {
                    // Reading stays paused until the sink took the part (`partWritten`).
                    attempt.step = .delivering(writingHeld: true)
                    phase = .running(attempt)
                    bodyBytes += Int64(held.readableBytes)
                    actions.append(.write(held, to: sink, attempt: number, held: true))
                    actions.append(.reportDownload(completed: resumeOffset + bodyBytes))
                    return actions
                }
                attempt.step = .delivering(writingHeld: false)
                phase = .running(attempt)
                switch append(held) {
                case .tooLarge(let error): return actions + fail(error, attempt: attempt)
                case .appended: actions.append(.reportDownload(completed: resumeOffset + bodyBytes))
                }
                actions.append(.forwardData(held))
            } else {
                attempt.step = .delivering(writingHeld: false)
            }
            if case .ended = attempt.transport {
                phase = .running(attempt)
                return actions + responseEnded()
            }
            if let transport = resumeIfAllowed(&attempt) { actions.append(.resumeReading(transport)) }
            phase = .running(attempt)
            return actions
        }
    }

    /// The download sink took a part (`write`); `busy`: it asks to stop reading until it drains.
    /// `held`: the part was held while a hook decided, and the response may go on now.
    mutating func partWritten(busy: Bool, held: Bool, attempt number: Int) -> Actions {
        guard var attempt = current(number), case .delivering(let writingHeld) = attempt.step, writingHeld == held else { return .none }
        if busy { sinkBusy = true } else if held { sinkBusy = false }
        if held {
            attempt.step = .delivering(writingHeld: false)
            phase = .running(attempt)
            if case .ended = attempt.transport { return responseEnded() }
            guard let transport = resumeIfAllowed(&attempt) else { return .none }
            phase = .running(attempt)
            return Actions(.resumeReading(transport))
        }
        _ = pauseUnlessReadable(&attempt)
        phase = .running(attempt)
        return .none
    }

    /// What to answer the transport after the actions of a body part ran: `.pause` when the task
    /// owes it a `resumeReading()`.
    func demand(attempt number: Int) -> HTTPClientBodyDemand {
        guard let attempt = current(number) else { return .more }
        return attempt.transportPaused ? .pause : .more
    }

    /// The download sink wrote enough to take more.
    mutating func sinkDrained() -> Actions {
        sinkBusy = false
        guard case .running(var attempt) = phase, let transport = resumeIfAllowed(&attempt) else { return .none }
        phase = .running(attempt)
        return Actions(.resumeReading(transport))
    }

    /// The download's file is complete and in place (or could not be): the task ends.
    mutating func downloadFinished(_ result: Result<URL, CourierError>) -> Actions {
        guard case .finishing = phase else { return .none }
        switch result {
        case .success(let url): return complete(.success(.file(url)))
        case .failure(let error): return complete(.failure(error))
        }
    }
}

// MARK: - Transport events

extension TaskStateMachine {
    /// Whether the request body progress of `attempt` still matters.
    func isCurrent(_ number: Int) -> Bool { current(number) != nil }

    /// The response head of `attempt` arrived; `transport` is its handle (the transport may
    /// call back before `execute` returned it). The session then works out a ``TaskDecision``,
    /// at once or through a hook, and reports it with ``decided(_:attempt:)``.
    ///
    /// Returns false when the attempt is no longer the task's (nothing to decide).
    mutating func receivedHead(attempt number: Int, transport: Transport) -> Bool {
        guard var attempt = current(number), case .awaitingHead = attempt.step else { return false }
        adopt(transport, into: &attempt)
        attempt.step = .deciding(held: nil)
        phase = .running(attempt)
        return true
    }

    /// The transport followed a redirect of `attempt` (its redirect handler — the session's
    /// hook — agreed): one more transaction, and `request` is the one being made now.
    mutating func redirected(to request: Request, metrics: HTTPClientMetrics, attempt number: Int, transport: Transport) {
        guard var attempt = current(number), case .awaitingHead = attempt.step else { return }
        adopt(transport, into: &attempt)
        phase = .running(attempt)
        transactions.append(metrics)
        redirectCount += 1
        currentRequest = request
    }

    /// A piece of the body of `attempt`. Returns whether the transport may keep reading, and
    /// what to do with the piece.
    mutating func receivedBodyPart(_ part: ByteBuffer, attempt number: Int, transport: Transport) -> BodyPartOutcome<Transport, Sink> {
        guard var attempt = current(number) else { return BodyPartOutcome(demand: .more, actions: .none) }
        adopt(transport, into: &attempt)
        switch attempt.step {
        case .awaitingHead, .discarding, .servingStored:
            phase = .running(attempt)
            return BodyPartOutcome(demand: .more, actions: .none)
        case .deciding(let held):
            // The transport stops after this `.pause`; should one more part come first, it is
            // kept too (appended), never dropped.
            var kept = part
            if var earlier = held {
                earlier.writeBuffer(part)
                kept = earlier
            }
            attempt.step = .deciding(held: kept)
            attempt.transportPaused = true
            phase = .running(attempt)
            return BodyPartOutcome(demand: .pause, actions: .none)
        case .delivering(writingHeld: true):
            // The transport was told to pause before this part was held, and is resumed only
            // after the held part was written: a part now breaks that contract, and writing it
            // could reorder the file.
            let error = CourierError(.transport, phase: .receive, failingURL: currentRequest.url,
                                     detail: "the transport delivered a body part while paused")
            return BodyPartOutcome(demand: .pause, actions: fail(error, attempt: attempt))
        case .delivering(writingHeld: false):
            if let sink {
                bodyBytes += Int64(part.readableBytes)
                phase = .running(attempt)
                return BodyPartOutcome(
                    demand: .more, actions: Actions(.write(part, to: sink, attempt: number, held: false), .reportDownload(completed: resumeOffset + bodyBytes)))
            }
            switch append(part) {
            case .tooLarge(let error):
                return BodyPartOutcome(demand: .more, actions: fail(error, attempt: attempt))
            case .appended:
                let demand = pauseUnlessReadable(&attempt)
                phase = .running(attempt)
                return BodyPartOutcome(demand: demand, actions: Actions(.reportDownload(completed: resumeOffset + bodyBytes), .forwardData(part)))
            }
        }
    }

    /// The response of `attempt` ended (its body was read to the end).
    mutating func transportFinished(metrics: HTTPClientMetrics, attempt number: Int) -> Actions {
        if case .canceling(number, _) = phase {
            // A cancel that raced the end of the response wins, as it does for the transport.
            transactions.append(metrics)
            return complete(.failure(cancellation ?? cancelledError))
        }
        guard var attempt = current(number) else { return .none }
        transactions.append(metrics)
        attempt.transport = .ended
        phase = .running(attempt)
        switch attempt.step {
        case .awaitingHead:
            return complete(.failure(CourierError(.noResponse, failingURL: currentRequest.url, detail: "the response ended without a head")))
        case .deciding, .delivering(writingHeld: true):
            return .none  // the decision (or the held part's write) ends it
        case .discarding:
            return prepareNext()
        case .servingStored:
            return complete(.success(.data(body)))
        case .delivering(writingHeld: false):
            return responseEnded()
        }
    }

    /// The transport request of `attempt` failed; `error` is already in the session's terms.
    mutating func transportFailed(_ error: CourierError, metrics: HTTPClientMetrics, attempt number: Int) -> Actions {
        if case .canceling(number, _) = phase {
            transactions.append(metrics)
            return complete(.failure(cancellation ?? cancelledError))
        }
        guard current(number) != nil else { return .none }
        transactions.append(metrics)
        // A download that has started its file is not made again: its resume data says how to
        // continue.
        guard asksRetrier, sink == nil else { return complete(.failure(error)) }
        phase = .retrying
        retryFailure = error
        let context = RetryContext(
            request: currentRequest, response: response, error: error, retryCount: retryCount, requestBytesSent: metrics.bytesSent > 0)
        return Actions(.askRetrier(context))
    }
}

// MARK: - Retries

extension TaskStateMachine {
    /// The retrier decided about the failed attempt (``TaskAction/askRetrier(_:)``): `delay`
    /// seconds until the attempt is made again, or nil to let the failure stand (or `error`, the
    /// retrier's own, take its place).
    mutating func retryDecided(delay: Double?, error: CourierError? = nil) -> Actions {
        guard case .retrying = phase, let failure = retryFailure else { return .none }
        retryFailure = nil
        guard let delay, let retryRequest else { return complete(.failure(error ?? failure)) }
        retryCount += 1
        pendingDelay = delay
        // What the failed attempt delivered is not the task's.
        response = nil
        body = Data()
        bodyBytes = 0
        pendingRequest = retryRequest
        return prepareNext()
    }

    /// The next attempt is to be prepared: now, or after a retry's delay.
    private mutating func prepareNext() -> Actions {
        phase = .preparing
        guard pendingDelay > 0 else { return Actions(.prepare) }
        defer { pendingDelay = 0 }
        return Actions(.prepareAfter(pendingDelay))
    }
}

// MARK: - Steps shared by several events

extension TaskStateMachine {
    private enum Appended {
        case appended
        case tooLarge(CourierError)
    }

    private mutating func append(_ part: ByteBuffer) -> Appended {
        let count = part.readableBytes
        guard retainsBody else {
            bodyBytes += Int64(count)
            return .appended
        }
        guard body.count + count <= bodyLimit else {
            return .tooLarge(CourierError(
                .bodyTooLarge, failingURL: originalRequest.url,
                detail: "the body is larger than maximumInMemoryBodySize (\(bodyLimit) bytes); use a download task"))
        }
        part.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        bodyBytes += Int64(count)
        return .appended
    }

    /// Something the session found ends the task: the attempt is stopped and its later events
    /// are ignored.
    private mutating func fail(_ error: CourierError, attempt: Attempt) -> Actions {
        var actions = Actions.none
        if let transport = attempt.transport.handle { actions.append(.cancelTransport(transport)) }
        return actions + complete(.failure(error))
    }

    /// The decision is not used: a sink it opened is closed (keeping a resumed download's file).
    private func abandon(_ decision: TaskDecision<Sink>) -> Actions {
        guard case .deliver(let delivery) = decision, let sink = delivery.sink else { return .none }
        return Actions(.abandonSink(sink, keepFile: delivery.resumeOffset > 0))
    }

    /// The delivered response is complete: a data task ends, a download finishes its file.
    private mutating func responseEnded() -> Actions {
        guard kind == .download, let sink else { return complete(.success(.data(body))) }
        phase = .finishing
        return Actions(.finishDownload(sink))
    }

    /// Ends the task exactly once: metrics closed, resume data made for a download that can be
    /// continued, and the outcome handed over for serialization and completion.
    private mutating func complete(_ outcome: Result<TaskCompletion.Body, CourierError>) -> Actions {
        if case .completed = phase { return .none }
        phase = .completed
        let now = Date()
        let metrics = TaskMetrics(
            transactionMetrics: transactions, taskStart: startDate ?? now, taskEnd: now, redirectCount: redirectCount, retryCount: retryCount,
            attemptCount: attemptCount, responseSource: responseSource)
        self.metrics = metrics
        var raw = TaskCompletion.Outcome(request: currentRequest, response: response, data: nil, fileURL: nil, error: nil, metrics: metrics)
        var abandonSink: Sink?
        var keepFile = false
        switch outcome {
        case .success(.data(let data)):
            raw.data = data
        case .success(.file(let url)):
            raw.fileURL = url
        case .failure(let failure):
            let full = failure.with(response: response, body: kind == .download ? nil : body, failingURL: currentRequest.url)
            error = full
            raw.error = full
            raw.data = kind == .download ? nil : body
            if kind == .download, let sink {
                abandonSink = sink
                resumeData = makeResumeData(after: failure)
                raw.resumeData = resumeData
                keepFile = resumeData != nil
            }
        }
        let succeeded = !outcome.isFailure
        return Actions(.complete(TaskCompletion.Ending(outcome: raw, abandonSink: abandonSink, keepFile: keepFile,
                                                      finalSize: succeeded ? resumeOffset + bodyBytes : nil)))
    }
}
