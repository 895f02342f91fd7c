import CourierCore

/// How one wait of an event loop looks for readiness, as a value: each call to ``next(ready:now:)``
/// gets what the last step found and returns the next step, which ``Selector/wait`` performs in
/// one switch.
///
/// - Plain: one `epoll_wait` that may sleep for the loop's timeout.
/// - `busyPoll`: first polls without sleeping until something is ready or the window ends
///   (``EventLoop/init(name:busyPoll:batchWindow:)``).
/// - `batchWindow`: when a poll finds nothing ready, pauses for the window without being woken,
///   then polls once more, and sleeps in `epoll_wait` only if that finds nothing either. Replies
///   that arrive during the pause are handled in one turn, for one wake-up instead of one each.
///
/// Spinning and pausing count against the loop's timeout: the pause never outlasts what is left
/// of it, and the sleeping wait after them is for what is left, rounded down to the millisecond
/// (so it ends no later than the plain wait would have; an early end costs the loop one more turn,
/// since it runs only timers that are due).
struct WaitPlan {
    enum Step: Equatable {
        /// `epoll_wait` with a zero timeout.
        case poll
        /// Sleep without watching the descriptors (the batch window).
        case pause(TimeAmount)
        /// `epoll_wait` that may sleep this long (-1: until something is ready).
        case block(milliseconds: Int32)
        /// Hand what the last step found to the loop.
        case finished
    }

    private enum Stage {
        case start
        case spinning(until: Deadline)
        case polledBeforePause
        case paused
        case polledAfterPause
        case blocked
    }

    private let timeoutMilliseconds: Int32
    private let busyPoll: TimeAmount?
    private let batchWindow: TimeAmount?
    private var stage = Stage.start
    /// When the wait began; read only when it spins or pauses.
    private var began = Deadline.distantPast

    /// `timeoutMilliseconds` as the loop computed it from its timers and queue (-1: none, 0:
    /// do not sleep at all).
    init(timeoutMilliseconds: Int32, busyPoll: TimeAmount?, batchWindow: TimeAmount?) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.busyPoll = busyPoll.flatMap { $0 > .zero ? $0 : nil }
        self.batchWindow = batchWindow.flatMap { $0 > .zero ? $0 : nil }
    }

    /// The step after one that found `ready` descriptors. `now` is read only to spin and pause.
    mutating func next(ready: Int, now: () -> Deadline) -> Step {
        if ready > 0 {
            stage = .blocked
            return .finished
        }
        switch stage {
        case .start:
            if timeoutMilliseconds == 0 || (busyPoll == nil && batchWindow == nil) {
                stage = .blocked
                return .block(milliseconds: timeoutMilliseconds)
            }
            began = now()
            if let busyPoll {
                stage = .spinning(until: began + busyPoll)
            } else {
                stage = .polledBeforePause
            }
            return .poll
        case .spinning(let until):
            let time = now()
            if time < until { return .poll }
            return afterPoll(at: time)
        case .polledBeforePause:
            return afterPoll(at: now())
        case .paused:
            stage = .polledAfterPause
            return .poll
        case .polledAfterPause:
            stage = .blocked
            return .block(milliseconds: left(at: now()))
        case .blocked:
            return .finished
        }
    }

    /// After a poll that found nothing: the batch window's pause, else the sleeping wait.
    private mutating func afterPoll(at time: Deadline) -> Step {
        guard let batchWindow else {
            stage = .blocked
            return .block(milliseconds: left(at: time))
        }
        var pause = batchWindow
        if timeoutMilliseconds > 0 {
            let remaining = remainingNanoseconds(at: time)
            guard remaining > 0 else {
                stage = .blocked
                return .block(milliseconds: 0)
            }
            pause = min(pause, .nanoseconds(remaining))
        }
        stage = .paused
        return .pause(pause)
    }

    /// What is left of the timeout at `time`, in whole milliseconds rounded down (-1: none).
    private func left(at time: Deadline) -> Int32 {
        guard timeoutMilliseconds > 0 else { return timeoutMilliseconds }
        return Int32(clamping: remainingNanoseconds(at: time) / 1_000_000)
    }

    /// Nanoseconds of a positive timeout left at `time` (0 once it has passed).
    private func remainingNanoseconds(at time: Deadline) -> Int64 {
        let total = Int64(timeoutMilliseconds) * 1_000_000
        let elapsed = max(0, (time - began).nanoseconds)
        return elapsed < total ? total - elapsed : 0
    }
}
