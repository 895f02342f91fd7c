import CourierCore
import Synchronization

/// Counts the requests of one client that have not yet made their final delegate call, so
/// that shutdown can wait for them (a redirect or the retry that starts during shutdown fails
/// with `poolShutdown`, and that failure is one of those final calls).
final class RequestTracker: Sendable {
    private struct State {
        var running = 0
        var whenIdle: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// A request was created.
    func started() {
        state.withLock { $0.running += 1 }
    }

    /// A request made its final delegate call.
    func ended() {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.whenIdle.removeAll() }
            return state.whenIdle
        }
        for body in ready { body() }
    }

    /// Runs `body` once no request is running (at once if none is).
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.running == 0 { return true }
            state.whenIdle.append(body)
            return false
        }
        if now { body() }
    }
}
