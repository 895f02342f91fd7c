import Synchronization
import Testing
@testable import CourierClient

/// Shutdown waits on the tracker: a body handed to `whenIdle` runs exactly once, and never
/// while a request counted by it is running.
@Suite("RequestTracker: whenIdle runs once no request is running")
struct RequestTrackerTests {
    /// Counts the runs of the bodies it makes.
    final class Runs: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func body() -> @Sendable () -> Void { { self.count.add(1, ordering: .relaxed) } }
    }

    @Test("with no request running, the body runs at once")
    func idleRunsAtOnce() {
        let tracker = RequestTracker()
        let runs = Runs()
        tracker.whenIdle(runs.body())
        #expect(runs.value == 1)
        tracker.started()
        tracker.ended()
        #expect(runs.value == 1, "a body runs once, not at every later idle moment")
    }

    @Test("the body waits for the last of the running requests, then runs once")
    func waitsForTheLastRequest() {
        let tracker = RequestTracker()
        let runs = Runs()
        tracker.started()
        tracker.started()
        tracker.whenIdle(runs.body())
        tracker.whenIdle(runs.body())
        #expect(runs.value == 0)
        tracker.ended()
        #expect(runs.value == 0, "one request is still running")
        tracker.ended()
        #expect(runs.value == 2)
        tracker.started()
        tracker.ended()
        #expect(runs.value == 2)
    }

    @Test("a request started after the body was added delays it to that request's end")
    func aLaterRequestDelaysTheBody() {
        let tracker = RequestTracker()
        let runs = Runs()
        tracker.started()
        tracker.whenIdle(runs.body())
        tracker.started()
        tracker.ended()
        #expect(runs.value == 0)
        tracker.ended()
        #expect(runs.value == 1)
    }

    @Test("from many threads at once: every body runs exactly once, after every request ended")
    func concurrentStartsAndEnds() async {
        let tracker = RequestTracker()
        let runs = Runs()
        let threads = 8, requests = 2_000
        // Every request is counted before the bodies are added: none may run before the end.
        for _ in 0..<(threads * requests) { tracker.started() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    for _ in 0..<requests {
                        tracker.started()
                        tracker.ended()
                    }
                }
            }
            for _ in 0..<threads {
                group.addTask {
                    tracker.whenIdle(runs.body())
                    // Still counted: the pre-started requests have not ended.
                }
            }
        }
        #expect(runs.value == 0, "requests are still running")
        for _ in 0..<(threads * requests) { tracker.ended() }
        #expect(runs.value == threads)
    }
}
