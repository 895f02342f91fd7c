extension HTTPSessionManager {
    /// The Server-Sent Events of a GET of `path` (WHATWG HTML §9.2): the request the request
    /// serializer makes, through ``SessionManager/eventSource(for:configuration:)``.
    ///
    /// - Throws: ``CourierError`` when the request cannot be built (an invalid URL or field).
    public func eventSource(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        configuration: EventSourceConfiguration = EventSourceConfiguration()
    ) throws(CourierError) -> EventSource {
        let request = try request(method: .GET, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier)
        return session.eventSource(for: request, configuration: configuration)
    }
}
