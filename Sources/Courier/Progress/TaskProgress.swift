import CourierCore
import Synchronization

/// A task's upload or download progress (AFNetworking's per-task `NSProgress`). Totals are
/// honest: ``totalUnitCount`` is -1 while the size is unknown — a chunked body, or a body whose
/// content coding (gzip) hides the decoded size — and ``fractionCompleted`` is then nil rather
/// than a wrong fraction. A coding left undone (``Response/undecodedContentCodings``) hides
/// nothing: the body arrives as sent and Content-Length is its total. The handle can cancel, pause and resume its task, as
/// `NSProgress.cancellationHandler`/`pausingHandler`/`resumingHandler` do in AFNetworking.
public final class TaskProgress: Sendable {
    /// A moment's view of the progress, as handed to progress callbacks.
    public struct Snapshot: Sendable, Hashable {
        /// Bytes done (decoded bytes for downloads).
        public var completedUnitCount: Int64
        /// Bytes expected, or -1 when unknown.
        public var totalUnitCount: Int64
        /// Whether the task has ended.
        public var isFinished: Bool

        /// Between 0 and 1, or nil when the total is unknown.
        public var fractionCompleted: Double? {
            guard totalUnitCount >= 0 else { return nil }
            guard totalUnitCount > 0 else { return isFinished ? 1 : 0 }
            return min(1, Double(completedUnitCount) / Double(totalUnitCount))
        }

        public var isIndeterminate: Bool { totalUnitCount < 0 }
    }

    private let state: Mutex<Snapshot>
    private weak let task: SessionTask?

    /// Made on demand (``ProgressSlot``): `snapshot` is what the task counted before.
    init(task: SessionTask, snapshot: Snapshot) {
        self.task = task
        self.state = Mutex(snapshot)
    }

    public var snapshot: Snapshot { state.withLock { $0 } }
    public var completedUnitCount: Int64 { snapshot.completedUnitCount }
    public var totalUnitCount: Int64 { snapshot.totalUnitCount }
    public var fractionCompleted: Double? { snapshot.fractionCompleted }

    /// Cancels the task.
    public func cancel() { task?.cancel() }
    /// Suspends the task (it stops reading from the socket).
    public func pause() { task?.suspend() }
    /// Resumes the task.
    public func resume() { task?.resume() }

    func update(_ change: (inout Snapshot) -> Void) -> Snapshot {
        state.withLock { snapshot in
            change(&snapshot)
            return snapshot
        }
    }
}
