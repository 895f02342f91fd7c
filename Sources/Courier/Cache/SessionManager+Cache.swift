import CourierClient
import FoundationEssentials

// The session's side of its HTTP cache (RFC 9111): what a task's first request does with what
// is stored (`SessionTask.prepare` acts on the decision), and what a finished task stores or
// invalidates (on the completion queue, before the caller hears of the completion).
extension SessionManager {
    /// What the cache decides for a data task's first request: the store is asked once (under
    /// its own lock), the rules decide on the value it returns.
    func cacheDecision(for request: Request) -> CacheDecision {
        let policy = request.cachePolicy
        guard let cache = configuration.responseCache else { return policy == .returnCacheDataDontLoad ? .unavailable : .miss }
        // The caller's own conditional request is its revalidation: it goes out as written.
        guard policy != .reloadIgnoringCacheData, CacheRules.requestMayUseCache(request), !CacheRules.isConditional(request) else {
            return policy == .returnCacheDataDontLoad ? .unavailable : .miss
        }
        return CacheRules.decide(request, stored: cache.cachedResponse(for: request), policy: policy)
    }

    /// A finished task's effect on the cache: a non-error response to an unsafe method
    /// invalidates its URL and same-origin Location / Content-Location (§4.4); a data task's
    /// storable response from the network — or a stored one a 304 updated (§4.3.4) — is offered
    /// to the will-cache monitors and hook, and stored as they leave it.
    func updateCache(
        after task: SessionTask, outcome: TaskCompletion.Outcome, willCache: (@Sendable (SessionTask, CachedResponse) -> CachedResponse?)?
    ) {
        guard let cache = configuration.responseCache, outcome.error == nil, let response = outcome.response else { return }
        for url in CacheRules.invalidatedURLs(request: outcome.request, response: response) {
            cache.removeCachedResponse(for: Request(url: url))
        }
        // A task that kept no body (`retainsDataTaskBodies` off) has nothing to store.
        guard task.kind == .data, configuration.retainsDataTaskBodies, let data = outcome.data, outcome.metrics.responseSource != .cache,
              outcome.metrics.transactionMetrics.isEmpty == false, CacheRules.isStorable(response, for: outcome.request) else { return }
        let proposal = CachedResponse(response: response, data: data)
        report(.willCache, onCompletionQueue: true, hooked: false) { .willCache(task, proposal) }
        let accepted = willCache.map { $0(task, proposal) } ?? proposal
        if let accepted { cache.storeCachedResponse(accepted, for: outcome.request) }
    }
}
