import FoundationEssentials

/// The `async` calls: each returns a ``Reply`` — the value the serializer made, the response
/// and the metrics — or throws the task's ``CourierError``. Cancelling the Swift task cancels the
/// request.
extension HTTPSessionManager {
    /// Runs `method` on `path` and returns what `serializer` makes of the response. Cancelling
    /// the Swift task cancels the request.
    public func send<Serializer: ResponseSerializer>(
        _ method: HTTPMethod, _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        serializer: Serializer
    ) async throws(CourierError) -> Reply<Serializer.Output> {
        let request = try self.request(method: method, path: path, parameters: parameters, headers: headers, requestModifier: requestModifier)
        return try await run(RequestValidatedSerializer(serializer, for: request)) { completion in session.makeDataTask(request, completion: completion) }
    }

    /// ``send(_:_:parameters:headers:serializer:)`` with the manager's ``responseSerializer``.
    public func send(
        _ method: HTTPMethod, _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil
    ) async throws(CourierError) -> Reply<any Sendable> {
        try await send(method, path, parameters: parameters, headers: headers, requestModifier: requestModifier, serializer: responseSerializer)
    }

    /// The body decoded as `type` from JSON (``DecodableResponseSerializer``).
    public func send<Value: Decodable & Sendable>(
        _ method: HTTPMethod, _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        decoding type: Value.Type
    ) async throws(CourierError) -> Reply<Value> {
        try await send(method, path, parameters: parameters, headers: headers, requestModifier: requestModifier, serializer: DecodableResponseSerializer<Value>())
    }

    public func GET(_ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil) async throws(CourierError) -> Reply<any Sendable> {
        try await send(.GET, path, parameters: parameters, headers: headers, requestModifier: requestModifier)
    }

    public func GET<Value: Decodable & Sendable>(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil, as type: Value.Type
    ) async throws(CourierError) -> Reply<Value> {
        try await send(.GET, path, parameters: parameters, headers: headers, requestModifier: requestModifier, decoding: type)
    }

    /// HEAD returns the response only.
    public func HEAD(_ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil) async throws(CourierError) -> Response {
        try await send(.HEAD, path, parameters: parameters, headers: headers, requestModifier: requestModifier, serializer: responseSerializer).response
    }

    public func POST(_ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil) async throws(CourierError) -> Reply<any Sendable> {
        try await send(.POST, path, parameters: parameters, headers: headers, requestModifier: requestModifier)
    }

    public func PUT(_ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil) async throws(CourierError) -> Reply<any Sendable> {
        try await send(.PUT, path, parameters: parameters, headers: headers, requestModifier: requestModifier)
    }

    public func PATCH(_ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil) async throws(CourierError) -> Reply<any Sendable> {
        try await send(.PATCH, path, parameters: parameters, headers: headers, requestModifier: requestModifier)
    }

    public func DELETE(_ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil) async throws(CourierError) -> Reply<any Sendable> {
        try await send(.DELETE, path, parameters: parameters, headers: headers, requestModifier: requestModifier)
    }

    /// The multipart POST, `async`.
    public func POST(
        _ path: String, parameters: (any Sendable)? = nil, headers: HTTPFields = HTTPFields(), requestModifier: RequestModifier? = nil,
        constructingBodyWith constructingBody: (MultipartFormData) throws -> Void, progress: ProgressHandler? = nil
    ) async throws(CourierError) -> Reply<any Sendable> {
        let request = try multipartRequest(path: path, parameters: parameters, headers: headers, requestModifier: requestModifier, constructingBody: constructingBody)
        return try await run(RequestValidatedSerializer(responseSerializer, for: request)) { completion in
            session.makeUploadTask(request, completion: completion, progress: progress)
        }
    }

    /// Runs a task for an `async` caller (``SessionManager/awaitResponse(_:_:)``) and returns
    /// its value, response and metrics, or throws its error.
    func run<Serializer: ResponseSerializer, Task: SessionTask>(
        _ serializer: Serializer, _ make: (TaskCompletion.Route) -> Task
    ) async throws(CourierError) -> Reply<Serializer.Output> {
        try await session.awaitResponse(serializer, make).reply()
    }
}
