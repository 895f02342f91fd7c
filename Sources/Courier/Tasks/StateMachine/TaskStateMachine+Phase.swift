// Where a task is, as the task state machine tracks it.
extension TaskStateMachine {
    /// Where the task is.
    enum Phase {
        /// Created, never resumed.
        case idle
        /// Resumed; the session is preparing the next request, ``pendingRequest`` (checks,
        /// cache, conversion).
        case preparing
        /// A transport request is in flight.
        case running(Attempt)
        /// An attempt failed and the task's retrier decides whether another is made
        /// (``retryFailure`` is the failure that stands if not).
        case retrying
        /// Cancelled while a transport request was in flight: waiting for it to confirm. `transport`
        /// is nil while `execute` has not returned the handle yet.
        case canceling(attempt: Int, transport: Transport?)
        /// The download's body is complete and its file is being finished: too late to cancel.
        case finishing
        case completed
    }
}
