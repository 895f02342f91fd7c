import FoundationEssentials

/// A task's completion as reported to observers (``SessionEvent/taskCompleted(_:)``,
/// AFNetworking's `AFNetworkingTaskDidCompleteNotification` and its userInfo keys).
///
/// A task completes exactly once. It ends with an ``Outcome`` — everything it produced, not yet
/// serialized — on whatever thread ended it, often an event loop; its ``Route``, chosen when the
/// task was made, takes that outcome to whoever waits for it one of two ways:
/// - **Handed off** to an awaiting Swift task (the `async` calls), when nothing needs the
///   completion queue — no completion or metrics hook, no event subscriber or monitor, no completion group,
///   no response cache, no last progress update queued for a handler (which must arrive first).
///   The Swift task serializes the outcome itself (``Arrival``). One thread
///   hop from the loop to the caller.
/// - **Through the queues** (completion closures, or `async` calls when observers need the
///   result): the route's `finish` serializes on the processing (serialization) queue — a slow
///   serializer must not hold up every other completion, AFNetworking's reason for that queue —
///   and makes a ``Finished``: what observers see plus the caller's callback. The metrics and
///   completion events — to the hooks, to observers (this report) and to event monitors — then
///   that callback and resume-data handlers run on the completion queue.
///   (Running cheap serializers on the completion queue, one hop fewer, was measured and
///   dropped: with the client on one core it batched completions worse — 1.55 context switches
///   per request instead of 1.0 — and was no faster; Benchmarks/RESULTS.md.)
public struct TaskCompletion: Sendable {
    public var task: SessionTask
    public var response: Response?
    /// The body for data and upload tasks (also when they failed validation).
    public var data: Data?
    /// The serializer's value when the task succeeded.
    public var serializedObject: (any Sendable)?
    /// The downloaded file's final location for a download task.
    public var fileURL: URL?
    public var error: CourierError?
    public var metrics: TaskMetrics?
}

extension TaskCompletion {
    /// What observers are told of `task`'s `outcome` once its route `finished` it.
    init(task: SessionTask, outcome: Outcome, finished: Finished) {
        self.init(task: task, response: outcome.response, data: outcome.data, serializedObject: finished.serializedObject,
                  fileURL: outcome.fileURL, error: finished.error, metrics: outcome.metrics)
    }
}
