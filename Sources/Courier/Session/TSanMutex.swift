#if COURIER_TSAN
import CourierCore

/// ThreadSanitizer builds only. CourierCore's `Mutex` (its `PthreadMutex`) shadows
/// `Synchronization.Mutex` where a lock is made (`Mutex(…)`), but Swift's type lookup does not
/// apply import shadowing, so a stored property declared `Mutex<State>` would be ambiguous. This
/// module's own alias of CourierCore's wins there. `make linkage` allows `Mutex<…>` in a type
/// position only in a module that declares this alias.
typealias Mutex<Value> = CourierCore.Mutex<Value>
#endif
