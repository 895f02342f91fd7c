#if canImport(Glibc)
import Glibc
#endif
import Testing
import CourierCore
import Synchronization
import Dispatch
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
