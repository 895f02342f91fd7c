import CourierCore
import Synchronization

extension FileDescriptors {
    /// One lock for every test that opens sockets or counts descriptors. The count in
    /// /proc/self/fd is process-wide and Swift Testing runs tests in parallel, so a leak check
    /// is only meaningful while no other socket-opening test runs.
    private static let exclusive = Mutex<Void>(())

    /// Runs `body` while no other `exclusively` block runs.
    public static func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        try exclusive.withLock { _ in try body() }
    }
}
