#if canImport(Glibc)
import Glibc
#endif
import Testing
import CourierCore
import Synchronization
import Dispatch
import CourierTestSupport
@testable import CourierPosix

@Suite struct EventLoopTests {
    @Test func jobsFromManyThreadsRunInOrderPerThread() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-jobs")
            defer { loop.shutdown() }
            let seen = Mutex<[Int: [Int]]>([:])
            let done = Box<Bool>()
            let total = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for i in 0..<500 {
                    loop.execute {
                        precondition(loop.inEventLoop)
                        seen.withLock { $0[thread, default: []].append(i) }
                        if total.add(1, ordering: .relaxed).newValue == 2000 { done.put(true) }
                    }
                }
            }
            #expect(done.take() == true)
            seen.withLock { map in
                for thread in 0..<4 { #expect(map[thread] == Array(0..<500)) }
            }
            #expect(!loop.inEventLoop)
        }
    }

    @Test func timersFireInDeadlineOrderAndCancelledOnesDoNot() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-timers")
            defer { loop.shutdown() }
            let fired = Mutex<[Int]>([])
            let done = Box<Bool>()
            loop.execute {
                let start = Deadline.now()
                loop.scheduleTimer(at: start + .milliseconds(30)) { fired.withLock { $0.append(3) }; done.put(true) }
                loop.scheduleTimer(at: start + .milliseconds(10)) { fired.withLock { $0.append(1) } }
                let cancelled = loop.scheduleTimer(at: start + .milliseconds(20)) { fired.withLock { $0.append(99) } }
                loop.scheduleTimer(at: start + .milliseconds(20)) { fired.withLock { $0.append(2) } }
                loop.cancelTimer(cancelled)
            }
            #expect(done.take() == true)
            #expect(fired.withLock { $0 } == [1, 2, 3])
        }
    }

    @Test func aTimerNeverFiresEarly() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-early")
            defer { loop.shutdown() }
            let lateness = Box<Int64>()
            loop.execute {
                let deadline = Deadline.after(.microseconds(2_500))
                loop.scheduleTimer(at: deadline) { lateness.put((Deadline.now() - deadline).nanoseconds) }
            }
            let late = try #require(lateness.take())
            #expect(late >= 0)
        }
    }

    @Test func submitAndWaitReturnsTheValue() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-submit")
            defer { loop.shutdown() }
            #expect(loop.submitAndWait { loop.inEventLoop ? 42 : 0 } == 42)
        }
    }

    @Test func groupHandsOutLoopsRoundRobin() throws {
        try expectNoLeakedDescriptors {
            let group = try EventLoopGroup(numberOfThreads: 3)
            defer { group.shutdown() }
            let picks = (0..<6).map { _ in ObjectIdentifier(group.next()) }
            #expect(Set(picks).count == 3)
            #expect(picks[0] == picks[3] && picks[1] == picks[4])
            #expect(group.currentLoop == nil)
            let loop = group.loops[1]
            #expect(loop.submitAndWait { group.currentLoop === loop })
        }
    }

    /// Tasks and closures share one queue: each runs on the loop, once per `execute`, in the
    /// order they were queued.
    @Test func tasksAndClosuresRunInQueueOrder() throws {
        final class Recorder: EventLoopTask {
            let order = Mutex([String]())
            let loop: EventLoop
            init(_ loop: EventLoop) { self.loop = loop }
            func runOnEventLoop() {
                precondition(loop.inEventLoop)
                order.withLock { $0.append("task") }
            }
        }
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-tasks")
            defer { loop.shutdown() }
            let recorder = Recorder(loop)
            let done = Box<Bool>()
            loop.execute { recorder.order.withLock { $0.append("closure 1") } }
            loop.execute(task: recorder)
            loop.execute { recorder.order.withLock { $0.append("closure 2") } }
            loop.execute(task: recorder)
            loop.execute { done.put(true) }
            #expect(done.take() == true)
            #expect(recorder.order.withLock { $0 } == ["closure 1", "task", "closure 2", "task"])
        }
    }

    /// The loop lends back the buffer it was given, emptied and with its capacity, and lends a
    /// new empty one when it has none.
    @Test func theLoopLendsBackTheReadBufferItWasGiven() throws {
        let loop = try EventLoop(name: "t-lend")
        defer { loop.shutdown() }
        let (first, again, fresh) = loop.submitAndWait { () -> (Int, (Int, Int), Int) in
            var buffer = loop.borrowReadBuffer()
            let empty = buffer.capacity
            buffer.writeBytes(Array(repeating: UInt8(7), count: 3000))
            buffer.moveReaderIndex(forwardBy: 3000)
            let capacity = buffer.capacity
            loop.returnReadBuffer(buffer)
            let lent = loop.borrowReadBuffer()
            let second = loop.borrowReadBuffer()
            return (empty, (lent.capacity == capacity ? 1 : 0, lent.readableBytes), second.capacity)
        }
        #expect(first == 0, "nothing to lend at first: an empty buffer")
        #expect(again.0 == 1 && again.1 == 0, "the same storage back, with nothing readable")
        #expect(fresh == 0, "lent once: the next borrower gets a new buffer")
    }

    @Test func aJobQueuedAfterShutdownIsReleasedNotKept() throws {
        // A job that can never run must not keep what it captures: an object owning the loop
        // would otherwise stay alive for good (a cycle through the dead loop's queue).
        final class Captured: Sendable {}
        weak var weakCaptured: Captured?
        let loop = try EventLoop(name: "t-after-stop")
        loop.shutdown()
        do {
            let captured = Captured()
            weakCaptured = captured
            loop.execute { _ = captured }
        }
        #expect(weakCaptured == nil, "the job and what it captured were released")
    }

    @Test func shutdownReleasesEveryDescriptor() throws {
        try expectNoLeakedDescriptors {
            for _ in 0..<5 {
                let group = try EventLoopGroup(numberOfThreads: 2)
                group.shutdown()
            }
        }
    }

    /// A loop with a batch window (``WaitPlan``) still handles readiness, jobs from other
    /// threads and timers, each round trip after at most the window: the pause ends by itself.
    @Test func aLoopWithABatchWindowStillHandlesReadinessJobsAndTimers() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-batch", batchWindow: .milliseconds(2))
            defer { loop.shutdown() }
            #expect(loop.batchWindow == .milliseconds(2))
            var pair: [Int32] = [-1, -1]
            #expect(pipe(&pair) == 0)
            let fds = pair
            defer { close(fds[0]); close(fds[1]) }
            let reader = ReadBytes(fds[0])
            let registration = loop.submitAndWait { try? loop.register(fds[0], interest: .read, handler: reader) }
            for round in 0..<20 {
                var byte = UInt8(round)
                #expect(write(fds[1], &byte, 1) == 1)
                #expect(reader.next() == UInt8(round))
                let job = Box<Int>()
                loop.execute { job.put(round) }
                #expect(job.take() == round)
            }
            let lateness = Box<Int64>()
            loop.execute {
                let due = Deadline.after(.milliseconds(5))
                loop.scheduleTimer(at: due) { lateness.put((Deadline.now() - due).nanoseconds) }
            }
            // Never early; late by the window, its timer slack and the millisecond rounding at most
            // (bounded generously: a loaded machine may add its own delay).
            let late = lateness.take() ?? -1
            #expect(late >= 0 && late < 1_000_000_000)
            if let registration { loop.submitAndWait { loop.deregister(registration) } }
        }
    }
}

@Suite struct TimerQueueTests {
    @Test func cancelledTimersDoNotAccumulate() {
        var queue = TimerQueue()
        let far = Deadline.after(.seconds(60))
        let keep = queue.schedule(at: far) {}
        for _ in 0..<100_000 {
            let id = queue.schedule(at: far + .seconds(1)) {}
            queue.cancel(id)
        }
        #expect(queue.storedEntryCount < 200, "cancelled entries are compacted away")
        #expect(queue.nextDeadline() == far)
        queue.cancel(keep)
        #expect(queue.isEmpty)
    }

    @Test func aCallbackCanCancelAnotherDueTimer() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-cancel-due")
            defer { loop.shutdown() }
            let fired = Mutex<[Int]>([])
            let done = Box<Bool>()
            loop.execute {
                let at = Deadline.after(.milliseconds(5))
                var second: TimerID?
                loop.scheduleTimer(at: at) {
                    fired.withLock { $0.append(1) }
                    if let second { loop.cancelTimer(second) }
                }
                second = loop.scheduleTimer(at: at + .microseconds(1)) { fired.withLock { $0.append(2) } }
                loop.scheduleTimer(at: at + .milliseconds(5)) { done.put(true) }
            }
            #expect(done.take() == true)
            #expect(fired.withLock { $0 } == [1], "the cancelled timer was due in the same turn but must not run")
        }
    }

    /// `nextDeadline()` skips the lookup for a first entry it already found live; random
    /// schedules, cancels and expiries against a plain list say it never reports a cancelled or
    /// expired timer and never misses the earliest live one.
    @Test(arguments: [1, 2, 3, 4, 5]) func nextDeadlineMatchesAModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var queue = TimerQueue()
        let base = Deadline.now()
        var live: [(id: TimerID, at: Deadline)] = []
        var now = base
        for _ in 0..<5_000 {
            switch rng.next() % 10 {
            case 0..<4:
                let at = now + .microseconds(Int64(rng.next() % 1_000))
                live.append((queue.schedule(at: at) {}, at))
            case 4..<7 where !live.isEmpty:
                let victim = Int(rng.next() % UInt64(live.count))
                #expect(queue.cancel(live[victim].id) != nil)
                #expect(queue.cancel(live[victim].id) == nil, "a second cancel finds nothing")
                live.remove(at: victim)
            case 7:
                now = now + .microseconds(Int64(rng.next() % 300))
                while let callback = queue.popFirstExpired(now: now) { callback() }
                live.removeAll { $0.at <= now }
            default:
                break
            }
            let next = queue.nextDeadline()
            #expect(next == live.map(\.at).min())
            if next != live.map(\.at).min() { return }
        }
    }

    /// Releasing a timer's callback or a registration's handler may run a deinit that cancels
    /// or deregisters something else on the same loop: the loop releases them after its own
    /// access to the timers or the registrations has ended (its state is not checked for
    /// overlapping accesses at run time, so it must never make one).
    @Test func aReleaseThatCancelsOrDeregistersReentersSafely() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-release")
            defer { loop.shutdown() }
            let released = Mutex<[String]>([])
            let done = Box<Bool>()
            var pair: [Int32] = [-1, -1]
            #expect(pipe(&pair) == 0)
            let fds = pair
            defer { close(fds[0]); close(fds[1]) }
            loop.execute {
                let far = Deadline.after(.seconds(60))
                let other = loop.scheduleTimer(at: far) { released.withLock { $0.append("other fired") } }
                // Each object below is held only by the loop (the timer's callback, the slot's
                // handler), so the cancel and the deregister release it.
                let first = loop.scheduleTimer(at: far) { [witness = OnRelease {
                    loop.cancelTimer(other)
                    released.withLock { $0.append("timer") }
                }] in _ = witness }
                loop.cancelTimer(first)
                let otherRegistration = try? loop.register(fds[1], interest: [], handler: IgnoreEvents())
                let registration = try? loop.register(fds[0], interest: .read, handler: IgnoreEvents(onRelease: OnRelease {
                    if let otherRegistration { loop.deregister(otherRegistration) }
                    released.withLock { $0.append("handler") }
                }))
                if let registration { loop.deregister(registration) }
                released.withLock { $0.append(loop.registrationCount == 0 ? "none left" : "left") }
                loop.scheduleTimer(at: .now()) { done.put(true) }
            }
            #expect(done.take() == true)
            #expect(released.withLock { $0 } == ["timer", "handler", "none left"])
        }
    }

    @Test func orderSurvivesCompaction() {
        var queue = TimerQueue()
        let base = Deadline.now()
        var fired: [Int] = []
        var cancelled: [TimerID] = []
        for i in (0..<500).reversed() {
            let id = queue.schedule(at: base + .milliseconds(Int64(i))) { fired.append(i) }
            if i % 3 != 0 { cancelled.append(id) }
        }
        for id in cancelled { queue.cancel(id) }
        while let callback = queue.popFirstExpired(now: base + .seconds(1)) { callback() }
        #expect(fired == Array(stride(from: 0, to: 500, by: 3)))
    }
}

/// Runs `body` when released.
private final class OnRelease: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    deinit { body() }
}

/// A handler that ignores its events and holds `onRelease`.
private final class IgnoreEvents: Selectable, @unchecked Sendable {
    let onRelease: OnRelease?
    init(onRelease: OnRelease? = nil) { self.onRelease = onRelease }
    func selectorReady(_ events: SelectorEvents) {}
}

/// Reads each byte that arrives on `fd` and hands them out one at a time, in order.
private final class ReadBytes: Selectable, @unchecked Sendable {
    let fd: Int32
    private let bytes = Mutex<[UInt8]>([])
    private let arrived = DispatchSemaphore(value: 0)
    init(_ fd: Int32) { self.fd = fd }
    func selectorReady(_ events: SelectorEvents) {
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) == 1 else { return }
        bytes.withLock { $0.append(byte) }
        arrived.signal()
    }
    /// The next byte, waiting up to 10 s for it.
    func next() -> UInt8? {
        guard arrived.wait(timeout: .now() + .seconds(10)) == .success else { return nil }
        return bytes.withLock { $0.removeFirst() }
    }
}
