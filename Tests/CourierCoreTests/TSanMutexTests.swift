import CourierCore
import Synchronization
import Testing

/// The one TSan lock: under `-DCOURIER_TSAN` (`make test-tsan`), `Mutex` in a file that imports
/// both Synchronization and CourierCore is CourierCore's pthread lock, which TSan can see.
@Suite("TSan mutex")
struct TSanMutexTests {
    @Test func mutexIsThePthreadLockUnderTSan() {
        let counter = Mutex(0)
        counter.withLock { $0 += 1 }
        #expect(counter.withLock { $0 } == 1)
        #if COURIER_TSAN
        #expect(ObjectIdentifier(Mutex<Int>.self) == ObjectIdentifier(PthreadMutex<Int>.self))
        #endif
    }

    /// The continuation hand-off annotations (`TSanHandoff`) find TSan's entry points in a TSan
    /// build and are inert in any other.
    @Test func continuationHandoffsAreAnnotatedOnlyUnderTSan() {
        #if COURIER_TSAN
        #expect(TSanHandoff.isAnnotating)
        #else
        #expect(!TSanHandoff.isAnnotating)
        #endif
    }
}
