/// How an ``EventSource`` reads and reconnects (WHATWG HTML §9.2).
public struct EventSourceConfiguration: Sendable {
    /// The reconnection time until the server sends a `retry` field (WHATWG HTML §9.2.2 leaves
    /// the initial value to the user agent; browsers use a few seconds).
    public var retryInterval: Duration
    /// The longest wait before a reconnection, whatever `retry` the server sends.
    public var maximumRetryInterval: Duration
    /// The bound on one event's buffered bytes (its data and type, and the line being read).
    /// An event past it fails the stream with ``CourierError/Code/eventTooLarge``.
    public var maximumEventBytes: Int
    /// The `Last-Event-ID` of the first connection, to resume a stream read before; empty: none.
    public var lastEventID: String
    /// How many connection attempts in a row may fail (a transport error before the stream
    /// opened) before the sequence throws the last error; nil: reconnect for as long as the
    /// sequence is iterated, as a browser does.
    public var maximumReconnectAttempts: Int?

    public init(
        retryInterval: Duration = .seconds(3), maximumRetryInterval: Duration = .seconds(3600),
        maximumEventBytes: Int = 1 << 20, lastEventID: String = "", maximumReconnectAttempts: Int? = nil
    ) {
        self.retryInterval = retryInterval
        self.maximumRetryInterval = maximumRetryInterval
        self.maximumEventBytes = maximumEventBytes
        self.lastEventID = lastEventID
        self.maximumReconnectAttempts = maximumReconnectAttempts
    }
}
