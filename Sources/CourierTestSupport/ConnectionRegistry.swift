#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import Synchronization

/// The open connections of a server or proxy, so another thread can wake or close them.
///
/// Only a connection's own thread closes its fd: it first calls ``remove(_:)`` (under the lock),
/// then closes. Other threads only call `shutdown(2)` on fds still registered, under the same
/// lock, so they never touch a closed (and possibly reused) descriptor number.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        var fds: [Int32]
        /// Waiting for the next request with nothing buffered.
        var idle = false
        /// Another thread asked this connection to close at its next chance.
        var closeRequested = false
        let closed: TestEvent
    }

    private let entries = Mutex<[Int: Entry]>([:])

    /// Registers connection `id` with its fds (a proxied connection adds its upstream later).
    func add(_ id: Int, fds: [Int32]) {
        entries.withLock { $0[id] = Entry(fds: fds, closed: TestEvent()) }
    }

    /// Adds another fd (a proxy's upstream socket) to connection `id`.
    func addFD(_ id: Int, _ fd: Int32) -> Bool {
        entries.withLock { entries in
            guard entries[id] != nil else { return false }
            entries[id]!.fds.append(fd)
            return true
        }
    }

    /// Removes `fd` from connection `id` before its owner closes it.
    func removeFD(_ id: Int, _ fd: Int32) {
        entries.withLock { $0[id]?.fds.removeAll { $0 == fd } }
    }

    /// Unregisters `id`; its owner closes the fds afterwards and then signals the returned
    /// event, which ``requestCloseOfIdle()`` callers may be waiting on.
    func remove(_ id: Int) -> TestEvent? {
        entries.withLock { $0.removeValue(forKey: id)?.closed }
    }

    /// Marks `id` idle (waiting for a request, or its final response already sent) or busy.
    /// Returns false when the connection has been asked to close.
    func setIdle(_ id: Int, _ idle: Bool) -> Bool {
        entries.withLock { entries in
            guard let entry = entries[id] else { return false }
            entries[id]!.idle = idle
            return !entry.closeRequested
        }
    }

    /// Whether another thread asked connection `id` to close.
    func closeRequested(_ id: Int) -> Bool {
        entries.withLock { $0[id]?.closeRequested ?? true }
    }

    /// Asks every idle connection to close and wakes its thread (`SHUT_RD` ends its blocked read;
    /// the thread then closes normally). Returns the events that fire when each has closed.
    func requestCloseOfIdle() -> [TestEvent] {
        entries.withLock { entries in
            var events: [TestEvent] = []
            for (id, entry) in entries where entry.idle && !entry.closeRequested {
                entries[id]!.closeRequested = true
                for fd in entry.fds { _ = Glibc.shutdown(fd, Int32(SHUT_RD)) }
                events.append(entry.closed)
            }
            return events
        }
    }

    /// Wakes every connection for server shutdown: reads return EOF, writes fail.
    func shutdownAll() {
        entries.withLock { entries in
            for (id, entry) in entries {
                entries[id]!.closeRequested = true
                for fd in entry.fds { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
            }
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
