extension SessionManager {
    /// The Server-Sent Events of `request`'s response (WHATWG HTML §9.2, `EventSource`): see
    /// ``EventSource``. The request goes through ``bytes(for:)`` — the session's header fields,
    /// timeouts (``Request/timeoutInterval`` is the idle time after which a silent stream counts
    /// as broken and is reconnected), security policy and redirects — with
    /// `Accept: text/event-stream` and `Cache-Control: no-cache` added unless it sets them.
    public func eventSource(for request: Request, configuration: EventSourceConfiguration = EventSourceConfiguration()) -> EventSource {
        EventSource(session: self, request: request, configuration: configuration)
    }
}
