import Dispatch

/// Where Courier's own asynchronous interceptor work resumes after it suspends — an adapter
/// awaiting a token, a retrier awaiting a refresh, a retry's delay: Dispatch's global queue,
/// not Swift's cooperative pool. A program that blocks every thread of that pool (synchronous
/// waits in it are common in tests and in code bridging to callbacks) cannot stall a request
/// that waits on its interceptor. The jobs of one Swift task never run concurrently, so a
/// concurrent queue is safe.
final class InterceptionExecutor: TaskExecutor {
    static let shared = InterceptionExecutor()

    private let queue = DispatchQueue.global()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
