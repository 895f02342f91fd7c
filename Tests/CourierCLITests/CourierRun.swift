#if canImport(Glibc)
import Glibc
#endif

/// One run of the built `courier` executable: its exit status and what it wrote to stdout and
/// stderr, kept apart (curl's tests read them apart too: `-o -`, `-w '%{stderr}'`, `-v`).
struct CourierRun: Sendable {
    /// The exit status, or 128 + the signal that ended it.
    let status: Int32
    let stdout: [UInt8]
    let stderr: [UInt8]

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }

    /// The `courier` executable this test bundle was built with: it sits next to the bundle in
    /// the build products directory (the test target depends on it, so SwiftPM builds it).
    /// `COURIER_EXECUTABLE` names another one instead: `make test-cli-release` runs these tests
    /// against the release build, which is compiled with other code generation flags (Makefile,
    /// `COURIER_CODEGEN`).
    static let executable: String = {
        if let path = getenv("COURIER_EXECUTABLE") { return String(cString: path) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        precondition(length > 0, "cannot read /proc/self/exe")
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // …/debug/CourierPackageTests.xctest → …/debug/courier
        var directory = Substring(path)
        if let slash = directory.lastIndex(of: "/") { directory = directory[..<slash] }
        return directory + "/courier"
    }()

    /// Runs `courier arguments…` with `stdin` as its standard input, in `directory` when given,
    /// with `environment` added to (or, for a nil value, removed from) this process's, and waits
    /// at most `timeout` for it to exit (`program`, when given, runs instead of courier); a run that outlives it is killed and fails the test
    /// with `CourierRunError.timedOut`.
    static func run(
        _ arguments: [String],
        stdin input: [UInt8] = [],
        directory: String? = nil,
        environment: [String: String?] = [:],
        timeout: Duration = .seconds(60),
        program: String? = nil
    ) throws -> CourierRun {
        // Another program (curl, for the golden tests) runs the same way when named.
        let executable = program ?? Self.executable
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0, pipe(&inPipe) == 0 else {
            throw CourierRunError.spawn(errno)
        }
        // Close-on-exec, so children other tests start do not inherit these (the child gets its
        // copies through dup2, which clears the flag).
        for descriptor in outPipe + errPipe + inPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // The child starts with no blocked signals and default dispositions: a test process's
        // event-loop threads block some, and posix_spawn would hand that mask on.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // In a session of its own, with no controlling terminal: a run never reads the terminal
        // of whoever started the tests (`-u user` asks for the password on /dev/tty when there is
        // one, and reads standard input, which the test gives, when there is not).
        // 0x80 is glibc's POSIX_SPAWN_SETSID (spawn.h, not imported).
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | 0x80))

        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") { variables[String(pair[..<equals])] = String(pair[pair.index(after: equals)...]) }
            entry += 1
        }
        for (name, value) in environment { variables[name] = value }
        #if COURIER_SANITIZED
        // Under AddressSanitizer the executable is instrumented too, and LeakSanitizer's check at
        // its exit would count what is still in flight on a queue when `exit` runs (the session's
        // last event, after the command has waited for its invalidation): not a leak of a running
        // program. Leaks of the library are this test process's own check, at its end.
        variables["ASAN_OPTIONS"] = (variables["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        #endif
        // A working directory is set by a shell that changes to it and execs courier
        // (posix_spawn_file_actions_addchdir_np is not imported).
        let program = directory == nil ? executable : "/bin/sh"
        let command = directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, executable] } ?? [executable]
        let argv: [UnsafeMutablePointer<CChar>?] = (command + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw CourierRunError.spawn(spawned)
        }

        // stdin is written, and both outputs drained, from one poll loop, so a child that
        // writes a lot before it reads (or the reverse) never deadlocks against the test.
        let deadline = ContinuousClock.now + timeout
        var pending = input[...]
        var inFD: Int32 = inPipe[1]
        if pending.isEmpty { close(inFD); inFD = -1 } else { _ = fcntl(inFD, F_SETFL, O_NONBLOCK) }
        var fds = [pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0),
                   pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0),
                   pollfd(fd: inFD, events: Int16(POLLOUT), revents: 0)]
        var collected: [[UInt8]] = [[], []]
        var chunk = [UInt8](repeating: 0, count: 65536)
        var timedOut = false
        while fds[0].fd >= 0 || fds[1].fd >= 0 {
            let left = deadline - ContinuousClock.now
            if left <= .zero { timedOut = true; break }
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 1000))
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 { if errno == EINTR { continue }; break }
            for index in 0..<2 where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &chunk, chunk.count)
                if count > 0 {
                    collected[index].append(contentsOf: chunk[..<count])
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(fds[index].fd)
                    fds[index].fd = -1
                }
            }
            if fds[2].fd >= 0 && fds[2].revents != 0 {
                let written = pending.withUnsafeBytes { write(fds[2].fd, $0.baseAddress, $0.count) }
                if written > 0 { pending = pending.dropFirst(written) }
                if written < 0 && errno != EAGAIN && errno != EINTR { pending = [] }
                if pending.isEmpty { close(fds[2].fd); fds[2].fd = -1 }
            }
        }
        for descriptor in fds where descriptor.fd >= 0 { close(descriptor.fd) }
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if timedOut { throw CourierRunError.timedOut(arguments, String(decoding: collected[1], as: UTF8.self)) }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7f
        let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return CourierRun(status: code, stdout: collected[0], stderr: collected[1])
    }
}

enum CourierRunError: Error, CustomStringConvertible {
    case spawn(Int32)
    case timedOut([String], String)

    var description: String {
        switch self {
        case .spawn(let code): "cannot start courier: error \(code)"
        case .timedOut(let arguments, let stderr): "courier \(arguments.joined(separator: " ")) did not exit in time; stderr: \(stderr)"
        }
    }
}
