import CourierCore
import Synchronization

extension TaskCompletion {
    /// Links an awaiting Swift task's cancellation to the session task whose completion it
    /// awaits: the cancellation handler may run before the session task exists (it is then
    /// cancelled as soon as it does), or at any time after.
    final class CancellationLink: Sendable {
        private struct State {
            var task: SessionTask?
            var cancelled = false
        }

        private let state = Mutex(State())

        func set(_ task: SessionTask) {
            let cancelled = state.withLock { state -> Bool in
                state.task = task
                return state.cancelled
            }
            if cancelled { task.cancel() }
        }

        func cancel() {
            let task = state.withLock { state -> SessionTask? in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
        }
    }
}
