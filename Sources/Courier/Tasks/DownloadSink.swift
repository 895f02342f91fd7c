import CourierCore
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Writes a download's body to its file on a serial queue of its own, so that the event loop
/// never waits for the disk. Bytes handed over but not yet written are bounded: past
/// `limit`, ``write(_:)`` asks the caller to stop reading the socket, and `onDrain` says when
/// to start again (half the limit written). Memory stays at most `limit` plus one read.
final class DownloadSink: Sendable {
    private struct State {
        var descriptor: Int32
        var pending = 0
        var waitingForDrain = false
        var failure: CourierError?
        var closed = false
    }

    let path: String
    private let limit: Int
    private let queue = DispatchQueue(label: "courier.download-sink")
    private let state: Mutex<State>
    private let onDrain: @Sendable () -> Void
    private let onFailure: @Sendable (CourierError) -> Void

    /// Opens `path` for writing: from scratch, or (with `keepingFirst`) after its first bytes,
    /// cutting off anything past them.
    init(
        path: String, keepingFirst offset: Int64 = 0, limit: Int, onDrain: @escaping @Sendable () -> Void,
        onFailure: @escaping @Sendable (CourierError) -> Void
    ) throws(CourierError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (offset == 0 ? O_TRUNC : 0)
        let descriptor = open(path, flags, 0o600)
        guard descriptor >= 0 else {
            throw CourierError(.fileWriteFailed, underlying: FileError(operation: "open", path: path, errno: errno))
        }
        if offset > 0 {
            guard ftruncate(descriptor, off_t(offset)) == 0, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                let code = errno
                close(descriptor)
                throw CourierError(.fileWriteFailed, underlying: FileError(operation: "seek", path: path, errno: code))
            }
        }
        self.path = path
        self.limit = max(1, limit)
        self.state = Mutex(State(descriptor: descriptor))
        self.onDrain = onDrain
        self.onFailure = onFailure
    }

    /// Queues `part` for writing. Returns true when the caller should pause reading.
    func write(_ part: ByteBuffer) -> Bool {
        let count = part.readableBytes
        let pause = state.withLock { state -> Bool in
            state.pending += count
            if state.pending > limit { state.waitingForDrain = true }
            return state.waitingForDrain
        }
        queue.async { [self] in
            let failure = writeAll(part)
            let (drained, failed) = state.withLock { state -> (Bool, CourierError?) in
                state.pending -= count
                var failed: CourierError?
                if let failure, state.failure == nil {
                    state.failure = failure
                    failed = failure
                }
                guard state.waitingForDrain, state.pending <= limit / 2 else { return (false, failed) }
                state.waitingForDrain = false
                return (true, failed)
            }
            if let failed { onFailure(failed) }
            if drained { onDrain() }
        }
        return pause
    }

    /// Whether a ``write(_:)`` asked to pause and `onDrain` has not been called yet (a caller that
    /// records the pause after `write` returned checks this, in case the drain came first).
    var isWaitingForDrain: Bool { state.withLock { $0.waitingForDrain } }

    /// Calls `done` once every queued byte is written (or failed) and the file is closed.
    func finish(_ done: @escaping @Sendable (CourierError?) -> Void) {
        queue.async { [self] in
            let failure = state.withLock { state -> CourierError? in
                closeLocked(&state)
                return state.failure
            }
            done(failure)
        }
    }

    /// Closes the file after queued writes; removes it unless `keepFile`.
    func abandon(keepFile: Bool, then done: (@Sendable () -> Void)? = nil) {
        queue.async { [self] in
            state.withLock { closeLocked(&$0) }
            if !keepFile { unlink(path) }
            done?()
        }
    }

    private func closeLocked(_ state: inout State) {
        guard !state.closed else { return }
        state.closed = true
        close(state.descriptor)
    }

    /// Runs on `queue`.
    private func writeAll(_ part: ByteBuffer) -> CourierError? {
        let (descriptor, skip) = state.withLock { ($0.descriptor, $0.failure != nil || $0.closed) }
        guard !skip else { return nil }
        return part.withUnsafeReadableBytes { bytes -> CourierError? in
            var offset = 0
            while offset < bytes.count {
                // Safe: `bytes` is valid for the closure's duration and offset < count.
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return CourierError(.fileWriteFailed, underlying: FileError(operation: "write", path: path, errno: errno))
                }
                offset += written
            }
            return nil
        }
    }
}

/// A failed file system call, with its errno.
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public var description: String { "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))" }
}
