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
    ///
    /// Cookies: with a cookie storage, the 3xx response's `Set-Cookie` fields are stored here, on
    /// the loop, and the next request's `Cookie` field is rebuilt for its own URL from `cookies`
    /// (the caller's values) and the jar; the hook sees the request without the jar's cookies.
    func redirectHandler(cookies: CookieChain) -> HTTPClientRedirectHandler {
        HTTPClientRedirectHandler { [weak self] _, redirect, reply in
            guard let self else {
                reply.answer(.follow)
                return
            }
            let usesCookies = manager.configuration.httpCookieStorage != nil
            var base = redirect.proposed
            if usesCookies {
                manager.storeCookies(from: redirect.response.headers, for: redirect.request.url)
                base = cookies.baseRequest(for: redirect.proposed)
            }
            guard let hook = manager.hook(\.taskWillPerformHTTPRedirection) else {
                guard usesCookies else {
                    reply.answer(.follow)
                    return
                }
                manager.attachCookies(to: &base, caller: cookies.caller)
                // No cookie changed: the proposed request as it is.
                reply.answer(base.headers == redirect.proposed.headers ? .follow : .modify(base))
                return
            }
            let current = core.withLock { $0.machine.currentRequest }
            let proposed = Request(following: base, from: current)
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
                    if usesCookies {
                        cookies.caller = converted.headers.values(for: "Cookie")
                        manager.attachCookies(to: &converted, caller: cookies.caller)
                    }
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
