#if COURIER_TSAN
#if canImport(Glibc)
import Glibc
#endif

/// Only in ThreadSanitizer builds (`make test-tsan` passes `-DCOURIER_TSAN`).
///
/// TSan cannot see `Synchronization.Mutex` on Linux: it locks with raw futex system calls that
/// TSan does not intercept, so every access it protects is reported as a race. This
/// pthread-based lock with the same `withLock` API stands in for it: every module that uses
/// `Mutex` declares `typealias Mutex<Value> = PthreadMutex<Value>` under `COURIER_TSAN`
/// (a module's own declaration shadows the imported one), so TSan sees the locking and reports
/// only real races. `@unchecked Sendable`: the pthread mutex guards `value`.
public final class PthreadMutex<Value>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    // Behind a pointer, not a stored property: a zero-sized `Value` (Mutex<Void>) would make the
    // access to the property look like an access to the object's header.
    private let value: UnsafeMutablePointer<Value>

    public init(_ initialValue: Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value.pointee)
    }
}
#endif
