import CourierCore
import FoundationEssentials

/// A side effect the ``TaskStateMachine`` asks for. ``SessionTask`` performs each in its one
/// `run` switch, outside the lock.
enum TaskAction<Transport: AnyObject & Sendable, Sink: AnyObject & Sendable> {
    /// Tell observers the task resumed / was suspended.
    case publishResumed
    case publishSuspended
    /// Prepare the next request (``TaskStateMachine/preparingRequest``) for the transport
    /// (session checks, cache, conversion) and report `launch`, `answeredFromCache` or
    /// `preparationFailed`; after `launch`, hand it to the transport and report `launched`.
    case prepare
    /// The same, after waiting `seconds` (a retry's delay); a cancel meanwhile ends the wait.
    case prepareAfter(Double)
    /// Put the failed attempt to the task's retrier, then report `retryDecided`.
    indirect case askRetrier(RetryContext)
    /// Let the transport read the response body again.
    case resumeReading(Transport)
    /// Stop the transport request (it then reports its end or failure, or nothing if it ended).
    case cancelTransport(Transport)
    /// The download progress: bytes so far (a resumed download counts its first part).
    case reportDownload(completed: Int64)
    /// The response to deliver is known: progress starts at `completed` of `total` (-1: unknown).
    case announceDownload(completed: Int64, total: Int64)
    /// Give a delivered body part to the `dataTaskDidReceiveData` hook, if one is set.
    case forwardData(ByteBuffer)
    /// Queue a part of `attempt`'s body for the download file, then report `partWritten`.
    /// `held`: it was held while a hook decided (the transport waits for nothing); otherwise the
    /// transport waits for the answer, `demand(attempt:)`.
    case write(ByteBuffer, to: Sink, attempt: Int, held: Bool)
    /// The body is complete: finish the file, move it, then report `downloadFinished`.
    case finishDownload(Sink)
    /// Close a sink nobody will use (a decision that came too late).
    case abandonSink(Sink, keepFile: Bool)
    /// The task ended: serialize off the loops and deliver the completion.
    /// (Indirect: once per task, and every other action stays small to move around.)
    indirect case complete(TaskCompletion.Ending<Sink>)
}

/// What the session decided about a response head, through a hook or by its own rules.
enum TaskDecision<Sink: AnyObject & Sendable> {
    /// The response is the task's, received as `delivery` says.
    case deliver(TaskDelivery<Sink>)
    /// Drop this response's body and make `request` next.
    case follow(Request, FollowReason)
    /// Drop this response's body and make the attempt again (the retrier decided so), after
    /// `after` seconds.
    case retry(after: Double)
    case cancel
    case fail(CourierError)
}

/// Why the task makes another request itself. (Redirects are followed by the transport, whose
/// redirect handler asks the session: they stay within one attempt.)
enum FollowReason: Sendable {
    /// An answer to an authentication challenge (counted, to stop a server that keeps asking).
    case authentication
    /// The same credentials again with the server's new nonce, after a Digest challenge with
    /// `stale=true` (RFC 7616 §3.3): not a failure of the credentials, so not counted as one.
    case staleNonce
}

/// How a task's response is received: the head, the file for a download, the progress total.
struct TaskDelivery<Sink: AnyObject & Sendable> {
    var response: Response
    var sink: Sink?
    /// Bytes of a resumed download kept from before.
    var resumeOffset: Int64
    /// The body's expected size for progress (-1: unknown).
    var total: Int64
    /// What a later resume would send in If-Range (downloads).
    var validator: String?
}
