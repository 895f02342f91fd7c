#if canImport(Glibc)
import Glibc
#endif

/// A real httpbin (the `httpbin` Python package) served by gunicorn on a loopback port, for the
/// tests that check an implementation against a server Courier did not write (Digest
/// authentication, `/digest-auth/…`). One gunicorn process with one worker; its `HOME` is a
/// temporary directory, so nothing it writes there (gunicorn's control socket) is shared with
/// another run. Always ``stop()`` it.
public final class HttpbinServer {
    /// The gunicorn executable on PATH; nil when it is not installed (`make deps` installs
    /// `gunicorn` and `httpbin` from PyPI).
    public static let executable: String? = ChildProcess.find("gunicorn", extraDirectories: ["/usr/local/bin"])

    public let port: Int
    /// `http://127.0.0.1:port`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let process: ChildProcess
    private let directory: String

    /// Starts gunicorn serving `httpbin:app` and waits until it accepts connections (connect
    /// attempts, paced by the process's own output, until `deadline`).
    public init(executable: String, deadline: ContinuousClock.Instant = .now + .seconds(30)) throws(ChildProcessError) {
        let scratch = try ServerScratch(name: "httpbin", remove: Self.remove)
        let directory = scratch.directory
        let port = scratch.port
        self.directory = directory
        self.port = port
        process = try ChildProcess.startListening(
            ["env", "HOME=\(directory)", executable, "--bind", "127.0.0.1:\(port)", "--workers", "1", "httpbin:app"],
            name: "gunicorn (httpbin)", port: port, deadline: deadline, poll: .milliseconds(50),
            cleanUp: { Self.remove(directory) })
    }

    deinit { stop() }

    /// What gunicorn printed so far.
    public var output: String { process.outputText }

    /// Stops gunicorn and removes the temporary directory. Safe to call more than once. SIGTERM
    /// first, so the arbiter stops its worker too (a worker whose arbiter was killed outright
    /// would linger until it noticed); the output pipe, shared by both, ends once both are gone.
    /// Whatever is still running after five seconds is killed.
    public func stop() {
        process.terminate(within: .seconds(5))
        Self.remove(directory)
    }

    private static func remove(_ directory: String) {
        // gunicorn may leave a control socket (and its directory) under HOME.
        unlink(directory + "/.gunicorn/gunicorn.ctl")
        rmdir(directory + "/.gunicorn")
        rmdir(directory)
    }
}
