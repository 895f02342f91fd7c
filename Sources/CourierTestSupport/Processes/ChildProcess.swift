#if canImport(Glibc)
import Glibc
#endif

/// A program a test starts (an OCSP responder, nginx), with its stdout and stderr collected
/// through one pipe. Always ``stop()`` it (in a `defer`); `deinit` stops it too, as a backstop.
///
/// Used from one thread at a time.
public final class ChildProcess {
    /// The process id; 0 once stopped.
    public private(set) var pid: pid_t
    /// The read end of the output pipe (non-blocking, close-on-exec); -1 once stopped.
    private var output: Int32
    /// Everything read from the pipe so far.
    public private(set) var collected: [UInt8] = []

    /// Starts `arguments[0]` (looked up on PATH when it has no slash) with the other arguments.
    public init(_ arguments: [String]) throws(ChildProcessError) {
        precondition(!arguments.isEmpty, "a program is needed")
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ChildProcessError("pipe: errno \(errno)") }
        // Close-on-exec, so programs other tests start do not inherit the pipe (the child gets
        // its copies through dup2, which clears the flag).
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        // The child starts with no blocked signals and the default action for the ones a
        // test process may block or ignore (an event loop's threads block some): a program that
        // is stopped with SIGTERM (gunicorn) must be able to receive it. posix_spawn would
        // otherwise hand on the spawning thread's mask and every ignored signal.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw ChildProcessError("cannot start \(arguments[0]): posix_spawnp error \(spawned)")
        }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        self.pid = pid
        self.output = ends[0]
    }

    deinit { stop() }

    /// The output so far as text.
    public var outputText: String { String(decoding: collected, as: UTF8.self) }

    /// Reads output until some line satisfies `match` (which returns the value wanted from it),
    /// the process ends its output, or `deadline` passes. Synchronises on the output itself
    /// (`poll` on the pipe), never on a sleep.
    public func waitForLine<T>(until deadline: ContinuousClock.Instant, _ match: (Substring) -> T?) throws(ChildProcessError) -> T {
        var scanned = 0
        while true {
            // Look at every complete line not looked at yet.
            while let newline = collected[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: collected[scanned..<newline], as: UTF8.self)
                scanned = newline + 1
                if let value = match(Substring(line)) { return value }
            }
            let now = ContinuousClock.now
            guard now < deadline else { throw ChildProcessError("timed out waiting for output; got: \(outputText)") }
            guard output >= 0 else { throw ChildProcessError("the process was stopped") }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Self.milliseconds(now.duration(to: deadline)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            if !drain() { throw ChildProcessError("the process ended its output first; got: \(outputText)") }
        }
    }

    /// Waits up to `timeout` for output or its end, collecting what arrives. Returns true once the
    /// output has ended (the process exited or closed it).
    public func outputEnded(within timeout: Duration) -> Bool {
        guard output >= 0 else { return true }
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Self.milliseconds(timeout)) > 0 else { return false }
        return !drain()
    }

    /// Reads what the pipe holds. Returns false at end of file.
    @discardableResult
    private func drain() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(output, &chunk, chunk.count)
            if n > 0 {
                collected += chunk[0..<n]
                continue
            }
            if n < 0 && errno == EINTR { continue }
            return n != 0
        }
    }

    /// Waits for the process to exit by itself, up to `deadline`, collecting its output; stops
    /// it if it has not. Returns the exit status (nil if it had to be killed or died by a signal).
    public func waitForExit(until deadline: ContinuousClock.Instant) -> Int32? {
        // The output ends when the process exits; a process that outlives the deadline is killed.
        var endOfOutput = false
        while !endOfOutput && output >= 0 {
            let now = ContinuousClock.now
            guard now < deadline else { break }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Self.milliseconds(now.duration(to: deadline)))
            if ready > 0 { endOfOutput = !drain() }
        }
        guard endOfOutput, pid != 0 else {
            stop()
            return nil
        }
        // The pipe closed as the process exited; reaping it cannot block for long.
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = 0
        stop()
        // WIFEXITED / WEXITSTATUS, spelled out (macros Swift does not import).
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : nil
    }

    /// A poll timeout covering `duration`, rounded up.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let parts = duration.components
        return Int32(clamping: parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Kills the process (SIGKILL: the programs run here keep no state worth a clean exit),
    /// reaps it, and closes the pipe. Safe to call more than once.
    public func stop() {
        if pid != 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            pid = 0
        }
        if output >= 0 {
            drain()
            close(output)
            output = -1
        }
    }

    /// The full path of `program` on PATH, or in `extraDirectories` (e.g. `/usr/sbin`, which a
    /// non-root PATH on Debian lacks); nil when it is in none of them.
    public static func find(_ program: String, extraDirectories: [String] = []) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + extraDirectories
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + program
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// Why a child process could not be started or did not do what was expected.
public struct ChildProcessError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
