/// An ``EventSource``'s connection life (WHATWG HTML §9.2.3, "Processing model"), as a value:
/// the driver reports what happened and performs the action it gets back. No I/O, no clock.
///
/// - A 200 response with `Content-Type: text/event-stream` opens the stream: read it.
/// - 204 stops the stream without an error (the server's way to say "do not reconnect").
/// - Any other status, or another content type, fails it (``CourierError/Code/unacceptableStatusCode``,
///   ``CourierError/Code/unacceptableContentType``); so do errors a retry cannot cure (trust,
///   TLS, an invalid request, a refused redirect, an event past its bound, cancellation).
/// - The stream's end, or a transport error, waits the reconnection time (the server's last
///   `retry`, capped) and connects again with the last event ID.
struct EventSourceReconnection: Sendable {
    enum Action {
        /// Make a request, with `Last-Event-ID: lastEventID` unless it is empty.
        case connect(lastEventID: String)
        /// The response opened the stream: read its body.
        case read
        /// Wait this long, then report ``delayElapsed()``.
        case wait(Duration)
        /// End the sequence.
        case stop
        /// End the sequence with this error.
        case fail(CourierError)
    }

    enum State {
        case idle, connecting, open, waiting, finished
    }

    private(set) var state = State.idle
    /// The reconnection time: the configuration's, until a `retry` field replaces it.
    private(set) var reconnectionTime: Duration
    /// The last event ID string, which a reconnection sends.
    var lastEventID: String
    /// Connection attempts in a row that failed before the stream opened.
    private(set) var failedAttempts = 0
    let maximumRetryInterval: Duration
    let maximumReconnectAttempts: Int?

    init(_ configuration: EventSourceConfiguration) {
        maximumRetryInterval = max(.zero, configuration.maximumRetryInterval)
        reconnectionTime = min(max(.zero, configuration.retryInterval), maximumRetryInterval)
        lastEventID = configuration.lastEventID
        maximumReconnectAttempts = configuration.maximumReconnectAttempts
    }

    /// The sequence's first `next()`.
    mutating func start() -> Action {
        guard case .idle = state else { return .stop }
        state = .connecting
        return .connect(lastEventID: lastEventID)
    }

    /// The response head arrived (redirects already followed).
    mutating func responseArrived(_ response: Response) -> Action {
        guard case .connecting = state else { return .stop }
        if response.statusCode == 204 {
            state = .finished
            return .stop
        }
        guard response.statusCode == 200 else {
            state = .finished
            return .fail(CourierError(
                .unacceptableStatusCode, response: response,
                detail: "an event stream needs status 200, not \(response.statusCode)"))
        }
        guard response.mimeType == "text/event-stream" else {
            state = .finished
            return .fail(CourierError(
                .unacceptableContentType, response: response,
                detail: "an event stream needs Content-Type text/event-stream, not \(response.mimeType ?? "none")"))
        }
        state = .open
        failedAttempts = 0
        return .read
    }

    /// A `retry` field: the new reconnection time (capped by the configuration).
    mutating func retryField(milliseconds: Int) {
        reconnectionTime = min(.milliseconds(milliseconds), maximumRetryInterval)
    }

    /// The body ended (the server closed the stream).
    mutating func streamEnded() -> Action {
        guard case .open = state else { return .stop }
        state = .waiting
        return .wait(reconnectionTime)
    }

    /// Connecting or reading failed.
    mutating func failed(_ error: CourierError) -> Action {
        switch state {
        case .connecting, .open, .waiting: break
        case .idle, .finished: return .fail(error)
        }
        if case .connecting = state { failedAttempts += 1 }
        guard Self.isCuredByReconnecting(error),
              failedAttempts <= (maximumReconnectAttempts ?? Int.max)
        else {
            state = .finished
            return .fail(error)
        }
        state = .waiting
        return .wait(reconnectionTime)
    }

    /// The wait of a `.wait` action is over.
    mutating func delayElapsed() -> Action {
        guard case .waiting = state else { return .stop }
        state = .connecting
        return .connect(lastEventID: lastEventID)
    }

    /// Whether a new connection may succeed where this one failed: transport failures from name
    /// resolution to the response (WHATWG HTML §9.2.3: a network error reestablishes the
    /// connection), not TLS or trust failures, refused requests or redirects, the stream's own
    /// failures or cancellation, which would fail the same way again.
    static func isCuredByReconnecting(_ error: CourierError) -> Bool {
        if error.code == .resourceTimeout { return true }
        guard error.code == .transport else { return false }
        switch error.phase {
        case .resolve, .connect, .send, .receive, .parse, .decode: return true
        default: return false
        }
    }
}
