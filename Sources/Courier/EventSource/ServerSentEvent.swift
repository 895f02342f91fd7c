/// One event of a `text/event-stream`, as WHATWG HTML §9.2.6 ("Interpreting an event stream")
/// dispatches it: what a browser's `EventSource` hands to its listeners as a `MessageEvent`.
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event type: the last `event` field of the event, or `message` when it had none.
    public var type: String
    /// The values of the event's `data` fields, joined by LF (U+000A), without a final LF.
    public var data: String
    /// The stream's last event ID string when the event was dispatched: the last `id` field seen
    /// so far, in this event or an earlier one (it persists across events and reconnections).
    public var lastEventID: String

    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }

    public var description: String {
        "ServerSentEvent(type: \(type), id: \(lastEventID), data: \(data.debugDescription))"
    }
}
