import CourierCore
import CourierHTTP1
import CourierPosix

/// The vocabulary of an execution's states: where it is (read by `cancel()` from any thread, so
/// kept under its lock), what a connection needs to start one attempt, and what a body part's
/// delivery decided.
extension HTTPRequestExecution {
    enum Location {
        case starting
        /// In the queue of this pool entry (or about to be).
        case waiting(ConnectionPool.Entry)
        case running(HTTP1Connection)
        /// The response of a redirect has ended and its handler has not answered yet; the execution
        /// waits on this loop.
        case deciding(EventLoop)
        case finished
    }

    struct Shared {
        var location: Location = .starting
        var cancelled = false
    }

    /// What a connection needs to start one attempt.
    struct Attempt {
        var head: HTTPRequestHead
        var host: String
        var body: HTTPClientRequestBody?
        var expectContinue: Bool
        var deadline: Deadline?
        /// What `head` was derived from on this connection: the request's box (see
        /// ``HTTP1ConnectionStateMachine/startRequest(head:host:body:expectContinue:bodyReplayable:source:sourceIsKeepable:)``).
        var source: any AnyObject & Sendable
        /// Whether `source` may be kept past the request (``HTTPClientRequest/holdsOnlyValues``).
        var sourceIsKeepable: Bool
    }

    enum BodyDisposition {
        case more
        case pause
        case abort(ClientError)
    }
}
