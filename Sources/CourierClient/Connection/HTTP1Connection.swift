#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS

/// One HTTP/1.1 connection: the I/O driver around ``HTTP1ConnectionStateMachine``.
///
/// It connects (Happy Eyeballs, or a Unix path), opens a CONNECT tunnel through a proxy when
/// needed, performs the TLS handshake, then runs one request at a time: it executes every
/// action the state machine returns (write, read or stop reading, deliver, finish, close) and
/// feeds it every event (bytes, EOF, errors, timers, cancellation).
///
/// `@unchecked Sendable`: every mutable member is confined to `loop` (each entry point either
/// runs there or hops there with `loop.execute`); `id`, `key`, `loop` and `pool` are immutable.
final class HTTP1Connection: Selectable, @unchecked Sendable {
    enum Phase {
        case connecting
        case proxyHandshake
        case tlsHandshake
        case ready
        case closed
    }

    let id: Int
    let key: PoolKey
    let loop: EventLoop
    private unowned let pool: ConnectionPool
    private let configuration: HTTPClientConfiguration
    private let timeouts: HTTPClientTimeouts

    // Loop-confined from here on.
    private var phase: Phase = .connecting
    private var socket: Socket?
    private var registration: RegistrationID?
    private var interest: Interest = []
    private var connector: Connector?
    private var tls: TLSEngine?
    private var cipherIn = ByteBuffer()
    private var readBuffer = ByteBuffer()
    private var readSize = 4 * 1024
    private var outbound: [ByteBuffer] = []
    private var outboundBytes = 0
    private var machine: HTTP1ConnectionStateMachine
    private var proxyParser: HTTPResponseParser?
    private var establishment = ConnectionEstablishment()
    private var setupTimer: TimerID?

    // The request in flight.
    private var task: HTTPClientTask?
    private var bodySource: RequestBodySource?
    private var bodyPumpActive = false
    /// Request body payload bytes handed over so far (no head, no chunk framing), for
    /// `didSendRequestBody(total:)`.
    private var bodyBytesSent: Int64 = 0
    private var requestWritten = false
    private var responseFraming: BodyFraming?
    private var lastRead = Deadline.now()
    private var idleReadTimer: TimerID?
    private var idleReadDue = Deadline.distantPast
    private var totalTimer: TimerID?
    private var continueTimer: TimerID?
    private var idleTimer: TimerID?
    private var bytesReceivedAtStart = 0
    private var isDraining = false
    /// Out of the selector while reading is paused: see `selectorReady`.
    private var suspended = false

    init(id: Int, key: PoolKey, loop: EventLoop, pool: ConnectionPool, configuration: HTTPClientConfiguration, timeouts: HTTPClientTimeouts) {
        self.id = id
        self.key = key
        self.loop = loop
        self.pool = pool
        self.configuration = configuration
        self.timeouts = timeouts
        self.machine = HTTP1ConnectionStateMachine(maximumUses: configuration.maximumUsesPerConnection, parserConfiguration: configuration.parser)
    }

    // MARK: - Establishing

    /// Connects, tunnels and handshakes; reports to the pool when ready or failed.
    func start() {
        loop.assertInEventLoop()
        let now = Deadline.now()
        establishment.resolveStart = now
        establishment.connectStart = now
        let deadline = timeouts.connect.map { now + $0 } ?? .distantFuture
        let completion: (Result<ConnectedSocket, ConnectError>) -> Void = { [self] result in
            connector = nil
            switch result {
            case .success(let socket): self.connected(socket)
            case .failure(let error): setupFailed(Self.clientError(error))
            }
        }
        if let proxy = key.proxy {
            connector = Connector.connect(host: proxy.host, port: proxy.port, deadline: deadline, on: loop, resolver: pool.resolver, completion)
        } else if let path = key.origin.scheme == .unix ? key.origin.host : nil {
            connector = Connector.connect(unixPath: path, deadline: deadline, on: loop, resolver: pool.resolver, completion)
        } else {
            connector = Connector.connect(host: key.origin.host, port: key.origin.port, deadline: deadline, on: loop, resolver: pool.resolver, completion)
        }
    }

    private static func clientError(_ error: ConnectError) -> ClientError {
        switch error {
        case .timeout: ClientError(.connectTimeout, cause: error)
        case .cancelled: ClientError(.cancelled, cause: error)
        case .resolution: ClientError(.resolutionFailed, cause: error, detail: error.description)
        case .connectionFailed: ClientError(.connectionFailed, cause: error, detail: error.description)
        }
    }

    private func connected(_ connected: ConnectedSocket) {
        guard phase == .connecting else { connected.socket.close(); return }
        establishment.resolveEnd = connected.resolved
        establishment.connectEnd = connected.connected
        establishment.remoteAddress = connected.remoteAddress
        establishment.localAddress = connected.socket.localAddress
        socket = connected.socket
        do {
            registration = try loop.register(connected.socket.descriptor, interest: .read, handler: self)
            interest = .read
        } catch {
            setupFailed(ClientError(.connectionFailed, cause: error))
            return
        }
        let handshakeDeadline = timeouts.tlsHandshake.map { Deadline.after($0) }
        if key.proxy != nil && key.origin.scheme == .https {
            armSetupTimer(handshakeDeadline, code: .tlsHandshakeTimeout, detail: "proxy CONNECT")
            startProxyTunnel()
        } else if key.origin.scheme == .https {
            armSetupTimer(handshakeDeadline, code: .tlsHandshakeTimeout, detail: "TLS handshake")
            startTLS()
        } else {
            becomeReady()
        }
    }

    private func armSetupTimer(_ deadline: Deadline?, code: ClientError.Code, detail: String) {
        guard let deadline, setupTimer == nil else { return }
        setupTimer = loop.scheduleTimer(at: deadline) { [weak self] in
            self?.setupTimer = nil
            self?.setupFailed(ClientError(code, detail: detail))
        }
    }

    /// RFC 9110 §9.3.6: `CONNECT host:port`, with Basic proxy credentials when configured.
    private func startProxyTunnel() {
        phase = .proxyHandshake
        let authority = "\(key.origin.host.contains(":") ? "[\(key.origin.host)]" : key.origin.host):\(key.origin.port)"
        var head = HTTPRequestHead(method: .CONNECT, target: .authority(host: key.origin.host, port: key.origin.port))
        if let credentials = key.proxy?.credentials {
            do {
                let value = try basicAuthorizationValue(username: credentials.username, password: credentials.password)
                try head.headers.append(name: "Proxy-Authorization", value: value)
            } catch {
                setupFailed(ClientError(.invalidRequest, phase: .proxy, cause: error))
                return
            }
        }
        var bytes = ByteBuffer()
        do {
            try HTTPRequestEncoder.encodeHead(head, host: authority, framing: .none, into: &bytes)
        } catch {
            setupFailed(ClientError(.invalidRequest, phase: .proxy, cause: error))
            return
        }
        var parser = HTTPResponseParser(configuration: configuration.parser)
        parser.requestMethod = .CONNECT
        proxyParser = parser
        writePlain(bytes)
    }

    private func continueProxyTunnel(eof: Bool) {
        guard var parser = proxyParser else { return }
        while true {
            let event: HTTPResponseParserEvent
            do {
                event = eof ? try parser.finish(&readBuffer) : try parser.next(&readBuffer)
            } catch {
                setupFailed(ClientError(.parse, phase: .proxy, cause: error))
                return
            }
            switch event {
            case .needMoreData:
                proxyParser = parser
                if eof { setupFailed(ClientError(.remoteClosedBeforeResponse, phase: .proxy, detail: "the proxy closed during CONNECT")) }
                return
            case .informational:
                continue
            case .head(let head), .switchingProtocols(let head):
                guard (200...299).contains(head.status) else {
                    setupFailed(ClientError(.unexpectedResponse, phase: .proxy, detail: "the proxy refused CONNECT with status \(head.status)"))
                    return
                }
                // The rest of the read buffer already belongs to the tunnel.
                proxyParser = nil
                if key.origin.scheme == .https {
                    cipherIn = readBuffer
                    readBuffer = ByteBuffer()
                    startTLS()
                } else {
                    becomeReady()
                }
                return
            case .body, .end:
                setupFailed(ClientError(.unexpectedResponse, phase: .proxy, detail: "the proxy sent a body with its CONNECT answer"))
                return
            }
        }
    }

    private func startTLS() {
        phase = .tlsHandshake
        establishment.tlsStart = .now()
        do {
            let context = try pool.tlsContext(for: key.tls ?? configuration.tls)
            tls = try TLSEngine(context: context, serverHostname: key.origin.host)
        } catch {
            setupFailed(ClientError(.tls, cause: error, detail: "\(error)"))
            return
        }
        if cipherIn.readableBytes > 0 { tls?.feedCiphertext(cipherIn); cipherIn.clear() }
        continueTLS()
    }

    private func continueTLS() {
        guard let tls else { return }
        do {
            let state = try tls.handshake()
            flushTLS()
            if state == .complete {
                establishment.tlsEnd = .now()
                establishment.tlsInfo = tls.connectionInfo
                becomeReady()
                // Application data may have arrived with the last handshake flight.
                readTLSPlaintext()
            }
        } catch {
            flushTLS()
            setupFailed(ClientError(.tls, cause: error, detail: error.description))
        }
    }

    private func becomeReady() {
        if let setupTimer { loop.cancelTimer(setupTimer) }
        setupTimer = nil
        phase = .ready
        pool.connectionEstablished(self)
    }

    private func setupFailed(_ error: ClientError) {
        guard phase != .closed && phase != .ready else { return }
        connector?.cancel()
        connector = nil
        closeSocket()
        pool.connectionFailed(self, error: error)
    }

    // MARK: - Requests

    /// Runs `task` on this connection. Called on the loop after the pool leased it.
    func execute(_ task: HTTPClientTask) {
        loop.assertInEventLoop()
        cancelIdleTimer()
        guard phase == .ready, machine.isReusable else {
            // Closed between the lease and now (stale): not the task's fault, get another.
            pool.connectionReleased(self, reusable: false)
            task.connectionUnusable()
            return
        }
        guard let start = task.attach(to: self, establishment: establishment, reused: machine.uses > 0) else {
            // Cancelled while waiting: hand the connection straight back.
            pool.connectionReleased(self, reusable: true)
            return
        }
        establishment = ConnectionEstablishment(localAddress: establishment.localAddress, remoteAddress: establishment.remoteAddress, tlsInfo: establishment.tlsInfo)
        self.task = task
        requestWritten = false
        responseFraming = nil
        bodyPumpActive = false
        bodyBytesSent = 0
        bytesReceivedAtStart = machine.responseBytesConsumed
        lastRead = .now()
        armRequestTimers(start.deadline)
        let (kind, source): (HTTP1ConnectionStateMachine.RequestBodyKind, RequestBodySource?)
        do {
            (kind, source) = try RequestBodySource.make(start.body)
        } catch {
            finishTask()
            pool.connectionReleased(self, reusable: true)
            task.failed(error)
            return
        }
        bodySource = source
        let action = machine.startRequest(head: start.head, host: start.host, body: kind, expectContinue: start.expectContinue, bodyReplayable: true)
        process(action)
        if self.task === task { drainInbound() }
    }

    /// Cancels `task` if it is the one in flight here.
    func cancel(_ task: HTTPClientTask) {
        loop.assertInEventLoop()
        guard self.task === task else { return }
        process(machine.cancel())
    }

    /// The task's delegate wants body bytes again.
    func resumeReading(_ task: HTTPClientTask) {
        loop.assertInEventLoop()
        guard self.task === task else { return }
        process(machine.demandMoreResponseBody())
    }

    private func armRequestTimers(_ deadline: Deadline?) {
        if let deadline {
            totalTimer = loop.scheduleTimer(at: deadline) { [weak self] in
                guard let self else { return }
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
    private func scheduleIdleReadTimer() {
        // The limit is the request's (its override, else the client's), not the connection's:
        // a connection opened for a request without an idle limit may carry one with a limit.
        guard let task, let limit = task.idleReadTimeout else { return }
        let due = lastRead + limit
        if let idleReadTimer {
            if idleReadDue <= due { return }
            loop.cancelTimer(idleReadTimer)
        }
        idleReadDue = due
        idleReadTimer = loop.scheduleTimer(at: due) { [weak self] in
            guard let self else { return }
            idleReadTimer = nil
            guard let task = self.task, let limit = task.idleReadTimeout else { return }
            // Reads move `lastRead` instead of rescheduling the timer on every read.
            if Deadline.now() - lastRead >= limit {
                process(machine.timeout(.idleRead))
            } else {
                scheduleIdleReadTimer()
            }
        }
    }

    /// Cancels the request's own timers; the idle-read timer stays (see `scheduleIdleReadTimer`).
    private func cancelRequestTimers() {
        for timer in [totalTimer, continueTimer].compactMap({ $0 }) { loop.cancelTimer(timer) }
        totalTimer = nil
        continueTimer = nil
    }

    /// Executes one state machine action.
    private func process(_ action: HTTP1ConnectionStateMachine.Action) {
        switch action {
        case .write(let bytes, let then):
            task?.sent(bytes: bytes.readableBytes)
            write(bytes)
            switch then {
            case .sendRequestBody:
                bodyPumpActive = true
                pumpBody()
            case .waitForContinue:
                continueTimer = loop.scheduleTimer(at: .after(.seconds(1))) { [weak self] in
                    guard let self else { return }
                    continueTimer = nil
                    process(machine.timeout(.continueWait))
                }
            case .requestComplete:
                requestWritten = true
                bodyPumpActive = false
                task?.requestComplete()
            }
        case .sendRequestBody:
            if let continueTimer { loop.cancelTimer(continueTimer) }
            continueTimer = nil
            bodyPumpActive = true
            pumpBody()
        case .forwardHead(let head, let stopSendingBody):
            if stopSendingBody { stopBody() }
            responseFraming = head.framing
            if let error = task?.receivedHead(head) {
                process(machine.errorCaught(error))
            }
        case .forwardBody(let bytes):
            switch task?.receivedBody(bytes) {
            case .pause?: machine.pauseResponseBody()
            case .abort(let error)?: process(machine.errorCaught(error))
            case .more?, nil: break
            }
        case .succeedRequest(let trailers, let then):
            guard let task = finishTask() else { return }
            task.received(bytes: machine.responseBytesConsumed - bytesReceivedAtStart)
            switch then {
            case .keepAlive:
                pool.connectionReleased(self, reusable: true)
            case .close, .tunnel:
                closeSocket()
                pool.connectionReleased(self, reusable: false)
            }
            task.succeeded(trailers: trailers)
        case .failRequest(let error, let then):
            guard let task = finishTask() else { return }
            task.received(bytes: machine.responseBytesConsumed - bytesReceivedAtStart)
            if then == .keepAlive {
                pool.connectionReleased(self, reusable: true)
            } else {
                closeSocket()
                pool.connectionReleased(self, reusable: false)
            }
            task.failed(error)
        case .wait(.read):
            setInterest(interest.union(.read))
        case .wait(.stopReading):
            setInterest(interest.subtracting(.read))
        case .resumeInbound:
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
    private func finishTask() -> HTTPClientTask? {
        guard let task else { return nil }
        self.task = nil
        cancelRequestTimers()
        stopBody()
        return task
    }

    private func stopBody() {
        bodyPumpActive = false
        bodySource?.close()
        bodySource = nil
    }

    /// Feeds body pieces while the outbound queue is short (so a fast source cannot fill memory).
    private func pumpBody() {
        while bodyPumpActive, outboundBytes < 256 * 1024, task != nil {
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
                if piece.readableBytes == 0 { continue }
                process(machine.requestBodyPart(piece))
                // The delegate counts body bytes: not `machine.requestBytesSent`, which includes
                // the head and chunk framing (and every earlier request on the connection).
                bodyBytesSent += Int64(piece.readableBytes)
                task?.sentBody(total: bodyBytesSent)
            } else {
                bodyPumpActive = false
                bodySource?.close()
                bodySource = nil
                process(machine.requestBodyEnd())
            }
        }
    }

    // MARK: - Idle (pool-parked)

    func scheduleIdleTimer(_ timeout: TimeAmount) {
        loop.assertInEventLoop()
        cancelIdleTimer()
        guard phase == .ready else { return }
        idleTimer = loop.scheduleTimer(at: .after(timeout)) { [weak self] in
            guard let self else { return }
            idleTimer = nil
            pool.idleTimerFired(self)
        }
    }

    func cancelIdleTimer() {
        if let idleTimer { loop.cancelTimer(idleTimer) }
        idleTimer = nil
    }

    /// The pool closes this connection (idle timeout, shutdown, out of uses).
    func closeFromPool() {
        loop.assertInEventLoop()
        cancelIdleTimer()
        if let task = finishTask() {
            closeSocket()
            task.failed(ClientError(.poolShutdown))
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

    // MARK: - I/O

    func selectorReady(_ events: SelectorEvents) {
        if events.contains(.writable) { flush() }
        if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]), phase != .closed {
            if phase == .ready, interest.isEmpty, let registration {
                // Reading is paused (backpressure) and the peer closed or reset. epoll reports
                // EPOLLRDHUP/EPOLLHUP/EPOLLERR whatever the interest, level-triggered, so the loop
                // would spin until the delegate resumes: leave the selector until then
                // (`setInterest` registers again), and read the end then.
                loop.deregister(registration)
                self.registration = nil
                suspended = true
                return
            }
            readAvailable(force: !events.isDisjoint(with: [.hangup, .error]))
        }
    }

    /// The peer finished sending: nothing more will come, so stop watching the descriptor
    /// (a level-triggered hang-up would otherwise wake the loop until we close it).
    private func stopWatching() {
        if let registration { loop.deregister(registration) }
        registration = nil
        interest = []
    }

    private func setInterest(_ wanted: Interest) {
        if suspended, !wanted.isEmpty, phase != .closed, let socket {
            suspended = false
            do {
                registration = try loop.register(socket.descriptor, interest: wanted, handler: self)
                interest = wanted
            } catch {
                ioFailed(error)
            }
            return
        }
        guard wanted != interest, let registration, phase != .closed else { return }
        interest = wanted
        do {
            try loop.reregister(registration, interest: wanted)
        } catch {
            ioFailed(error)
        }
    }

    private func readAvailable(force: Bool) {
        guard let socket else { return }
        // A few reads per wake-up, then let other connections on the loop run.
        for _ in 0..<4 {
            guard phase != .closed, force || interest.contains(.read) || phase != .ready else { return }
            let result: IOResult<Int>
            do {
                if tls != nil {
                    result = try socket.read(into: &cipherIn, maximum: readSize)
                } else {
                    result = try socket.read(into: &readBuffer, maximum: readSize)
                }
            } catch {
                if error.code == ECONNRESET {
                    stopWatching()
                    // A reset is an abort, not an end: a body delimited by the close (RFC 9112
                    // §6.3 ¶8) may be cut short, so it fails like a TLS close without close_notify.
                    if responseFraming == .untilClose, task != nil, phase == .ready {
                        process(machine.errorCaught(ClientError(.remoteClosedDuringBody, cause: error, detail: "connection reset: the body may be truncated")))
                        return
                    }
                    receivedEOF()
                    return
                }
                ioFailed(error)
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                stopWatching()
                receivedEOF()
                return
            case .processed(let n):
                lastRead = .now()
                if n == readSize, readSize < 256 * 1024 { readSize *= 2 }
                task?.firstByteReceived()
                if let tls {
                    tls.feedCiphertext(cipherIn)
                    cipherIn.clear()
                    if phase == .tlsHandshake { continueTLS() } else { readTLSPlaintext() }
                } else {
                    inbound(eof: false)
                }
                if n < readSize / 2 { return }
            }
        }
    }

    private func readTLSPlaintext() {
        guard let tls, phase == .ready || phase == .proxyHandshake else { return }
        while true {
            do {
                switch try tls.readPlaintext(into: &readBuffer, maxBytes: 256 * 1024) {
                case .bytes:
                    continue
                case .wantMoreCiphertext:
                    flushTLS()
                    inbound(eof: false)
                    return
                case .closed:
                    flushTLS()
                    inbound(eof: true)
                    return
                }
            } catch where error.reason == .unexpectedEOF {
                // RFC 8446 §6.1: without close_notify, a body delimited by the close is truncated.
                inbound(eof: false)
                if responseFraming == .untilClose, task != nil {
                    process(machine.errorCaught(ClientError(.remoteClosedDuringBody, cause: error, detail: "TLS closed without close_notify: the body may be truncated")))
                } else {
                    inbound(eof: true)
                }
                return
            } catch {
                // A TLS failure after the handshake (an alert, a bad record) is reported as the
                // TLS layer's (.tls), not as a socket error. In TLS 1.3 this is also how a server's
                // rejection of the client certificate arrives (RFC 8446 §4.4.2.4).
                if phase == .ready, task != nil {
                    process(machine.errorCaught(ClientError(.tls, cause: error, detail: error.description)))
                } else {
                    ioFailed(error)
                }
                return
            }
        }
    }

    private func receivedEOF() {
        if let tls {
            tls.feedEOF()
            if phase == .tlsHandshake { continueTLS(); return }
            readTLSPlaintext()
        } else {
            inbound(eof: true)
        }
    }

    private func inbound(eof: Bool) {
        switch phase {
        case .proxyHandshake: continueProxyTunnel(eof: eof)
        case .ready:
            if eof {
                let action = machine.readEOF(&readBuffer)
                process(action)
                drainInbound()
                if phase != .closed && task == nil { closeSocket(); pool.connectionClosed(self) }
            } else {
                drainInbound()
            }
        case .connecting, .tlsHandshake:
            if eof { setupFailed(ClientError(.connectionFailed, detail: "closed during setup")) }
        case .closed:
            break
        }
    }

    /// Pulls actions from the state machine until it waits.
    private func drainInbound() {
        guard !isDraining else { return }
        isDraining = true
        defer {
            isDraining = false
            releaseSmallReadBuffer()
        }
        while phase == .ready {
            let action = machine.nextInboundAction(&readBuffer)
            switch action {
            case .wait, .none:
                process(action)
                return
            case .succeedRequest, .failRequest, .close:
                process(action)
                return
            default:
                process(action)
            }
        }
    }

    /// A connection waiting for its next response holds no read memory: once everything read
    /// is consumed, a small buffer is let go (the next read allocates one, usually the same
    /// block back from malloc). 256 idle connections then cost pages only for what is in
    /// flight. Large buffers (a download in progress) are kept: reallocating them per read
    /// would fault in fresh pages every time.
    private func releaseSmallReadBuffer() {
        if readBuffer.readableBytes == 0, readBuffer.capacity > 0, readBuffer.capacity <= 16 * 1024 {
            readBuffer = ByteBuffer()
        }
    }

    private func ioFailed(_ error: any Error & Sendable) {
        if phase != .ready {
            setupFailed(ClientError(.connectionFailed, cause: error, detail: "\(error)"))
            return
        }
        if task != nil {
            process(machine.errorCaught(ClientError(.ioError, cause: error, detail: "\(error)")))
        } else {
            closeSocket()
            pool.connectionClosed(self)
        }
    }

    /// Queues request bytes (encrypting them first on TLS) and writes what the socket takes.
    private func write(_ bytes: ByteBuffer) {
        if let tls {
            do {
                try tls.writePlaintext(bytes)
            } catch {
                ioFailed(error)
                return
            }
            flushTLS()
        } else {
            writePlain(bytes)
        }
    }

    private func flushTLS() {
        guard let tls, tls.hasPendingCiphertext else { return }
        var out = ByteBuffer(capacity: tls.pendingCiphertextCount)
        tls.drainCiphertext(into: &out)
        writePlain(out)
    }

    private func writePlain(_ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0 else { return }
        outbound.append(bytes)
        outboundBytes += bytes.readableBytes
        flush()
    }

    private func flush() {
        guard let socket, phase != .closed else { return }
        while !outbound.isEmpty {
            let result: IOResult<Int>
            do {
                result = try socket.write(outbound)
            } catch {
                if error.code == EPIPE || error.code == ECONNRESET {
                    // The peer is gone; what it said before going (if anything) is still to be read.
                    // Read it first (a TLS alert such as certificate_required, an early response):
                    // the kernel keeps received bytes after a reset, and the read that finds
                    // none reports the EOF. Jumping straight to EOF would lose them.
                    outbound.removeAll()
                    outboundBytes = 0
                    if interest.contains(.read) || phase != .ready { readAvailable(force: true) } else { receivedEOF() }
                    return
                }
                ioFailed(error)
                return
            }
            guard case .processed(var written) = result else {
                setInterest(interest.union(.write))
                return
            }
            outboundBytes -= written
            while written > 0 {
                let first = outbound[0].readableBytes
                if written >= first {
                    outbound.removeFirst()
                    written -= first
                } else {
                    outbound[0].moveReaderIndex(forwardBy: written)
                    written = 0
                }
            }
        }
        if interest.contains(.write) { setInterest(interest.subtracting(.write)) }
        if requestWritten { task?.requestFlushed() }
        if bodyPumpActive { pumpBody() }
    }

    private func closeSocket() {
        guard phase != .closed else { return }
        phase = .closed
        if let setupTimer { loop.cancelTimer(setupTimer) }
        setupTimer = nil
        cancelIdleTimer()
        cancelRequestTimers()
        if let idleReadTimer { loop.cancelTimer(idleReadTimer) }
        idleReadTimer = nil
        if let registration { loop.deregister(registration) }
        registration = nil
        socket?.close()
        socket = nil
        tls = nil
        outbound.removeAll()
        outboundBytes = 0
        readBuffer = ByteBuffer()
        stopBody()
    }
}
