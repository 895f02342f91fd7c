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
    /// Whole milliseconds the pause took from the timeout (the wait after it is shorter by them).
    private var pausedMilliseconds: Int32 = 0

    /// `timeoutMilliseconds` as the loop computed it from its timers and queue (-1: none, 0:
    /// do not sleep at all).
    init(timeoutMilliseconds: Int32, busyPoll: TimeAmount?, batchWindow: TimeAmount?) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.busyPoll = busyPoll.flatMap { $0 > .zero ? $0 : nil }
        self.batchWindow = batchWindow.flatMap { $0 > .zero ? $0 : nil }
    }

    /// The step after one that found `ready` descriptors. `now` is read only while busy polling.
    mutating func next(ready: Int, now: () -> Deadline) -> Step {
        if ready > 0 {
            stage = .blocked
            return .finished
        }
        switch stage {
        case .start:
            if timeoutMilliseconds == 0 {
                stage = .blocked
                return .block(milliseconds: 0)
            }
            if let busyPoll {
                stage = .spinning(until: now() + busyPoll)
                return .poll
            }
            if batchWindow != nil {
                stage = .polledBeforePause
                return .poll
            }
            stage = .blocked
            return .block(milliseconds: timeoutMilliseconds)
        case .spinning(let until):
            if now() < until { return .poll }
            return afterPoll()
        case .polledBeforePause:
            return afterPoll()
        case .paused:
            stage = .polledAfterPause
            return .poll
        case .polledAfterPause:
            stage = .blocked
            return .block(milliseconds: timeoutMilliseconds < 0 ? -1 : max(0, timeoutMilliseconds - pausedMilliseconds))
        case .blocked:
            return .finished
        }
    }

    /// After a poll that found nothing: the batch window's pause, else the sleeping wait. The
    /// pause never outlasts the loop's timeout, and the wait after it is shorter by the pause's
    /// whole milliseconds, so a timer fires no later than the timeout's own rounding up to a
    /// millisecond already allows.
    private mutating func afterPoll() -> Step {
        guard let batchWindow else {
            stage = .blocked
            return .block(milliseconds: timeoutMilliseconds)
        }
        stage = .paused
        var pause = batchWindow
        if timeoutMilliseconds > 0 { pause = min(pause, .milliseconds(Int64(timeoutMilliseconds))) }
        pausedMilliseconds = Int32(clamping: pause.nanoseconds / 1_000_000)
        return .pause(pause)
    }
}
