import CourierCore
import Synchronization

/// Counts the requests of one client that have not yet made their final delegate call, so
/// that shutdown can wait for them (a redirect or the retry that starts during shutdown fails
/// with `poolShutdown`, and that failure is one of those final calls).
final class RequestTracker: Sendable {
    /// Requests created and not yet ended. Counted without the lock (two per request); the
    /// lock guards only the list, and the count is read under it by ``whenIdle(_:)``, so a
    /// body added there is run either at once or by the `ended` that reaches zero.
    private let running = Atomic<Int>(0)
    private let waiting = Mutex<[@Sendable () -> Void]>([])

    /// A request was created.
    func started() {
        running.add(1, ordering: .relaxed)
    }

    /// A request made its final delegate call.
    func ended() {
        // Acquiring-and-releasing: the request's effects come before whatever a body sees.
        guard running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        let ready = waiting.withLock { waiting -> [@Sendable () -> Void] in
            // A request started since: its own end runs them (a body added meanwhile must
            // not run while it is in flight).
            guard running.load(ordering: .acquiring) == 0 else { return [] }
            defer { waiting.removeAll() }
            return waiting
        }
        for body in ready { body() }
    }

    /// Runs `body` once no request is running (at once if none is).
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        let now = waiting.withLock { waiting -> Bool in
            if running.load(ordering: .acquiring) == 0 { return true }
            waiting.append(body)
            return false
        }
        if now { body() }
    }
}
