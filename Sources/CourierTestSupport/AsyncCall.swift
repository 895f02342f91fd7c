import CourierCore
import Dispatch
import Synchronization

/// Runs `async` work on threads of its own, so that a synchronous test (which holds the
/// descriptor lock for its whole run) can wait for it without relying on the cooperative pool.
public final class TestTaskExecutor: TaskExecutor {
    public static let shared = TestTaskExecutor()
    private let queue = DispatchQueue(label: "courier.tests.async", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// An `async` call with a typed error, started at once in its own Swift task on
/// ``TestTaskExecutor``; ``wait(seconds:)`` blocks for its result, ``cancel()`` cancels the
/// Swift task.
public final class AsyncCall<Value: Sendable, Failure: Error>: Sendable {
    /// Where the Swift task leaves its result.
    private final class Slot: Sendable {
        let result = Mutex<Result<Value, Failure>?>(nil)
        let done = TestEvent()
    }

    private let slot = Slot()
    private let task: Task<Void, Never>

    public init(_ body: @escaping @Sendable () async throws(Failure) -> Value) {
        let slot = self.slot
        task = Task(executorPreference: TestTaskExecutor.shared) {
            let outcome: Result<Value, Failure>
            do throws(Failure) {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            slot.result.withLock { $0 = outcome }
            slot.done.signal()
        }
    }

    public func cancel() { task.cancel() }

    /// The result, or nil when it did not arrive within `seconds`.
    public func wait(seconds: Int = 20) -> Result<Value, Failure>? {
        guard slot.done.wait(timeout: .seconds(seconds)) else { return nil }
        return slot.result.withLock { $0 }
    }
}
