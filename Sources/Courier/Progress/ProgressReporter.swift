import CourierCore
import Dispatch
import Synchronization

/// Coalesces progress updates so a fast transfer does not flood the completion queue: at most
/// one delivery is queued at a time and deliveries are at least `interval` apart; updates in
/// between only change the values the next delivery reads. The final update always arrives
/// (when anyone listens: with no handler and no hook, the values are updated and nothing is
/// queued at all).
final class ProgressReporter: Sendable {
    private struct State {
        var scheduled = false
        var lastDelivery: DispatchTime = .init(uptimeNanoseconds: 0)
        var lastDelivered: Int64 = 0
        var finished = false
        /// Whether any delivery was scheduled (then the final one must follow).
        var everScheduled = false
    }

    private let progress: TaskProgress
    private let queue: DispatchQueue
    private let interval: DispatchTimeInterval
    private let intervalNanoseconds: UInt64
    /// Called on `queue` with the snapshot and the bytes since the previous delivery; dropped
    /// after the final delivery, so a progress closure that captures its task makes no cycle.
    private let deliverSlot: Mutex<(@Sendable (TaskProgress.Snapshot, Int64) -> Void)?>
    private let state = Mutex(State())
    /// Whether a handler or a hook listens now (hooks may be set at any time).
    private let isObserved: @Sendable () -> Bool

    init(
        progress: TaskProgress, queue: DispatchQueue, interval seconds: Double, isObserved: @escaping @Sendable () -> Bool,
        deliver: @escaping @Sendable (TaskProgress.Snapshot, Int64) -> Void
    ) {
        self.progress = progress
        self.isObserved = isObserved
        self.queue = queue
        let nanoseconds = UInt64(max(0, seconds) * 1e9)
        self.intervalNanoseconds = nanoseconds
        self.interval = .nanoseconds(Int(min(nanoseconds, UInt64(Int.max))))
        self.deliverSlot = Mutex(deliver)
    }

    /// Records a change (from any thread) and schedules a delivery unless one is pending.
    func report(_ change: (inout TaskProgress.Snapshot) -> Void) {
        _ = progress.update(change)
        guard isObserved() else { return }
        let delay: DispatchTime? = state.withLock { state in
            guard !state.scheduled, !state.finished else { return nil }
            state.scheduled = true
            state.everScheduled = true
            let earliest = DispatchTime(uptimeNanoseconds: state.lastDelivery.uptimeNanoseconds &+ intervalNanoseconds)
            return max(earliest, .now())
        }
        guard let delay else { return }
        queue.asyncAfter(deadline: delay) { [self] in flush(final: false) }
    }

    /// Marks the progress finished and delivers the last update (on the queue, in order after
    /// the pending ones). Call before queueing the completion. Returns whether a delivery was
    /// queued: then the completion must follow it on the same queue, so that the last update
    /// arrives first (it cannot be handed to an awaiting Swift task directly).
    @discardableResult
    func finish(_ change: (inout TaskProgress.Snapshot) -> Void) -> Bool {
        _ = progress.update { snapshot in
            change(&snapshot)
            snapshot.isFinished = true
        }
        guard isObserved() || state.withLock({ $0.everScheduled }) else {
            deliverSlot.withLock { $0 = nil }
            return false
        }
        queue.async { [self] in flush(final: true) }
        return true
    }

    private func flush(final: Bool) {
        let snapshot = progress.snapshot
        let delta: Int64? = state.withLock { state in
            if final {
                guard !state.finished else { return nil }
                state.finished = true
            } else {
                state.scheduled = false
                guard !state.finished else { return nil }
            }
            state.lastDelivery = .now()
            let delta = snapshot.completedUnitCount - state.lastDelivered
            state.lastDelivered = snapshot.completedUnitCount
            return delta
        }
        guard let delta else { return }
        let deliver = deliverSlot.withLock { slot in
            defer { if final { slot = nil } }
            return slot
        }
        deliver?(snapshot, delta)
    }
}
