#if canImport(Glibc)
import Glibc
#endif
import CCourierLinux
import CourierCore
import Dispatch
import Synchronization

/// One thread running one epoll set, a task queue woken by an eventfd, and a timer heap.
///
/// Threading rules (see docs/ARCHITECTURE.md): ``execute(_:)`` may be called from any thread.
/// Everything else (registrations, timers) must be called on the loop's own thread; those
/// methods check ``assertInEventLoop()``. A connection lives on one loop for life.
///
/// `@unchecked Sendable`: the cross-thread state (`pending`, `threadID`, `isRunning`) is in a
/// `Mutex`/`Atomic`; the rest (`state`) is touched only on the loop thread, asserted.
public final class EventLoop: @unchecked Sendable, CustomStringConvertible {
    /// Loop-confined state: selector, registrations, timers.
    ///
    /// `@exclusivity(unchecked)`: the run-time check of each access (four a turn of the loop,
    /// about 330 instructions) guards against overlapping accesses, and there are none: every
    /// member is read or written by one statement of the loop thread, and no access is held
    /// across a callback (a timer's callback is taken out of `timers` before it runs, a handler
    /// out of `slots` before it is called; the selector, held while handlers run, is a `let`).
    private final class LoopState {
        let selector: Selector
        @exclusivity(unchecked) var slots: [Slot] = []
        @exclusivity(unchecked) var freeSlots: [UInt32] = []
        @exclusivity(unchecked) var timers = TimerQueue()
        @exclusivity(unchecked) var registrationCount = 0
        /// The batch ``runPendingJobs()`` runs, swapped with ``Pending/jobs`` each round: both
        /// arrays keep their capacity, so queueing and running jobs allocates no array.
        @exclusivity(unchecked) var batch: [Job] = []
        /// The empty read buffer connections on this loop borrow (``borrowReadBuffer()``).
        @exclusivity(unchecked) var spareReadBuffer: ByteBuffer?

        init(selector: consuming Selector) { self.selector = selector }
    }

    private struct Slot {
        var generation: UInt32 = 0
        var handler: (any Selectable)?
        var descriptor: Int32 = -1
    }

    /// A queued closure or task. An enum rather than a bare closure, because an array of bare
    /// closures stores each one behind a reabstraction thunk: a heap context allocated on every
    /// `append`.
    private enum Job {
        case closure(@Sendable () -> Void)
        case task(any EventLoopTask)

        func run() {
            switch self {
            case .closure(let body): body()
            case .task(let task): task.runOnEventLoop()
            }
        }
    }

    private struct Pending {
        var jobs: [Job] = []
        var wakeupRequested = false
        /// Set once the loop thread has run its last jobs: nothing queued later could ever run.
        var closed = false
    }

    /// Reserved registration slot for the wake-up eventfd.
    private static let wakeToken = RegistrationID(slot: .max, generation: 0)

    public let name: String
    /// How long the loop polls without sleeping before it blocks in `epoll_wait` (nil: never).
    public let busyPoll: TimeAmount?
    /// How long the loop lets readiness gather, unwatched, once it finds nothing ready (nil: it
    /// sleeps in `epoll_wait` at once).
    public let batchWindow: TimeAmount?
    private let state: LoopState
    private let wakeDescriptor: Int32
    private let pending = Mutex(Pending())
    private let threadID = Atomic<UInt>(0)
    private let isRunning = Atomic<Bool>(true)
    private let finished = Mutex<Bool>(false)
    private var thread: pthread_t?

    /// Creates the loop and starts its thread.
    ///
    /// - Parameter busyPoll: when set, the loop checks for readiness without sleeping for up to
    ///   this long before it blocks. A reply that arrives within the window is handled without
    ///   the scheduler's wake-up latency (tens of microseconds on a VM), at the price of a core
    ///   spinning while idle. Off by default; meant for latency-bound, dedicated-core uses such as
    ///   a sequential load generator.
    /// - Parameter batchWindow: when set, a loop that finds nothing ready pauses this long
    ///   without being woken, then looks once more before it sleeps in `epoll_wait`. Replies that
    ///   arrive during the pause are handled in one turn: one wake-up for many, where each wake-up
    ///   costs the loop 4-6 µs of CPU on a VM (Benchmarks/Client/wakeup_cost.c). The price is
    ///   latency: readiness, a job queued from another thread, and a timer wait up to the window
    ///   (plus the kernel's timer slack, 50 µs by default) before they are handled. Off by
    ///   default; meant for a loop that keeps many requests in flight, such as a closed-loop load
    ///   generator, where that delay is small next to the queueing it measures. When nothing
    ///   arrives during the pause, the pause was a sleep of its own (a timer's wake-up costs
    ///   about as much), so a loop with few requests in flight spends more, not less. At most
    ///   100 ms: the loop hears nothing, its own shutdown included, while it pauses.
    public init(name: String = "courier-loop", busyPoll: TimeAmount? = nil, batchWindow: TimeAmount? = nil) throws(PosixError) {
        precondition(batchWindow.map { $0 <= .milliseconds(100) } ?? true, "a batch window is at most 100 ms")
        ProcessSetup.ignoreSIGPIPE()
        self.name = name
        self.busyPoll = busyPoll
        self.batchWindow = batchWindow
        let selector = try Selector()
        let wake = try Syscall.blocking("eventfd", eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)))
        do throws(PosixError) {
            try selector.add(wake, interest: .read, id: Self.wakeToken)
        } catch {
            Syscall.close(wake)
            throw error
        }
        self.wakeDescriptor = wake
        self.state = LoopState(selector: selector)
        try startThread()
    }

    deinit {
        Syscall.close(wakeDescriptor)
    }

    public var description: String { "EventLoop(\(name))" }

    // MARK: Any thread

    /// Whether the caller is running on this loop's thread.
    public var inEventLoop: Bool {
        UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) == threadID.load(ordering: .acquiring)
    }

    /// Traps if called off the loop thread: a threading bug, never a network condition.
    public func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "must be called on \(name)", file: file, line: line)
    }

    /// Runs `job` on the loop thread, after what is already queued. From the loop thread itself
    /// the job is queued too (never run inline), so callers never re-enter themselves. Once the
    /// loop has stopped, a job is released at once instead of being kept: it could never run,
    /// and what it captures (often the objects that own the loop) would be kept forever.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        enqueue(.closure(job))
    }

    /// Runs `task.runOnEventLoop()` on the loop thread, after what is already queued, as
    /// ``execute(_:)`` does for a closure, without allocating.
    package func execute(task: any EventLoopTask) {
        enqueue(.task(task))
    }

    private func enqueue(_ job: Job) {
        let mustWake = pending.withLock { pending -> Bool in
            if pending.closed { return false }
            pending.jobs.append(job)
            if pending.wakeupRequested { return false }
            pending.wakeupRequested = true
            return true
        }
        if mustWake && !inEventLoop {
            var one: UInt64 = 1
            _ = Glibc.write(wakeDescriptor, &one, 8)
        }
    }

    // MARK: Loop thread only

    /// An empty buffer to read into, lent by the loop: connections that consume everything they
    /// read give it back (``returnReadBuffer(_:)``), so a keep-alive connection reading one
    /// response at a time allocates no read buffer per response, and an idle one holds none.
    /// Loop thread only.
    public func borrowReadBuffer() -> ByteBuffer {
        assert(inEventLoop, "borrowReadBuffer off \(name)")
        guard let buffer = state.spareReadBuffer else { return ByteBuffer() }
        state.spareReadBuffer = nil
        return buffer
    }

    /// Takes back a buffer whose bytes were all consumed, to lend it again. A buffer still
    /// shared with a slice someone kept is simply copied by its next write. Loop thread only.
    public func returnReadBuffer(_ buffer: ByteBuffer) {
        assert(inEventLoop, "returnReadBuffer off \(name)")
        var buffer = buffer
        buffer.clear()
        state.spareReadBuffer = buffer
    }

    /// Runs `body` on the loop and waits for its result. Must not be called on the loop.
    public func submitAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        if inEventLoop { return body() }
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        execute {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Stops the loop after the jobs already queued and waits for its thread to end. Close
    /// every connection first; registrations still present are dropped without a callback.
    public func shutdown() {
        precondition(!inEventLoop, "shutdown() would wait for its own thread")
        let alreadyFinished = finished.withLock { value -> Bool in
            defer { value = true }
            return value
        }
        guard !alreadyFinished else { return }
        execute { [self] in isRunning.store(false, ordering: .releasing) }
        if let thread { pthread_join(thread, nil) }
    }

    // MARK: Loop thread only

    /// Registers `fd` for `interest`; `handler` is called with readiness until deregistered.
    public func register(_ fd: Int32, interest: Interest, handler: any Selectable) throws(PosixError) -> RegistrationID {
        assertInEventLoop()
        let slot: UInt32
        if let free = state.freeSlots.popLast() {
            slot = free
        } else {
            slot = UInt32(state.slots.count)
            state.slots.append(Slot())
        }
        let index = Int(slot)
        state.slots[index].generation &+= 1
        let id = RegistrationID(slot: slot, generation: state.slots[index].generation)
        do throws(PosixError) {
            try state.selector.add(fd, interest: interest, id: id)
        } catch {
            state.freeSlots.append(slot)
            throw error
        }
        state.slots[index].handler = handler
        state.slots[index].descriptor = fd
        state.registrationCount += 1
        return id
    }

    /// Changes what a registration listens for.
    public func reregister(_ id: RegistrationID, interest: Interest) throws(PosixError) {
        assertInEventLoop()
        guard let slot = liveSlot(id) else { return }
        try state.selector.modify(state.slots[slot].descriptor, interest: interest, id: id)
    }

    /// Removes a registration. Call before closing the descriptor. Events already returned by
    /// this wait for the old registration are dropped (the generation no longer matches).
    public func deregister(_ id: RegistrationID) {
        assertInEventLoop()
        guard let slot = liveSlot(id) else { return }
        state.selector.remove(state.slots[slot].descriptor)
        // Taken out, and released only once the slot is free and counted: not inside the
        // access to `slots`, and not before the bookkeeping, since its deinit may deregister or
        // cancel something else.
        let handler = state.slots[slot].handler.take()
        state.slots[slot].descriptor = -1
        state.slots[slot].generation &+= 1
        state.freeSlots.append(UInt32(slot))
        state.registrationCount -= 1
        _ = consume handler
    }

    /// The number of live registrations (for leak checks in tests).
    public var registrationCount: Int {
        assertInEventLoop()
        return state.registrationCount
    }

    /// Calls `callback` on the loop at `deadline` unless cancelled first.
    @discardableResult
    public func scheduleTimer(at deadline: Deadline, _ callback: @escaping () -> Void) -> TimerID {
        assertInEventLoop()
        return state.timers.schedule(at: deadline, callback)
    }

    /// Cancels a timer; a no-op if it already ran.
    public func cancelTimer(_ id: TimerID) {
        assertInEventLoop()
        // Released after the access to `timers`, not inside it: what the callback holds may
        // cancel another timer when it goes.
        let callback = state.timers.cancel(id)
        _ = callback
    }

    // MARK: The loop

    private func liveSlot(_ id: RegistrationID) -> Int? {
        let index = Int(id.slot)
        guard index < state.slots.count, state.slots[index].generation == id.generation,
              state.slots[index].handler != nil else { return nil }
        return index
    }

    private func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), ordering: .releasing)
        // Whether the last `runPendingJobs` ended on an empty queue, with the wake-up flag down.
        // Nothing may run between it and the next wait (see `waitTimeout(queueDrained:)`).
        var drained = false
        while isRunning.load(ordering: .acquiring) {
            let timeout = waitTimeout(queueDrained: drained)
            do {
                try state.selector.wait(timeoutMilliseconds: timeout, busyPoll: busyPoll, batchWindow: batchWindow) { id, events in
                    if id == Self.wakeToken {
                        var counter: UInt64 = 0
                        _ = Glibc.read(wakeDescriptor, &counter, 8)
                        return
                    }
                    guard let slot = liveSlot(id), let handler = state.slots[slot].handler else { return }
                    handler.selectorReady(events)
                }
            } catch {
                // epoll_wait fails only on programming errors (EBADF/EINVAL); stop rather than spin.
                isRunning.store(false, ordering: .releasing)
            }
            let now = Deadline.now()
            // One at a time: a callback may cancel another timer that is also due.
            while let timer = state.timers.popFirstExpired(now: now) { timer() }
            drained = runPendingJobs()
        }
        runPendingJobs()
        // Timers that never fired are dropped now rather than with the loop: a callback may hold
        // an object that holds this loop (a connection's timers capture it strongly).
        var dropped = TimerQueue()
        swap(&dropped, &state.timers)
        _ = consume dropped
        // Jobs queued from here on are released by `execute`; these are what the last round left.
        let leftOver = pending.withLock { pending -> [Job] in
            pending.closed = true
            defer { pending.jobs.removeAll() }
            return pending.jobs
        }
        _ = consume leftOver
    }

    /// How long the next wait may block. With `queueDrained`, the queue was found empty under
    /// the lock just now and the wake-up flag put down, and nothing has run on the loop since:
    /// a job queued since then came from another thread and wrote the eventfd, so the wait
    /// returns for it and the queue needs no second look. (A job the loop thread queues writes
    /// no eventfd: were anything to run between `runPendingJobs` and this, such as timers
    /// moved after the jobs, `drained` would have to be false.)
    private func waitTimeout(queueDrained: Bool) -> Int32 {
        if !queueDrained, pending.withLock({ !$0.jobs.isEmpty }) { return 0 }
        guard let next = state.timers.nextDeadline() else { return -1 }
        // Round up so a timer never fires early and the loop never spins on a 0 ms wait
        // (overflow-safe: a deadline in the distant future clamps to the longest wait).
        return Int32(clamping: next.remaining().millisecondsRoundedUp)
    }

    /// Runs queued jobs, including jobs those jobs queue, for a few rounds: a request that
    /// hops twice on its own loop then starts in this turn instead of costing another
    /// `epoll_wait`. The round limit keeps a job that always requeues itself from starving I/O.
    /// Returns true when it stopped on an empty queue, false when the round limit stopped it.
    @discardableResult
    private func runPendingJobs() -> Bool {
        for _ in 0..<8 {
            var batch = state.batch
            state.batch = []
            pending.withLock { pending in
                pending.wakeupRequested = false
                swap(&pending.jobs, &batch)
            }
            if batch.isEmpty {
                state.batch = batch
                return true
            }
            for job in batch { job.run() }
            // Unique again once the jobs are gone, so emptying it keeps its storage.
            batch.removeAll(keepingCapacity: true)
            state.batch = batch
        }
        return false
    }

    private func startThread() throws(PosixError) {
        let box = Unmanaged.passRetained(self)
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            // Safe: `raw` is the retained EventLoop passed below; released exactly once here.
            let loop = Unmanaged<EventLoop>.fromOpaque(raw!).takeRetainedValue()
            _ = loop.name.prefix(15).withCString { pthread_setname_np(pthread_self(), $0) }
            loop.run()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw PosixError(code: result, call: "pthread_create")
        }
        thread = handle
    }
}
