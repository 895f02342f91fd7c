import CourierCore
import CourierPosix
import Synchronization

/// A redirect the client's ``RedirectConfiguration`` would follow, as shown to a
/// ``HTTPClientRedirectHandler`` (RFC 9110 §15.4).
public struct HTTPClientRedirect: Sendable {
    /// The 3xx response head: status, Location and every other field as received.
    public let response: HTTPClientResponseHead
    /// The request that received ``response``.
    public let request: HTTPClientRequest
    /// The request the client would make next: the resolved Location, with the method and body
    /// rules of RFC 9110 §15.4 applied and credentials left behind when the origin changes
    /// (``RedirectConfiguration/decide(method:url:headers:body:status:location:history:)``).
    public let proposed: HTTPClientRequest
    /// Which redirect of the chain this is: 1 for the first.
    public let number: Int

    public init(response: HTTPClientResponseHead, request: HTTPClientRequest, proposed: HTTPClientRequest, number: Int) {
        self.response = response
        self.request = request
        self.proposed = proposed
        self.number = number
    }
}

/// What a redirect handler answers (``HTTPClientRedirectReply/answer(_:)``).
public enum HTTPClientRedirectAnswer: Sendable {
    /// Make ``HTTPClientRedirect/proposed`` next.
    case follow
    /// Make this request next instead. It is checked like the proposed one: a loop, a refused
    /// `https` → `http` downgrade or a network URL leading to a Unix socket fail the request
    /// with the same errors as a redirect would; Content-Length and Transfer-Encoding must not
    /// be set. Credentials stay with their origin: when the URL's origin differs from that of
    /// ``HTTPClientRedirect/request``, an Authorization, Cookie or Proxy-Authorization field (and
    /// the URL's user information) carried over unchanged from ``HTTPClientRedirect/proposed``
    /// is removed, and a Host field carried over unchanged is rewritten to the new origin;
    /// fields the handler set itself are sent as set. Only method, url, headers, body,
    /// expectContinue and tls of this request are used: timeouts, the total deadline, the
    /// redirect configuration and the handler stay those of the first request.
    case modify(HTTPClientRequest)
    /// Follow no further: the 3xx response is delivered to the delegate as the final response,
    /// with its body as received.
    case stop
}

/// Decides about each redirect the ``RedirectConfiguration`` would follow: follow it, follow a
/// modified request, or stop and deliver the 3xx response (the role of URLSession's
/// `willPerformHTTPRedirection`).
///
/// Threading: ``decide`` is called on the event loop running the request, right after the 3xx
/// head was parsed; it must not block. The answer may be given at once, from inside `decide`
/// (no thread hop then), or later from any thread. While it is pending the client holds the 3xx
/// body: it keeps at most what already arrived and stops reading the socket, so nothing is lost
/// when the answer is ``HTTPClientRedirectAnswer/stop``. Cancellation and the total deadline
/// still apply (the deadline fails in phase ``ClientError/Phase/redirect``).
public struct HTTPClientRedirectHandler: Sendable {
    /// Called once per redirect; answers through the reply, exactly once.
    public let decide: @Sendable (_ execution: HTTPRequestExecution, _ redirect: HTTPClientRedirect, _ reply: HTTPClientRedirectReply) -> Void

    public init(_ decide: @escaping @Sendable (_ execution: HTTPRequestExecution, _ redirect: HTTPClientRedirect, _ reply: HTTPClientRedirectReply) -> Void) {
        self.decide = decide
    }

    /// A handler that answers at once, on the loop.
    public static func synchronous(_ decide: @escaping @Sendable (_ execution: HTTPRequestExecution, _ redirect: HTTPClientRedirect) -> HTTPClientRedirectAnswer) -> Self {
        Self { execution, redirect, reply in reply.answer(decide(execution, redirect)) }
    }
}

/// The one-shot answer to one redirect. ``answer(_:)`` may be called from any thread; the first
/// answer counts, later ones are ignored, as are answers after the request ended (cancelled,
/// timed out, failed).
public final class HTTPClientRedirectReply: Sendable {
    enum State {
        /// The handler is running: an answer is kept and read when it returns.
        case inHandler(HTTPClientRedirectAnswer?)
        /// The handler returned without answering: an answer hops to the loop.
        case awaiting(EventLoop, HTTPRequestExecution)
        case done
    }

    private let state = Mutex(State.inHandler(nil))

    init() {}

    /// Gives the answer. The first call counts.
    public func answer(_ answer: HTTPClientRedirectAnswer) {
        let target = state.withLock { state -> (EventLoop, HTTPRequestExecution)? in
            switch state {
            case .inHandler(nil):
                state = .inHandler(answer)
                return nil
            case .awaiting(let loop, let execution):
                state = .done
                return (loop, execution)
            case .inHandler, .done:
                return nil
            }
        }
        guard let (loop, execution) = target else { return }
        loop.execute { execution.redirectAnswered(self, answer) }
    }

    /// The handler returned: the answer it gave inside, or nil, and later answers go to `execution`
    /// on `loop`.
    func handlerReturned(loop: EventLoop, execution: HTTPRequestExecution) -> HTTPClientRedirectAnswer? {
        state.withLock { state in
            if case .inHandler(let answer?) = state {
                state = .done
                return answer
            }
            state = .awaiting(loop, execution)
            return nil
        }
    }

    /// The request ended: drop the reference to the execution; later answers are ignored.
    func abandon() {
        state.withLock { $0 = .done }
    }
}
