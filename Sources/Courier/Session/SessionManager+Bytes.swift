import CourierClient
import CourierCore
import FoundationEssentials
import Synchronization

extension SessionManager {
    /// URLSession's `bytes(for:)`: returns once the response head arrived, with the body as an
    /// `AsyncSequence` of chunks that reads the socket only while it is iterated (backpressure:
    /// TCP flow control holds the server while the caller does not ask). The request gets the
    /// session's header fields, timeouts, security policy and redirect configuration, and
    /// redirects are followed by the transport; it is not a task (no hooks, progress, registry or
    /// events). Cancelling the Swift task — the one awaiting this call or the one iterating —
    /// cancels the request, and so does dropping the body unread.
    ///
    /// - Throws: ``CourierError``, in the phase that failed (RFC 9110 §15 statuses are not
    ///   errors here: the caller judges the ``Response``).
    public func bytes(for request: Request) async throws(CourierError) -> (ResponseBytes, Response) {
        if isInvalidated {
            throw CourierError(.sessionInvalidated, failingURL: request.url, detail: "the session was invalidated")
        }
        var converted = try convert(request, deadline: deadline(for: request, startingAt: .now()))
        converted.redirects = request.redirects
        let cookies = CookieChain(caller: converted.headers.values(for: "Cookie"))
        attachCookies(to: &converted, caller: cookies.caller)
        // Where the redirects led, for the response's URL.
        let lastRedirect = LastRedirect()
        converted.redirectHandler = .synchronous { [self] _, redirect in
            lastRedirect.set(redirect.proposed.url)
            // Each hop's cookies stored, and the next request's rebuilt for its URL.
            guard configuration.httpCookieStorage != nil else { return .follow }
            storeCookies(from: redirect.response.headers, for: redirect.request.url)
            var next = cookies.baseRequest(for: redirect.proposed)
            attachCookies(to: &next, caller: cookies.caller)
            return next.headers == redirect.proposed.headers ? .follow : .modify(next)
        }
        let response: HTTPClientResponse
        do { response = try await client.execute(converted) } catch {
            throw CourierError.session(from: error, url: (lastRedirect.location ?? request.location).foundation)
        }
        let location = lastRedirect.location ?? request.location
        storeCookies(from: response.headers, for: location.httpURL)
        let head = Response(location: location, head: response.head)
        return (ResponseBytes(body: response.body, location: location), head)
    }
}

/// A response body as it arrives (``SessionManager/bytes(for:)``): chunks with the content
/// codings Courier undoes already undone, iterated once.
public struct ResponseBytes: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    public typealias Failure = CourierError

    let body: HTTPClientResponse.Body
    let location: RequestURL

    /// The trailer fields (RFC 9110 §6.5), once the body has been read to its end.
    public var trailers: HTTPFields? { body.trailers }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body.makeAsyncIterator(), location: location)
    }

    /// The whole body, failing with `bodyTooLarge` past `maxBytes`.
    public func collect(upTo maxBytes: Int) async throws(CourierError) -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.readableBytes <= maxBytes else {
                throw CourierError(.bodyTooLarge, failingURL: location.foundation, detail: "the body is larger than \(maxBytes) bytes")
            }
            chunk.withUnsafeReadableBytes { data.append(contentsOf: $0) }
        }
        return data
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let location: RequestURL

        public mutating func next() async throws(CourierError) -> ByteBuffer? {
            do { return try await base.next() } catch { throw CourierError.session(from: error, url: location.foundation) }
        }
    }
}

/// The last redirect the transport followed, for the response's URL.
private final class LastRedirect: Sendable {
    private let target = Mutex<HTTPURL?>(nil)

    func set(_ url: HTTPURL) { target.withLock { $0 = url } }

    /// The last target, nil when there was no redirect.
    var location: RequestURL? { target.withLock { $0 }.map { RequestURL($0) } }
}
