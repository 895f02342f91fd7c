#if COURIER_TSAN
import CourierCore

/// ThreadSanitizer builds only: TSan cannot see `Synchronization.Mutex`; see `PthreadMutex`.
typealias Mutex<Value> = PthreadMutex<Value>
#endif
