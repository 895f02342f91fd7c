import Dispatch

/// The ``SessionEvent`` observers and streams (``SessionManager/addObserver(_:)``,
/// ``SessionManager/events()``) as a monitor on the completion queue: resumed, suspended,
/// completed, and invalidated — always last, after which the streams finish.
struct EventHubMonitor: EventMonitor {
    let hub: EventHub
    let queue: DispatchQueue

    /// The events observers see, when anyone listens; invalidation always (it also closes the
    /// hub, so that later subscribers end at once).
    static func wants(_ kind: MonitorEvent.Kind, hub: EventHub) -> Bool {
        switch kind {
        case .resumed, .suspended, .completed: hub.hasSubscribers
        case .invalidated: true
        default: false
        }
    }

    func taskResumed(_ task: SessionTask) { hub.publish(.taskResumed(task)) }
    func taskSuspended(_ task: SessionTask) { hub.publish(.taskSuspended(task)) }
    func taskCompleted(_ completion: TaskCompletion) { hub.publish(.taskCompleted(completion)) }
    func sessionInvalidated(_ error: CourierError?) { hub.publish(.sessionInvalidated(error), last: true) }
}
