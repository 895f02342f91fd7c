import CourierCore

/// A connected, non-blocking socket and how long it took to get it.
public struct ConnectedSocket {
    public let socket: Socket
    public let remoteAddress: SocketAddress
    /// When name resolution finished (equal to `started` for IP literals and Unix paths).
    public let resolved: Deadline
    public let connected: Deadline
    /// Where the addresses came from: the client's DNS cache, another connection's lookup in
    /// flight, a lookup of its own, or nothing (an IP literal, a Unix path).
    public let resolution: ResolutionSource
}

/// Opens a TCP connection with Happy Eyeballs v2 (``HappyEyeballsStateMachine``), or a
/// Unix-domain connection, on one event loop.
///
/// Loop-confined: create, use and cancel it on `loop`. `completion` runs on `loop`, once.
public final class Connector {
    private let loop: EventLoop
    private let resolver: Resolver
    private var machine: HappyEyeballsStateMachine
    private var completion: ((Result<ConnectedSocket, ConnectError>) -> Void)?
    private var attempts: [Int: Attempt] = [:]
    private var lookups: [ResolveHandle] = []
    private var attemptTimer: TimerID?
    private var resolutionTimer: TimerID?
    private var timeoutTimer: TimerID?
    private var resolvedAt: Deadline?
    /// The costliest source among the answers received so far.
    private var resolution: ResolutionSource?
    /// The connector keeps itself alive until it completes: callers need not hold it.
    private var retainedWhileRunning: Connector?

    private init(loop: EventLoop, resolver: Resolver, host: String, completion: @escaping (Result<ConnectedSocket, ConnectError>) -> Void) {
        self.loop = loop
        self.resolver = resolver
        self.machine = HappyEyeballsStateMachine(host: host)
        self.completion = completion
        self.retainedWhileRunning = nil
    }

    /// Connects to `host` (a name or IP literal) and `port` before `deadline`.
    @discardableResult
    public static func connect(
        host: String, port: Int, deadline: Deadline, on loop: EventLoop, resolver: Resolver,
        _ completion: @escaping (Result<ConnectedSocket, ConnectError>) -> Void
    ) -> Connector {
        loop.assertInEventLoop()
        let connector = Connector(loop: loop, resolver: resolver, host: host, completion: completion)
        connector.retainedWhileRunning = connector
        connector.armTimeout(deadline)
        let bound = LoopBound(connector, loop: loop)
        for family in [SocketAddress.Family.ipv6, .ipv4] {
            connector.lookups.append(resolver.resolveWithSource(host: host, port: port, family: family, on: loop) { result, source in
                let connector = bound.value
                if connector.resolvedAt == nil, case .success = result { connector.resolvedAt = .now() }
                connector.resolution = connector.resolution?.combined(with: source) ?? source
                connector.feed(.resolved(family, result))
            })
        }
        return connector
    }

    /// Connects to a Unix-domain socket at `path`.
    @discardableResult
    public static func connect(
        unixPath path: String, deadline: Deadline, on loop: EventLoop, resolver: Resolver,
        _ completion: @escaping (Result<ConnectedSocket, ConnectError>) -> Void
    ) -> Connector {
        loop.assertInEventLoop()
        let connector = Connector(loop: loop, resolver: resolver, host: path, completion: completion)
        connector.retainedWhileRunning = connector
        connector.resolvedAt = .now()
        connector.resolution = .literal
        connector.armTimeout(deadline)
        do {
            let address = try SocketAddress(unixPath: path)
            // One address, no resolution: feed it as if resolved so the same machine drives it.
            connector.feed(.resolved(.ipv6, .success([])))
            connector.feed(.resolved(.ipv4, .success([address])))
            connector.feed(.resolutionDelayElapsed)
        } catch {
            connector.finish(.failure(.resolution(.noAddresses(host: path))))
        }
        return connector
    }

    /// The overall connect deadline (none for `distantFuture`: no timer that never fires).
    private func armTimeout(_ deadline: Deadline) {
        guard deadline != .distantFuture else { return }
        timeoutTimer = loop.scheduleTimer(at: deadline) { [weak self] in
            self?.timeoutTimer = nil
            self?.feed(.timedOut)
        }
    }

    /// Abandons the connect; the completion runs with `.cancelled` unless it already ran.
    public func cancel() {
        loop.assertInEventLoop()
        feed(.cancelled)
    }

    private func feed(_ input: HappyEyeballsStateMachine.Input) {
        for action in machine.handle(input) { run(action) }
    }

    private func run(_ action: HappyEyeballsStateMachine.Action) {
        switch action {
        case .scheduleResolutionDelay(let delay):
            resolutionTimer = loop.scheduleTimer(at: .after(delay)) { [weak self] in
                self?.resolutionTimer = nil
                self?.feed(.resolutionDelayElapsed)
            }
        case .startAttempt(let id, let address, let nextAfter):
            if let attemptTimer { loop.cancelTimer(attemptTimer) }
            attemptTimer = loop.scheduleTimer(at: .after(nextAfter)) { [weak self] in
                self?.attemptTimer = nil
                self?.feed(.attemptDelayElapsed)
            }
            startAttempt(id, address)
        case .cancelAttemptDelay:
            if let attemptTimer { loop.cancelTimer(attemptTimer) }
            attemptTimer = nil
        case .succeed(let winner, let close):
            for id in close { attempts.removeValue(forKey: id)?.abandon() }
            guard let attempt = attempts.removeValue(forKey: winner), let socket = attempt.handOver() else { return }
            finish(.success(ConnectedSocket(socket: socket, remoteAddress: attempt.address,
                                            resolved: resolvedAt ?? .now(), connected: .now(),
                                            resolution: resolution ?? .lookup)))
        case .fail(let error, let close):
            for id in close { attempts.removeValue(forKey: id)?.abandon() }
            finish(.failure(error))
        }
    }

    private func startAttempt(_ id: Int, _ address: SocketAddress) {
        let attempt = Attempt(address: address, loop: loop)
        attempts[id] = attempt
        attempt.start { [weak self] result in
            switch result {
            case .success: self?.feed(.attemptSucceeded(id))
            case .failure(let error): self?.feed(.attemptFailed(id, error))
            }
        }
    }

    private func finish(_ result: Result<ConnectedSocket, ConnectError>) {
        for lookup in lookups { lookup.cancel() }
        lookups.removeAll()
        for timer in [attemptTimer, resolutionTimer, timeoutTimer].compactMap({ $0 }) { loop.cancelTimer(timer) }
        attemptTimer = nil; resolutionTimer = nil; timeoutTimer = nil
        for attempt in attempts.values { attempt.abandon() }
        attempts.removeAll()
        retainedWhileRunning = nil
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}

/// One non-blocking connect to one address.
private final class Attempt: Selectable {
    let address: SocketAddress
    private let loop: EventLoop
    private var socket: Socket?
    private var registration: RegistrationID?
    private var report: ((Result<Void, PosixError>) -> Void)?

    init(address: SocketAddress, loop: EventLoop) {
        self.address = address
        self.loop = loop
    }

    func start(_ report: @escaping (Result<Void, PosixError>) -> Void) {
        self.report = report
        do throws(PosixError) {
            let socket = try Socket(family: address.family)
            self.socket = socket
            if try socket.connect(to: address) {
                loop.execute { [bound = LoopBound(self, loop: loop)] in bound.value.complete(.success(())) }
                return
            }
            registration = try loop.register(socket.descriptor, interest: .write, handler: self)
        } catch {
            // Report on the next loop turn so the state machine is never re-entered.
            loop.execute { [bound = LoopBound(self, loop: loop)] in bound.value.complete(.failure(error)) }
        }
    }

    func selectorReady(_ events: SelectorEvents) {
        guard let socket else { return }
        do throws(PosixError) {
            try socket.finishConnect()
            if events.contains(.hangup) { throw PosixError(code: ECONNREFUSED_, call: "connect") }
            complete(.success(()))
        } catch {
            complete(.failure(error))
        }
    }

    private func complete(_ result: Result<Void, PosixError>) {
        if let registration { loop.deregister(registration) }
        registration = nil
        if case .failure = result { socket?.close(); socket = nil }
        guard let report else { return }
        self.report = nil
        report(result)
    }

    /// The connected socket, now owned by the caller.
    func handOver() -> Socket? {
        defer { socket = nil }
        return socket
    }

    /// Closes a losing or abandoned attempt.
    func abandon() {
        report = nil
        if let registration { loop.deregister(registration) }
        registration = nil
        socket?.close()
        socket = nil
    }
}

#if canImport(Glibc)
import Glibc
private let ECONNREFUSED_ = ECONNREFUSED
#endif
