import Dispatch
import FoundationEssentials

/// The AFNetworking-named hooks that only observe (``SessionHooks``: data received, body sent,
/// download written, metrics, completion, invalidation) as a monitor on the completion queue.
/// Each hook is read when its event is delivered, so hooks may be set or replaced at any time.
/// (The hooks that decide — redirect, challenge, response disposition, will-cache, download
/// destination — are asked where the task waits for their answer; monitors see those points too.)
struct SessionHooksMonitor: EventMonitor {
    let owner = Owner()
    let queue: DispatchQueue

    private var manager: SessionManager? { owner.manager }

    func task(_ task: SessionTask, didReceiveData data: Data) {
        manager?.hook(\.dataTaskDidReceiveData)?(task, data)
    }

    func task(_ task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        manager?.hook(\.taskDidSendBodyData)?(task, bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }

    func task(_ task: SessionTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        manager?.hook(\.downloadTaskDidWriteData)?(task, bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)
    }

    func task(_ task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        manager?.hook(\.taskDidFinishCollectingMetrics)?(task, metrics)
    }

    func taskCompleted(_ completion: TaskCompletion) {
        manager?.hook(\.taskDidComplete)?(completion.task, completion.error)
    }

    func sessionInvalidated(_ error: CourierError?) {
        manager?.hook(\.sessionDidBecomeInvalid)?(error)
    }
}

extension SessionHooksMonitor {
    /// The manager whose hooks the monitor calls, weakly (the manager owns its monitors; a
    /// delivery queued after it went away does nothing).
    ///
    /// `@unchecked Sendable`: `manager` is set once, in the manager's initializer, before the
    /// manager (and so this object) is shared with any other thread, and only read afterwards.
    final class Owner: @unchecked Sendable {
        weak var manager: SessionManager?
    }
}
