extension TaskCompletion {
    /// How a task's completion reaches an awaiting Swift task, by one of the two routes
    /// (``TaskCompletion``).
    enum Arrival<Value: Sendable>: Sendable {
        /// Handed off: the outcome, for the Swift task to serialize itself.
        case handedOff(Outcome)
        /// Through the queues: already serialized, after the hooks and observers saw it.
        case throughQueues(DataResponse<Value>)
    }
}
