import CourierClient
import Dispatch
import FoundationEssentials

/// Redirects are followed by the transport — CourierClient's one redirect driver, with its one
/// credential rule (RFC 9110 §15.4) — and the session plugs its redirect hook into it: for every
/// hop the configuration would follow, the hook sees the response and the proposed request on
/// the completion queue and answers follow (the proposed request, or one it rewrote, which goes
/// through the session's conversion and the transport's checks again) or stop (the 3xx is the
/// task's response, body included).
extension SessionTask {
    /// The transport's redirect handler for this task's requests.
    func redirectHandler() -> HTTPClientRedirectHandler {
        HTTPClientRedirectHandler { [weak self] _, redirect, reply in
            guard let self, let hook = manager.hook(\.taskWillPerformHTTPRedirection) else {
                reply.answer(.follow)
                return
            }
            let current = core.withLock { $0.machine.currentRequest }
            let proposed = Request(following: redirect.proposed, from: current)
            let response = Response(location: current.location, statusCode: redirect.response.status, headers: redirect.response.headers)
            manager.completionQueue.async { [self] in
                guard let chosen = hook(self, response, proposed) else {
                    reply.answer(.stop)
                    return
                }
                let deadline = core.withLock { $0.machine.deadline }
                do throws(CourierError) {
                    var converted = try manager.convert(chosen, sameOriginAs: originalRequest.httpURL?.origin, deadline: deadline, phase: .redirect)
                    converted.redirectHandler = nil
                    reply.answer(.modify(converted))
                } catch {
                    // The rewritten request cannot be made: the task fails with why.
                    cancel(with: error)
                }
            }
        }
    }

}

extension Request {
    /// The request the transport makes after a redirect, as the session sees requests: the
    /// transport's method, URL and fields, and the body of `previous` when the redirect keeps
    /// one (307/308). The transport's URL is taken as it is: it is parsed already.
    init(following next: HTTPClientRequest, from previous: Request) {
        self.init(location: RequestURL(next.url), method: next.method, headers: next.headers, body: next.body == nil ? nil : previous.body,
                  timeoutInterval: previous.timeoutInterval, totalTimeoutInterval: previous.totalTimeoutInterval)
    }
}
