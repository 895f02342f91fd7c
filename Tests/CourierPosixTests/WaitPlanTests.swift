import Testing
import CourierCore
@testable import CourierPosix

/// The steps of one event-loop wait (``WaitPlan``), without sockets: the plain sleeping wait,
/// busy polling, the batch window's poll, pause, poll and wait, and where readiness or the
/// loop's timeout cut them short.
@Suite struct WaitPlanTests {
    /// Runs `plan`, answering each step with the next of `found` (0 once they run out) and each
    /// clock read with the next of `clock` in nanoseconds (the last again once they run out),
    /// and returns the steps up to and including `.finished`.
    static func steps(_ plan: WaitPlan, found: [Int] = [], clock: [UInt64] = []) -> [WaitPlan.Step] {
        var plan = plan
        var found = found[...]
        var clock = clock[...]
        var last: UInt64 = 1_000_000_000
        var steps: [WaitPlan.Step] = []
        var ready = 0
        while steps.count < 20 {
            let step = plan.next(ready: ready) {
                if let time = clock.popFirst() { last = 1_000_000_000 + time }
                return Deadline(uptimeNanoseconds: last)
            }
            steps.append(step)
            if step == .finished { break }
            if case .pause = step { continue }
            ready = found.popFirst() ?? 0
        }
        return steps
    }

    @Test func withoutOptionsItIsOneSleepingWait() {
        let forever = WaitPlan(timeoutMilliseconds: -1, busyPoll: nil, batchWindow: nil)
        #expect(Self.steps(forever) == [.block(milliseconds: -1), .finished])
        let timed = WaitPlan(timeoutMilliseconds: 7, busyPoll: nil, batchWindow: nil)
        #expect(Self.steps(timed, found: [2]) == [.block(milliseconds: 7), .finished])
    }

    @Test func aZeroTimeoutNeitherSpinsNorPauses() {
        let plan = WaitPlan(timeoutMilliseconds: 0, busyPoll: .milliseconds(1), batchWindow: .milliseconds(1))
        #expect(Self.steps(plan) == [.block(milliseconds: 0), .finished])
    }

    @Test func theBatchWindowPollsPausesPollsAndOnlyThenSleeps() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: nil, batchWindow: .microseconds(25))
        #expect(Self.steps(plan) == [.poll, .pause(.microseconds(25)), .poll, .block(milliseconds: -1), .finished])
    }

    @Test func readinessFoundAtAnyPollEndsTheWait() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: nil, batchWindow: .microseconds(25))
        // Something already ready: no pause at all, so a loop that has work never waits.
        #expect(Self.steps(plan, found: [3]) == [.poll, .finished])
        // Replies that arrived during the pause.
        #expect(Self.steps(plan, found: [0, 5]) == [.poll, .pause(.microseconds(25)), .poll, .finished])
    }

    /// Spinning and pausing count against the timeout: the pause is cut to what is left of it,
    /// and the wait after is for what is left, rounded down, so it ends no later than the
    /// plain wait would have. (The clock reads: when the wait began, after the first poll or
    /// each spin, after the pause.)
    @Test func thePauseAndTheWaitAfterItFitInTheTimeout() {
        let short = WaitPlan(timeoutMilliseconds: 3, busyPoll: nil, batchWindow: .milliseconds(10))
        #expect(Self.steps(short, clock: [0, 0, 3_000_000]) == [.poll, .pause(.milliseconds(3)), .poll, .block(milliseconds: 0), .finished])
        let longer = WaitPlan(timeoutMilliseconds: 5, busyPoll: nil, batchWindow: .milliseconds(2))
        #expect(Self.steps(longer, clock: [0, 0, 2_050_000]) == [.poll, .pause(.milliseconds(2)), .poll, .block(milliseconds: 2), .finished])
        let fine = WaitPlan(timeoutMilliseconds: 5, busyPoll: nil, batchWindow: .microseconds(25))
        #expect(Self.steps(fine, clock: [0, 100_000, 175_000]) == [.poll, .pause(.microseconds(25)), .poll, .block(milliseconds: 4), .finished])
        let tight = WaitPlan(timeoutMilliseconds: 1, busyPoll: nil, batchWindow: .microseconds(25))
        #expect(Self.steps(tight, clock: [0, 990_000, 1_000_000]) == [.poll, .pause(.microseconds(10)), .poll, .block(milliseconds: 0), .finished])
        // The first poll took the whole timeout: no pause.
        #expect(Self.steps(tight, clock: [0, 1_000_000]) == [.poll, .block(milliseconds: 0), .finished])
    }

    @Test func busyPollingSpinsUntilItsWindowEndsThenSleeps() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: .microseconds(10), batchWindow: nil)
        // The clock reads 0 when the spin starts (window ends at 10 µs), then 4 and 9 µs (still
        // inside: poll again), then 10 µs (over).
        #expect(Self.steps(plan, clock: [0, 4_000, 9_000, 10_000]) == [.poll, .poll, .poll, .block(milliseconds: -1), .finished])
        #expect(Self.steps(plan, found: [0, 1], clock: [0, 4_000]) == [.poll, .poll, .finished])
        // With a timeout, the wait after the spin is for what is left of it.
        let timed = WaitPlan(timeoutMilliseconds: 2, busyPoll: .microseconds(10), batchWindow: nil)
        #expect(Self.steps(timed, clock: [0, 4_000, 10_000]) == [.poll, .poll, .block(milliseconds: 1), .finished])
    }

    @Test func busyPollingThenTheBatchWindow() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: .microseconds(10), batchWindow: .microseconds(25))
        #expect(Self.steps(plan, clock: [0, 10_000]) == [.poll, .pause(.microseconds(25)), .poll, .block(milliseconds: -1), .finished])
        // A 1 ms timeout, half of it spent spinning: the pause gets the other half, the wait none.
        let timed = WaitPlan(timeoutMilliseconds: 1, busyPoll: .microseconds(500), batchWindow: .milliseconds(1))
        #expect(Self.steps(timed, clock: [0, 500_000, 1_000_000]) == [.poll, .pause(.microseconds(500)), .poll, .block(milliseconds: 0), .finished])
    }

    @Test func zeroOrNegativeWindowsAreOff() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: .zero, batchWindow: .nanoseconds(-5))
        #expect(Self.steps(plan) == [.block(milliseconds: -1), .finished])
    }

    /// The plain wait, every turn of a loop without the options, never reads the clock.
    @Test func thePlainWaitReadsNoClock() {
        for timeout: Int32 in [-1, 0, 5] {
            var reads = 0
            var plan = WaitPlan(timeoutMilliseconds: timeout, busyPoll: nil, batchWindow: nil)
            var step = plan.next(ready: 0) { reads += 1; return .now() }
            while step != .finished { step = plan.next(ready: 0) { reads += 1; return .now() } }
            #expect(reads == 0)
        }
    }
}
