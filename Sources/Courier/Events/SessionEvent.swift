import FoundationEssentials

/// A task's completion as reported to observers (AFNetworking's
/// `AFNetworkingTaskDidCompleteNotification` and its userInfo keys).
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

/// Lifecycle events (AFNetworking's task notifications and `AFURLSessionDidInvalidateNotification`).
public enum SessionEvent: Sendable {
    case taskResumed(SessionTask)
    case taskSuspended(SessionTask)
    case taskCompleted(TaskCompletion)
    case sessionInvalidated(CourierError?)
}
