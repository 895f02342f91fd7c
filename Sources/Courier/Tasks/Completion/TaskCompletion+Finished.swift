extension TaskCompletion {
    /// What a ``Route``'s `finish` made of an ``Outcome``: what observers see, and the caller's
    /// callback to run on the completion queue.
    struct Finished: Sendable {
        /// The serializer's value (a download's file URL) when the task succeeded.
        var serializedObject: (any Sendable)?
        /// The task's error, or the serializer's.
        var error: CourierError?
        var deliver: @Sendable () -> Void
    }
}
