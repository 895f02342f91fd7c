#if COURIER_TSAN
#if canImport(Glibc)
import Glibc
#endif
// Imported so that `Mutex` below shadows `Synchronization.Mutex`: of two declarations with one
// name, the one in the module that imports the other's module wins.
import Synchronization

/// ThreadSanitizer builds only: the `Mutex` of every file that imports CourierCore (each module's
/// files and tests). `make linkage` checks that every file that names `Mutex` imports CourierCore.
public typealias Mutex<Value> = PthreadMutex<Value>

/// Only in ThreadSanitizer builds (`make test-tsan` passes `-DCOURIER_TSAN`).
///
/// TSan cannot see `Synchronization.Mutex` on Linux: it locks with raw futex system calls that
/// TSan does not intercept, so every access it protects is reported as a race. This
/// pthread-based lock with the same `withLock` API stands in for it: under `COURIER_TSAN`
/// CourierCore declares `typealias Mutex<Value> = PthreadMutex<Value>`, which shadows
/// `Synchronization.Mutex` in every file that imports CourierCore, so TSan sees the locking and
/// reports only real races. `@unchecked Sendable`: the pthread mutex guards `value`.
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
