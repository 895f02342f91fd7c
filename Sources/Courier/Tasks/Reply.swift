/// What a request made with `async`/`await` returns when it succeeded: the typed value, the final
/// response head, and the task's metrics (one transaction per request made, redirects and
/// authentication retries included). ``HTTPSessionManager``'s `async` calls return it and throw
/// a ``CourierError`` otherwise; ``DataResponse/reply()`` makes it from what
/// ``SessionManager``'s `async` calls return, so both layers answer the same way.
///
/// ```swift
/// let (user, response, metrics) = try await api.GET("users/42", as: User.self)
/// let (body, _, _) = try await session.data(for: request).reply()
/// ```
public typealias Reply<Value> = (value: Value, response: Response, metrics: TaskMetrics)

extension DataResponse {
    /// The value with the response and the metrics, or the error: what the task's `async` call
    /// returns, as ``HTTPSessionManager``'s `async` calls return it.
    public func reply() throws(CourierError) -> Reply<Value> {
        switch result {
        case .success(let value):
            guard let response, let metrics else {
                throw CourierError(.noResponse, failingURL: request.url, detail: "the task succeeded without a response")
            }
            return (value, response, metrics)
        case .failure(let error):
            throw error
        }
    }
}
