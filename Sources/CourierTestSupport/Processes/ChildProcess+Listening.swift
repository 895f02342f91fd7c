#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// Waits until something accepts TCP connections on 127.0.0.1:`port` (the server this
    /// process starts), checking every `poll` whether the process ended instead. False when
    /// `deadline` passed or the process's output ended first (it exited).
    func waitUntilListening(port: Int, deadline: ContinuousClock.Instant, poll: Duration) -> Bool {
        while true {
            if let fd = try? Socket.connect(host: "127.0.0.1", port: port) {
                close(fd)
                return true
            }
            if ContinuousClock.now >= deadline || outputEnded(within: poll) { return false }
        }
    }

    /// Starts `arguments` (a server that owns a scratch directory) and waits until it listens on
    /// `port`. When it cannot start or does not listen by `deadline`, it is terminated, `cleanUp`
    /// runs (removing the directory) and the error names `name` with what the process printed.
    static func startListening(
        _ arguments: [String], name: String, port: Int, deadline: ContinuousClock.Instant, poll: Duration,
        cleanUp: () -> Void
    ) throws(ChildProcessError) -> ChildProcess {
        let process: ChildProcess
        do {
            process = try ChildProcess(arguments)
        } catch {
            cleanUp()
            throw error
        }
        guard process.waitUntilListening(port: port, deadline: deadline, poll: poll) else {
            process.terminate(within: .seconds(5))
            cleanUp()
            throw ChildProcessError("\(name) did not start listening on port \(port): \(process.outputText)")
        }
        return process
    }

    /// SIGTERM first (so a server's master stops its workers, which share the output pipe),
    /// then waits up to `grace` for it to exit, then ``stop()`` kills whatever is left and reaps it.
    func terminate(within grace: Duration) {
        if pid != 0 {
            kill(pid, SIGTERM)
            _ = waitForExit(until: .now + grace)
        }
        stop()
    }
}
