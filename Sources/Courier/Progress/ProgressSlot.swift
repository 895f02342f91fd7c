/// A task's progress in one direction as its locked core keeps it: plain counts until someone
/// asks for the ``TaskProgress`` handle (``SessionTask/uploadProgress``,
/// ``SessionTask/downloadProgress``) or a reporter needs one; from then on the handle, seeded
/// with the counts so far, holds them. Most tasks are never observed and allocate no handle.
enum ProgressSlot {
    case counts(TaskProgress.Snapshot)
    case handle(TaskProgress)

    static let empty = ProgressSlot.counts(TaskProgress.Snapshot(completedUnitCount: 0, totalUnitCount: -1, isFinished: false))

    var snapshot: TaskProgress.Snapshot {
        switch self {
        case .counts(let snapshot): snapshot
        case .handle(let progress): progress.snapshot
        }
    }

    mutating func update(_ change: (inout TaskProgress.Snapshot) -> Void) {
        switch self {
        case .counts(var snapshot):
            change(&snapshot)
            self = .counts(snapshot)
        case .handle(let progress):
            _ = progress.update(change)
        }
    }

    /// The handle, made now (from the counts so far) if nobody asked before.
    mutating func handle(for task: SessionTask) -> TaskProgress {
        switch self {
        case .handle(let progress):
            return progress
        case .counts(let snapshot):
            let progress = TaskProgress(task: task, snapshot: snapshot)
            self = .handle(progress)
            return progress
        }
    }
}
