import Testing
import CourierCore
@testable import CourierPosix

/// The steps of one event-loop wait (``WaitPlan``), without sockets: the plain sleeping wait,
/// busy polling, the batch window's poll, pause, poll and wait, and where readiness or the
/// loop's timeout cut them short.
@Suite struct WaitPlanTests {
    /// Runs `plan`, answering each step with the next of `found` (0 once they run out), and
    /// returns the steps up to and including `.finished`.
    static func steps(_ plan: WaitPlan, found: [Int] = [], clock: [UInt64] = []) -> [WaitPlan.Step] {
        var plan = plan
        var found = found[...]
        var clock = clock[...]
        var steps: [WaitPlan.Step] = []
        var ready = 0
        while steps.count < 20 {
            let step = plan.next(ready: ready) {
                Deadline(uptimeNanoseconds: clock.popFirst() ?? .max)
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

    @Test func thePauseNeverOutlastsTheTimeoutAndShortensTheWaitAfterIt() {
        let short = WaitPlan(timeoutMilliseconds: 3, busyPoll: nil, batchWindow: .milliseconds(10))
        #expect(Self.steps(short) == [.poll, .pause(.milliseconds(3)), .poll, .block(milliseconds: 0), .finished])
        let longer = WaitPlan(timeoutMilliseconds: 5, busyPoll: nil, batchWindow: .milliseconds(2))
        #expect(Self.steps(longer) == [.poll, .pause(.milliseconds(2)), .poll, .block(milliseconds: 3), .finished])
        let fine = WaitPlan(timeoutMilliseconds: 5, busyPoll: nil, batchWindow: .microseconds(25))
        #expect(Self.steps(fine) == [.poll, .pause(.microseconds(25)), .poll, .block(milliseconds: 5), .finished])
    }

    @Test func busyPollingSpinsUntilItsWindowEndsThenSleeps() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: .microseconds(10), batchWindow: nil)
        // The clock reads 0 when the spin starts (window ends at 10 µs), then 4 and 9 µs (still
        // inside: poll again), then 10 µs (over).
        #expect(Self.steps(plan, clock: [0, 4_000, 9_000, 10_000]) == [.poll, .poll, .poll, .block(milliseconds: -1), .finished])
        #expect(Self.steps(plan, found: [0, 1], clock: [0, 4_000]) == [.poll, .poll, .finished])
    }

    @Test func busyPollingThenTheBatchWindow() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: .microseconds(10), batchWindow: .microseconds(25))
        #expect(Self.steps(plan, clock: [0, 10_000]) == [.poll, .pause(.microseconds(25)), .poll, .block(milliseconds: -1), .finished])
    }

    @Test func zeroOrNegativeWindowsAreOff() {
        let plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: .zero, batchWindow: .nanoseconds(-5))
        #expect(Self.steps(plan) == [.block(milliseconds: -1), .finished])
    }

    @Test func theClockIsReadOnlyWhileBusyPolling() {
        var reads = 0
        var plan = WaitPlan(timeoutMilliseconds: -1, busyPoll: nil, batchWindow: .microseconds(25))
        var step = plan.next(ready: 0) { reads += 1; return .now() }
        while step != .finished { step = plan.next(ready: 0) { reads += 1; return .now() } }
        #expect(reads == 0)
    }
}
