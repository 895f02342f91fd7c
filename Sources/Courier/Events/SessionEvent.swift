import FoundationEssentials

/// Lifecycle events (AFNetworking's task notifications and `AFURLSessionDidInvalidateNotification`).
public enum SessionEvent: Sendable {
    case taskResumed(SessionTask)
    case taskSuspended(SessionTask)
    case taskCompleted(TaskCompletion)
    case sessionInvalidated(CourierError?)
}
