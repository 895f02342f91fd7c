import FoundationEssentials

/// An adapter and a retrier in one (Alamofire's `RequestInterceptor`). Each half has a default
/// that does nothing: the request unchanged, and no retry.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    public func adapt(_ request: Request, context: AdaptationContext) async throws -> Request { request }
    public func retry(_ failure: RetryContext) async -> RetryDecision { .doNotRetry }
}

/// Several adapters and retriers as one (Alamofire's `Interceptor`).
///
/// - Adapters run in order, each on the previous one's result; the first that throws ends it.
/// - Retriers are asked in order until one answers other than ``RetryDecision/doNotRetry``
///   (a retry, or a failure of its own); that answer stands.
public struct Interceptor: RequestInterceptor {
    public var adapters: [any RequestAdapter]
    public var retriers: [any RequestRetrier]

    public init(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = []) {
        self.adapters = adapters
        self.retriers = retriers
    }

    /// Interceptors that adapt and retry, in order.
    public init(interceptors: [any RequestInterceptor]) {
        self.init(adapters: interceptors, retriers: interceptors)
    }

    public func adapt(_ request: Request, context: AdaptationContext) async throws -> Request {
        var current = request
        for adapter in adapters {
            do { current = try await adapter.adapt(current, context: context) } catch {
                // The adapter that failed is named, not this composite.
                throw CourierError.adaptation(error, by: adapter, url: current.url)
            }
        }
        return current
    }

    public func retry(_ failure: RetryContext) async -> RetryDecision {
        for retrier in retriers {
            let decision = await retrier.retry(failure)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }
}

/// An interceptor whose adapter returns the request unchanged (the retry policies): a task whose
/// interceptors all are makes no adaptation step, so no Swift `Task` per attempt.
protocol AdaptsNothing {}

extension Interceptor {
    /// Whether `interceptor` may change a request: false for ``AdaptsNothing`` types and for
    /// composites of them (or of no adapters at all).
    static func adapts(_ adapter: any RequestAdapter) -> Bool {
        if adapter is any AdaptsNothing { return false }
        if let composite = adapter as? Interceptor { return composite.adapters.contains { adapts($0) } }
        return true
    }

    /// A task's interceptor: the request's and the session's as one, the request's first (its
    /// adapter runs before the session's; its retrier is asked first). nil when neither is set.
    static func combining(_ request: (any RequestInterceptor)?, _ session: (any RequestInterceptor)?) -> (any RequestInterceptor)? {
        guard let request else { return session }
        guard let session else { return request }
        return Interceptor(interceptors: [request, session])
    }
}
