#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS

/// One HTTP/1.1 connection: the I/O driver around ``HTTP1ConnectionStateMachine``.
/// (Setup — connect, proxy tunnel, TLS — is in `HTTP1Connection+Setup.swift`; socket reads and
/// writes in `HTTP1Connection+IO.swift`.)
///
/// It connects (Happy Eyeballs, or a Unix path), opens a CONNECT tunnel through a proxy when
/// needed, performs the TLS handshake, then runs one request at a time: it executes every
/// action the state machine returns (write, read or stop reading, deliver, finish, close) and
/// feeds it every event (bytes, EOF, errors, timers, cancellation).
///
/// `@unchecked Sendable`: every mutable member is confined to `loop` (each entry point either
/// runs there or hops there with `loop.execute`); `id`, `poolEntry` (and so `key`), `loop` and `pool` are immutable.
final class HTTP1Connection: Selectable, EventLoopTask, @unchecked Sendable {
    enum Phase {
        case connecting
        case proxyHandshake
        case tlsHandshake
        case ready
        case closed
    }

    // Stored properties are laid out in declaration order, and with many connections each
    // request finds its connection out of the cache: every line the members a request touches
    // span is a miss. So those members come first, in about the order a request touches them,
    // and what only setup, proxies and TLS use comes after the state machine.
    let id: Int
    /// The pool's entry for the connection's key (its machine and connection table), so the
    /// connection's inputs to the pool find them without a lookup.
    let poolEntry: ConnectionPool.Entry
    var key: PoolKey { poolEntry.key }
    let loop: EventLoop
    /// Strong: a connection may still report to its pool after `shutdown()` returned (a close
    /// queued on its loop). The cycle ends when the pool forgets the connection.
    let pool: ConnectionPool

    // Loop-confined from here on. Internal rather than private only so that the setup and I/O
    // extensions in the sibling files can reach them; nothing outside this type touches them.
    //
    // `@exclusivity(unchecked)`: Swift checks every access to a class's stored property at run
    // time for an overlapping `inout` access, and these checks cost about 2,700 instructions per
    // keep-alive request (callgrind, `courier bench`). Only the loop thread touches these
    // members (the thread sanitizer run watches that), and no member is passed `inout` to code
    // that reaches back into the connection: each action is computed by the state machine, a
    // value, and performed after its mutation ended. Every other type keeps the checks.
    @exclusivity(unchecked) var phase: Phase = .connecting
    /// The socket, which owns the descriptor (open while it is here).
    @exclusivity(unchecked) var socket: Socket? { didSet { descriptor = socket?.descriptor ?? -1 } }
    /// `socket`'s descriptor, or -1: each read and write goes to it directly (`Socket`'s static
    /// calls). Going through the object cost a retain and a release per call and, with many
    /// connections, a cache miss on its line, which nothing else touches per request. Kept in
    /// step by `socket`'s observer: the socket is closed only by `closeSocket`, which drops it.
    @exclusivity(unchecked) var descriptor: Int32 = -1
    @exclusivity(unchecked) var registration: RegistrationID?
    @exclusivity(unchecked) var interest: Interest = []
    @exclusivity(unchecked) var isDraining = false
    @exclusivity(unchecked) var isPumping = false
    /// Out of the selector while reading is paused: see `selectorReady`.
    @exclusivity(unchecked) var suspended = false
    @exclusivity(unchecked) var requestWritten = false
    @exclusivity(unchecked) var bodyPumpActive = false
    @exclusivity(unchecked) var tls: TLSEngine?
    @exclusivity(unchecked) var readBuffer = ByteBuffer()
    @exclusivity(unchecked) var readSize = 4 * 1024
    @exclusivity(unchecked) var outbound: [ByteBuffer] = []
    @exclusivity(unchecked) var outboundBytes = 0

    // The request in flight.
    @exclusivity(unchecked) var execution: HTTPRequestExecution?
    /// The addresses and TLS facts of `establishment`, boxed for every request's metrics (made
    /// when the first request is attached, after setup finished).
    @exclusivity(unchecked) var facts: ConnectionFacts?
    @exclusivity(unchecked) var lastRead = Deadline.now()
    /// When `execute` began the request in flight (one clock read serves this and `lastRead`).
    @exclusivity(unchecked) var requestStartedAt = Deadline(uptimeNanoseconds: 0)
    @exclusivity(unchecked) var bytesReceivedAtStart = 0
    @exclusivity(unchecked) var responseFraming: BodyFraming?
    @exclusivity(unchecked) var idleReadTimer: TimerID?
    @exclusivity(unchecked) var idleReadDue = Deadline.distantPast
    @exclusivity(unchecked) var totalTimer: TimerID?
    @exclusivity(unchecked) var idleTimer: TimerID?
    @exclusivity(unchecked) var idleDue = Deadline.distantPast
    /// When the pool last parked this connection; nil while leased or closed.
    @exclusivity(unchecked) var parkedAt: Deadline?
    @exclusivity(unchecked) var idleTimeout: TimeAmount = .zero
    @exclusivity(unchecked) var bodySource: RequestBodySource?
    /// Set while the body stream asked to wait before its next piece (`waitAfterEmptyPiece`).
    @exclusivity(unchecked) var bodyWaitTimer: TimerID?
    /// Set while an `AsyncSequence` body's pipe is empty: its wake-up resumes the pump.
    @exclusivity(unchecked) var bodyAwaitingWakeUp = false
    /// Request body payload bytes handed over so far (no head, no chunk framing), for
    /// `didSendRequestBody(total:)`.
    @exclusivity(unchecked) var bodyBytesSent: Int64 = 0
    /// Empty request body pieces in a row from a stream that gave no wait (see `pumpBody`).
    @exclusivity(unchecked) var emptyPiecesInARow = 0
    @exclusivity(unchecked) var continueTimer: TimerID?
    @exclusivity(unchecked) var machine: HTTP1ConnectionStateMachine

    /// The execution a lease from another thread hands over, until ``runOnEventLoop()`` takes
    /// it. Written before `loop.execute(task:)` and read in the task: the loop's queue lock
    /// orders the two.
    @exclusivity(unchecked) var leasedExecution: HTTPRequestExecution?
    let timeouts: HTTPClientTimeouts

    // Setup: connecting, proxies, TLS.
    let configuration: HTTPClientConfiguration
    @exclusivity(unchecked) var connector: Connector?
    @exclusivity(unchecked) var cipherIn = ByteBuffer()
    @exclusivity(unchecked) var proxyParser: HTTPResponseParser?
    /// The SOCKS5 handshake while it runs, and the `socks5` lookup of the origin before it.
    @exclusivity(unchecked) var socks: SOCKS5Handshake?
    @exclusivity(unchecked) var socksLookup: ResolveHandle?
    /// When connecting must be done (TCP, and a SOCKS5 handshake): nil without a connect timeout.
    @exclusivity(unchecked) var connectDeadline: Deadline?
    @exclusivity(unchecked) var establishment = ConnectionEstablishment()
    @exclusivity(unchecked) var setupTimer: TimerID?

    init(
        id: Int, entry: ConnectionPool.Entry, loop: EventLoop, pool: ConnectionPool,
        configuration: HTTPClientConfiguration, timeouts: HTTPClientTimeouts
    ) {
        self.id = id
        self.poolEntry = entry
        self.loop = loop
        self.pool = pool
        self.configuration = configuration
        self.timeouts = timeouts
        self.machine = HTTP1ConnectionStateMachine(maximumUses: configuration.maximumUsesPerConnection, parserConfiguration: configuration.parser)
        machine.headMemory = pool.headMemory(of: entry, on: loop)
    }

    // MARK: - Requests

    /// The pool leased this connection to `execution`: runs it at once when the lease comes
    /// from the execution's own start job on this loop (a clean stack), otherwise on the loop's
    /// queue. Called from any thread; the pool leases a connection to one execution at a time.
    func run(leased execution: HTTPRequestExecution) {
        if loop.inEventLoop && execution.isStarting(on: loop) {
            execute(execution)
        } else {
            // Read by `runOnEventLoop`, after the queue's lock orders the two threads.
            leasedExecution = execution
            loop.execute(task: self)
        }
    }

    /// The hop a lease makes to this loop: a task, so it allocates no closure context.
    func runOnEventLoop() {
        guard let execution = leasedExecution else { return }
        leasedExecution = nil
        execute(execution)
    }

    /// Runs `execution` on this connection. Called on the loop after the pool leased it.
    func execute(_ execution: HTTPRequestExecution) {
        loop.assertInEventLoop()
        leaveIdle()
        guard phase == .ready, machine.isReusable else {
            // Closed between the lease and now (stale): not the execution's fault, get another.
            pool.connectionReleased(self, reusable: false)
            execution.connectionUnusable()
            return
        }
        // The connect and TLS times go to the first request only; the addresses and TLS facts,
        // boxed once here, to every request.
        let first = machine.uses == 0
        if first || facts == nil { facts = ConnectionFacts(establishment) }
        guard let start = execution.attach(to: self, isFirstRequest: first) else {
            // Cancelled while waiting: hand the connection straight back.
            pool.connectionReleased(self, reusable: true)
            return
        }
        self.execution = execution
        requestWritten = false
        responseFraming = nil
        bodyPumpActive = false
        bodyBytesSent = 0
        bytesReceivedAtStart = machine.responseBytesConsumed
        requestStartedAt = .now()
        lastRead = requestStartedAt
        armRequestTimers(start.deadline)
        let kind: HTTP1ConnectionStateMachine.RequestBodyKind
        if case .none = start.body {
            // Most requests: no source to make, and `bodySource` is nil already (`stopBody` ends
            // every request).
            kind = .none
        } else {
            let source: RequestBodySource?
            do {
                // The wake-up is made only for a body that needs one (an `AsyncSequence`): a weak
                // capture per request would give the connection a side table, and every retain and
                // release of it would take the runtime's slow path from then on.
                (kind, source) = try RequestBodySource.make(start.body) { [loop] in
                    { [weak self] in
                        guard let connection = self else { return }
                        loop.execute { connection.bodyWokenUp() }
                    }
                }
            } catch {
                finishExecution()
                pool.connectionReleased(self, reusable: true)
                execution.failed(error)
                return
            }
            bodySource = source
        }
        execution.bodyKind = kind
        let action = machine.startRequest(
            head: start.head, host: start.host, body: kind, expectContinue: start.expectContinue, bodyReplayable: true,
            source: start.source, sourceIsKeepable: start.sourceIsKeepable)
        process(consume action)
        // Bytes read before the request (or a paused read) are the machine's to judge now. With
        // none buffered and reading on, it could only answer `.wait(.read)`, which changes
        // nothing: most requests skip asking.
        if self.execution === execution, readBuffer.readableBytes > 0 || !interest.contains(.read) { drainInbound() }
    }

    /// Cancels `execution` if it is the one in flight here.
    func cancel(_ execution: HTTPRequestExecution) {
        loop.assertInEventLoop()
        guard self.execution === execution else { return }
        process(machine.cancel())
    }

    /// Fails `execution`'s response for a reason of its own (a redirect answer that cannot be
    /// followed); the connection is not reused.
    func fail(_ execution: HTTPRequestExecution, _ error: ClientError) {
        loop.assertInEventLoop()
        guard self.execution === execution else { return }
        process(machine.errorCaught(error))
    }

    /// The execution's delegate wants body bytes again.
    func resumeReading(_ execution: HTTPRequestExecution) {
        loop.assertInEventLoop()
        guard self.execution === execution else { return }
        process(machine.demandMoreResponseBody())
    }

    func armRequestTimers(_ deadline: Deadline?) {
        if let deadline {
            totalTimer = loop.scheduleTimer(at: deadline) { [self] in
                totalTimer = nil
                process(machine.timeout(.total))
            }
        }
        scheduleIdleReadTimer()
    }

    /// Arms the idle-read timer for the request in flight. The timer outlives requests: it is
    /// not cancelled when a request ends, and a new request reuses it when it would fire no
    /// later than needed, so a keep-alive connection does not schedule and cancel a timer per
    /// request. When it fires it re-reads the current request's limit and `lastRead`.
    func scheduleIdleReadTimer() {
        // The limit is the request's (its override, else the client's), not the connection's:
        // a connection opened for a request without an idle limit may carry one with a limit.
        guard let execution, let limit = execution.idleReadTimeout else { return }
        let due = lastRead + limit
        if let idleReadTimer {
            if idleReadDue <= due { return }
            loop.cancelTimer(idleReadTimer)
        }
        idleReadDue = due
        idleReadTimer = loop.scheduleTimer(at: due) { [self] in
            idleReadTimer = nil
            guard let execution = self.execution, let limit = execution.idleReadTimeout else { return }
            // Reads move `lastRead` instead of rescheduling the timer on every read. While the
            // delegate has paused the body, the silence is ours, not the server's.
            if machine.isPaused { lastRead = .now() }
            if Deadline.now() - lastRead >= limit {
                process(machine.timeout(.idleRead))
            } else {
                scheduleIdleReadTimer()
            }
        }
    }

    /// Cancels the request's own timers; the idle-read timer stays (see `scheduleIdleReadTimer`).
    func cancelRequestTimers() {
        if let totalTimer { loop.cancelTimer(totalTimer) }
        if let continueTimer { loop.cancelTimer(continueTimer) }
        totalTimer = nil
        continueTimer = nil
    }

    /// Executes one state machine action. Consumed, so the payloads (a head, body bytes) move
    /// out of it rather than being copied and the action destroyed after.
    func process(_ action: consuming HTTP1ConnectionStateMachine.Action) {
        switch consume action {
        case .write(let bytes, let then):
            execution?.sent(bytes: bytes.readableBytes, requestStartedAt: requestStartedAt)
            write(bytes)
            switch then {
            case .sendRequestBody:
                bodyPumpActive = true
                pumpBody()
            case .waitForContinue:
                continueTimer = loop.scheduleTimer(at: .after(.seconds(1))) { [self] in
                    continueTimer = nil
                    process(machine.timeout(.continueWait))
                }
            case .requestComplete:
                requestWritten = true
                bodyPumpActive = false
                // `write` may have flushed everything already, before the flag was set.
                if outboundBytes == 0 { execution?.requestFlushed() }
            }
        case .sendRequestBody:
            if let continueTimer { loop.cancelTimer(continueTimer) }
            continueTimer = nil
            bodyPumpActive = true
            pumpBody()
        case .forwardHead(let head, let stopSendingBody):
            if stopSendingBody { stopBody() }
            responseFraming = head.framing
            if let error = execution?.receivedHead(head) {
                process(machine.errorCaught(error))
            }
        case .forwardBody(let bytes):
            switch execution?.receivedBody(bytes) {
            case .pause?: machine.pauseResponseBody()
            case .abort(let error)?: process(machine.errorCaught(error))
            case .more?, nil: break
            }
        case .succeedRequest(let trailers, let then):
            guard let execution = finishExecution() else { return }
            execution.received(bytes: machine.responseBytesConsumed - bytesReceivedAtStart)
            // The response ended with the read that brought its last bytes (`lastRead`, which
            // `execute` sets to the request's start and EOF to its own time): that clock read
            // serves as the park time and the metrics' `responseEnd`, where two more were taken.
            switch then {
            case .keepAlive:
                pool.connectionReleased(self, reusable: true, at: lastRead)
            case .close, .tunnel:
                closeSocket()
                pool.connectionReleased(self, reusable: false)
            }
            execution.succeeded(trailers: trailers, at: lastRead)
        case .failRequest(let error, let then):
            guard let execution = finishExecution() else { return }
            execution.received(bytes: machine.responseBytesConsumed - bytesReceivedAtStart)
            if then == .keepAlive {
                pool.connectionReleased(self, reusable: true)
            } else {
                closeSocket()
                pool.connectionReleased(self, reusable: false)
            }
            execution.failed(error)
        case .wait(.read):
            setInterest(interest.union(.read))
        case .wait(.stopReading):
            setInterest(interest.subtracting(.read))
        case .resumeInbound:
            lastRead = .now()
            setInterest(interest.union(.read))
            drainInbound()
        case .close:
            closeSocket()
            pool.connectionClosed(self)
        case .none:
            break
        }
    }

    @discardableResult
    func finishExecution() -> HTTPRequestExecution? {
        guard let execution else { return nil }
        self.execution = nil
        cancelRequestTimers()
        stopBody()
        return execution
    }

    func stopBody() {
        bodyPumpActive = false
        bodyAwaitingWakeUp = false
        if let bodyWaitTimer { loop.cancelTimer(bodyWaitTimer) }
        bodyWaitTimer = nil
        bodySource?.close()
        bodySource = nil
    }

    /// Feeds body pieces while the outbound queue is short (so a fast source cannot fill memory).
    ///
    /// Not re-entrant: writing a piece flushes, and a flush asks for more body; a nested call
    /// returns at once and this loop keeps pulling. (Recursing instead would grow the stack by
    /// a few frames per piece while the kernel keeps accepting them.)
    ///
    /// A stream that returns an empty piece with a `waitAfterEmptyPiece` delay is asked again
    /// when a loop timer fires; until then flushes do not pull from it.
    func pumpBody() {
        guard !isPumping, bodyWaitTimer == nil, !bodyAwaitingWakeUp else { return }
        isPumping = true
        defer { isPumping = false }
        while bodyPumpActive, outboundBytes < 256 * 1024, execution != nil {
            guard var source = bodySource else { return }
            let piece: ByteBuffer?
            do {
                piece = try source.next()
            } catch {
                bodySource = source
                process(machine.errorCaught(error))
                return
            }
            bodySource = source
            if let piece {
                if piece.readableBytes == 0 {
                    // A sequence's pipe is empty: it wakes us when the next piece comes.
                    if source.waitsForWakeUp {
                        bodyAwaitingWakeUp = true
                        return
                    }
                    // No wait given: ask again at once — but a stream that keeps coming back empty
                    // (waiting for another thread) must not spin the loop: after 16 in a row, 1 ms.
                    emptyPiecesInARow += 1
                    guard let wait = source.waitAfterEmptyPiece ?? (emptyPiecesInARow > 16 ? .milliseconds(1) : nil) else { continue }
                    bodyWaitTimer = loop.scheduleTimer(at: .after(wait)) { [self] in
                        bodyWaitTimer = nil
                        if bodyPumpActive { pumpBody() }
                    }
                    return
                }
                emptyPiecesInARow = 0
                // The delegate counts body bytes: not `machine.requestBytesSent`, which includes
                // the head and chunk framing (and every earlier request on the connection).
                bodyBytesSent += Int64(piece.readableBytes)
                process(machine.requestBodyPart(piece))
                execution?.sentBody(total: bodyBytesSent)
            } else {
                bodyPumpActive = false
                bodySource?.close()
                bodySource = nil
                process(machine.requestBodyEnd())
            }
        }
    }

    /// An `AsyncSequence` body's pipe has a piece (or its end) after it was found empty. A
    /// wake-up from an earlier request's pipe only makes the pump look again.
    func bodyWokenUp() {
        guard bodyAwaitingWakeUp else { return }
        bodyAwaitingWakeUp = false
        if bodyPumpActive { pumpBody() }
    }

    // MARK: - Idle (pool-parked)

    /// The pool parked this connection idle: it closes after `timeout` unless leased first. Like
    /// the idle-read timer, the timer outlives the park: leasing does not cancel it and parking
    /// again keeps it when it would fire no later than needed, so a keep-alive connection does
    /// not schedule and cancel a timer per request. When it fires it re-reads `parkedAt`.
    func scheduleIdleTimer(_ timeout: TimeAmount, parkedAt time: Deadline) {
        loop.assertInEventLoop()
        guard phase == .ready else { return }
        // `time` is when the connection became free (the read that ended its last response, or
        // the release itself): its idle time counts from then.
        parkedAt = time
        idleTimeout = timeout
        if let idleTimer {
            if idleDue <= time + timeout { return }
            loop.cancelTimer(idleTimer)
        }
        armIdleTimer(at: time + timeout)
    }

    private func armIdleTimer(at due: Deadline) {
        idleDue = due
        idleTimer = loop.scheduleTimer(at: due) { [self] in
            idleTimer = nil
            // Leased since: the next park arms it again.
            guard phase == .ready, let parkedAt else { return }
            let due = parkedAt + idleTimeout
            if Deadline.now() >= due {
                pool.idleTimerFired(self)
            } else {
                armIdleTimer(at: due)
            }
        }
    }

    /// Leased: the idle timer, if armed, finds `parkedAt` nil and lets the connection be.
    func leaveIdle() {
        parkedAt = nil
    }

    func cancelIdleTimer() {
        if let idleTimer { loop.cancelTimer(idleTimer) }
        idleTimer = nil
        parkedAt = nil
    }

    /// The pool closes this connection (idle timeout, shutdown, out of uses).
    func closeFromPool() {
        loop.assertInEventLoop()
        cancelIdleTimer()
        if let execution = finishExecution() {
            closeSocket()
            execution.failed(ClientError(.poolShutdown))
            return
        }
        connector?.cancel()
        connector = nil
        if phase == .ready, let tls {
            // Best effort close_notify so the server sees a clean TLS close.
            tls.close()
            flushTLS()
        }
        closeSocket()
    }

}
