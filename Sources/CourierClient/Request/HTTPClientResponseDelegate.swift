import CourierCore
import CourierHTTP1

/// Whether the delegate wants more response body now.
public enum HTTPClientBodyDemand: Sendable {
    case more
    /// Stop reading the socket (backpressure) until ``HTTPRequestExecution/resumeReading()``.
    case pause
}

/// Receives one request's progress. All calls come from an event loop, one at a time, in
/// order; never block in them. (After a redirect or a retry the next calls may come from
/// another loop, but never concurrently.) Exactly one of `didFinish` / `didFail` ends it.
public protocol HTTPClientResponseDelegate: AnyObject {
    /// The request head went to the socket.
    func didSendRequestHead(_ execution: HTTPRequestExecution, _ head: HTTPRequestHead)
    /// More request body bytes went to the socket; `total` so far.
    func didSendRequestBody(_ execution: HTTPRequestExecution, total: Int64)
    /// A redirect was followed (RFC 9110 §15.4): `response` is the 3xx head (its body was read
    /// and dropped), `next` the request made next, and `metrics` those of the request that got
    /// the redirect, one per request made (as URLSession's transaction metrics). The metrics of
    /// `didFinish`/`didFail` are those of the last request, with ``HTTPClientMetrics/redirectCount``
    /// the number of redirects followed before it.
    func didRedirect(_ execution: HTTPRequestExecution, response: HTTPClientResponseHead, to next: HTTPClientRequest, metrics: HTTPClientMetrics)
    /// The final response head (after redirects; a redirect response when it is not followed,
    /// or when a ``HTTPClientRedirectHandler`` answered stop). Body bytes follow.
    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead)
    /// A piece of the body, with its content codings undone — unless the head's
    /// `undecodedContentCodings` names some: then exactly as received. Return `.pause` to stop
    /// reading until `resumeReading()`.
    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand
    /// The response ended, with its trailer fields.
    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics)
    /// The request failed; `error.phase` says where.
    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics)
}

extension HTTPClientResponseDelegate {
    public func didSendRequestHead(_ execution: HTTPRequestExecution, _ head: HTTPRequestHead) {}
    public func didSendRequestBody(_ execution: HTTPRequestExecution, total: Int64) {}
    public func didRedirect(_ execution: HTTPRequestExecution, response: HTTPClientResponseHead, to next: HTTPClientRequest, metrics: HTTPClientMetrics) {}
}
