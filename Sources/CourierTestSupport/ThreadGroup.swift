#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import Synchronization

/// Real detached pthreads that can be waited for as a group.
///
/// A server runs one thread per connection, all blocked in `read`, so it cannot use Dispatch's
/// pool (1,000 blocked work items would starve it). Threads are detached so finished ones release
/// their stacks at once; ``waitAll(timeout:)`` waits for the running count to reach zero, which
/// is what joining them would give.
final class ThreadGroup: Sendable {
    /// How many threads have started and not yet finished.
    private let running = Mutex(0)
    private let idle = Mutex<TestEvent?>(nil)

    /// Stack size for each thread: handlers are shallow, and a thousand 8 MiB stacks would be a
    /// lot of address space.
    private static let stackSize = 512 * 1024

    /// Starts `body` on a new detached thread. Returns false if the thread could not be created.
    @discardableResult
    func spawn(_ body: @escaping @Sendable () -> Void) -> Bool {
        running.withLock { $0 += 1 }
        let box = Unmanaged.passRetained(ThreadBody { [self] in
            body()
            finished()
        })
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, Self.stackSize)
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { context in
            // Safe: `context` is the retained `ThreadBody` passed below; this thread takes over
            // that +1 reference and releases it when the body returns.
            let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, box.toOpaque())
        if rc != 0 {
            box.release()
            finished()
            return false
        }
        return true
    }

    /// The number of threads still running.
    var count: Int { running.withLock { $0 } }

    /// Waits until every spawned thread has returned. Returns false on timeout.
    @discardableResult
    func waitAll(timeout: Duration = .seconds(30)) -> Bool {
        let event = TestEvent()
        let alreadyIdle = running.withLock { count -> Bool in
            if count == 0 { return true }
            idle.withLock { $0 = event }
            return false
        }
        if alreadyIdle { return true }
        return event.wait(timeout: timeout)
    }

    private func finished() {
        let event = running.withLock { count -> TestEvent? in
            count -= 1
            guard count == 0 else { return nil }
            return idle.withLock { waiter in
                defer { waiter = nil }
                return waiter
            }
        }
        event?.signal()
    }
}

/// The closure a new thread runs, boxed so it can travel through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
