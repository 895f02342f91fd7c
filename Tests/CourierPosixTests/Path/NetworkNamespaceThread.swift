#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CCourierLinux
import Dispatch
import Synchronization

/// A dedicated pthread moved into a fresh network namespace with `unshare(CLONE_NEWNET)`.
/// Network namespaces belong to threads on Linux, so only this thread (and the children it
/// spawns, and the sockets it creates) live there; the rest of the test process does not move.
/// ``run(_:)`` executes a job on it and waits for the result; ``stop()`` ends the thread.
final class NetworkNamespaceThread: Sendable {
    private let jobs = Mutex<[(@Sendable () -> Void)?]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)
    private let unshareResult = Mutex<Int32>(-1)
    private let finished = DispatchSemaphore(value: 0)

    struct Unavailable: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { "unshare(CLONE_NEWNET) failed: errno \(errno)" }
    }

    /// Whether this process can make namespaces and has the `ip` tool: root (checked with
    /// `geteuid()`), an `unshare(CLONE_NEWNET)` that succeeds on a throwaway thread, and `ip`.
    static let isAvailable: Bool = {
        guard geteuid() == 0, ipTool != nil, let probe = try? NetworkNamespaceThread() else { return false }
        probe.stop()
        return true
    }()

    /// The `ip` binary (iproute2), if installed.
    static let ipTool: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { access($0, X_OK) == 0 }

    init() throws {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            // Safe: `raw` is the retained object passed below; released exactly once here.
            let owner = Unmanaged<NetworkNamespaceThread>.fromOpaque(raw!).takeRetainedValue()
            owner.main()
            return nil
        }, box.toOpaque())
        guard created == 0 else {
            box.release()
            throw Unavailable(errno: created)
        }
        pthread_detach(thread)
        started.wait()
        let code = unshareResult.withLock { $0 }
        if code != 0 {
            finished.wait()
            throw Unavailable(errno: code)
        }
    }

    private func main() {
        let result = unshare(Int32(CLONE_NEWNET)) == 0 ? 0 : errno
        unshareResult.withLock { $0 = result }
        started.signal()
        defer { finished.signal() }
        guard result == 0 else { return }
        while true {
            wake.wait()
            guard let job = jobs.withLock({ $0.removeFirst() }) else { return }
            job()
        }
    }

    /// Runs `body` on the namespace thread and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.withLock {
            $0.append {
                let value = Result { try body() }
                result.withLock { $0 = value }
                done.signal()
            }
        }
        wake.signal()
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Ends the thread (its namespace goes once nothing else refers to it) and waits for it.
    func stop() {
        jobs.withLock { $0.append(nil) }
        wake.signal()
        finished.wait()
    }

    /// Runs a program with posix_spawn from the calling thread (so in its network namespace)
    /// and returns its exit status and combined output.
    static func spawn(_ arguments: [String]) -> (status: Int32, output: String) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return (-1, "pipe failed") }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { return (-1, "posix_spawn failed: \(spawned)") }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(pipeEnds[0], &chunk, chunk.count)
            if n > 0 { output += chunk[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, spelled out (macros Swift does not import).
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
        return (exitStatus, String(decoding: output, as: UTF8.self))
    }
}
