#if canImport(Glibc)
import Glibc
#endif

/// A one-shot event that tests and server handlers wait on instead of sleeping.
///
/// `signal()` sets it for good and wakes every waiter; `wait(timeout:)` returns `true` as soon as
/// it is set (at once if it already is) and `false` when the timeout passes first.
///
/// ```swift
/// let headSent = TestEvent()
/// server.route("/slow") { _, connection in
///     try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
///     headSent.signal()
///     try connection.stall(until: release)
/// }
/// #expect(headSent.wait(timeout: .seconds(5)))
/// ```
// @unchecked Sendable: `signaled` and `observers` are read and written only while `mutex` is held;
// the pthread objects themselves are made for sharing between threads and never move (heap).
public final class TestEvent: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Guarded by `mutex`.
    private var signaled = false
    /// Events to signal together with this one (see ``wait(anyOf:timeout:)``). Guarded by `mutex`.
    private var observers: [ObjectIdentifier: TestEvent] = [:]

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Timed waits measure on the monotonic clock, so a wall-clock step cannot stretch them.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Whether ``signal()`` has been called.
    public var isSignaled: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return signaled
    }

    /// Sets the event and wakes every waiter. Later calls do nothing.
    public func signal() {
        pthread_mutex_lock(mutex)
        if signaled {
            pthread_mutex_unlock(mutex)
            return
        }
        signaled = true
        let toWake = Array(observers.values)
        observers.removeAll()
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        // Never call out while holding the lock.
        for observer in toWake { observer.signal() }
    }

    /// Waits until the event is set or `timeout` passes. Returns whether it was set.
    @discardableResult
    public func wait(timeout: Duration = .seconds(10)) -> Bool {
        let deadline = Self.monotonicDeadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !signaled {
            var ts = deadline
            let rc = pthread_cond_timedwait(condition, mutex, &ts)
            if rc == ETIMEDOUT { return signaled }
        }
        return true
    }

    /// Waits until any of `events` is set or `timeout` passes. Returns whether one was set.
    @discardableResult
    public static func wait(anyOf events: [TestEvent], timeout: Duration = .seconds(10)) -> Bool {
        let combined = TestEvent()
        for event in events { event.addObserver(combined) }
        defer { for event in events { event.removeObserver(combined) } }
        return combined.wait(timeout: timeout)
    }

    /// Makes `observer` signal when this event does (at once if it already has).
    private func addObserver(_ observer: TestEvent) {
        pthread_mutex_lock(mutex)
        if signaled {
            pthread_mutex_unlock(mutex)
            observer.signal()
            return
        }
        observers[ObjectIdentifier(observer)] = observer
        pthread_mutex_unlock(mutex)
    }

    private func removeObserver(_ observer: TestEvent) {
        pthread_mutex_lock(mutex)
        observers[ObjectIdentifier(observer)] = nil
        pthread_mutex_unlock(mutex)
    }

    /// The absolute `CLOCK_MONOTONIC` time `timeout` from now, as `pthread_cond_timedwait` wants it.
    static func monotonicDeadline(after timeout: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = timeout.components
        let clampedSeconds = max(0, min(seconds, 10_000_000))
        var nanoseconds = Int(now.tv_nsec) + (seconds < 0 ? 0 : Int(attoseconds / 1_000_000_000))
        var wholeSeconds = Int(now.tv_sec) + Int(clampedSeconds)
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds += 1
        }
        return timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds)
    }
}
