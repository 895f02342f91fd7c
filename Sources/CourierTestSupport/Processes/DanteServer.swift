#if canImport(Glibc)
import Glibc
#endif

/// A real SOCKS5 proxy, Dante's `danted` (Debian package `dante-server`), on a loopback port
/// with a generated configuration: clients from `127.0.0.0/8`, `CONNECT` to any address, and
/// either no authentication or RFC 1929 username/password (``Authentication/username``).
///
/// Dante checks a username/password against the system's users (`getpwnam`/`getspnam` and
/// `crypt`), so that mode needs a system user with a known password: `make deps` creates
/// ``testUser`` (no home, no login shell) with ``testPassword`` when it runs as root (as CI
/// does). ``testUserExists`` says whether it is there.
///
/// danted runs in the foreground (no `-D`) with one mother process and its children, all
/// writing to the one output pipe, under a small Python parent (``reaper``) that reaps them: the
/// mother exits before its children, and where PID 1 reaps nothing (a container's init) they
/// would be left as zombies. ``stop()`` sends SIGTERM (passed on to the mother), waits for the
/// pipe to end (every process gone), and removes the temporary directory. Always ``stop()`` it.
public final class DanteServer {
    /// How clients authenticate (`socksmethod`).
    public enum Authentication: Sendable {
        /// `socksmethod: none`.
        case none
        /// `socksmethod: username`: RFC 1929 against the system's users.
        case username
    }

    /// The danted executable: on PATH, or in /usr/sbin (outside a non-root PATH on Debian).
    /// nil when dante-server is not installed (`make deps` installs it).
    public static let executable: String? = ChildProcess.find("danted", extraDirectories: ["/usr/sbin", "/usr/local/sbin"])

    /// The system user `make deps` creates for the username tests, and its password.
    public static let testUser = "courier-socks"
    public static let testPassword = "courier-socks-test"

    /// Whether ``testUser`` exists on this machine.
    public static var testUserExists: Bool { getpwnam(testUser) != nil }

    public let port: Int
    private let process: ChildProcess
    private let directory: String
    private static let files = ["danted.conf", "danted.pid"]

    /// Starts danted and waits until it accepts connections (connect attempts, paced by the
    /// process's own output, until `deadline`).
    public init(
        executable: String, authentication: Authentication = .none, deadline: ContinuousClock.Instant = .now + .seconds(20)
    ) throws(ChildProcessError) {
        let scratch = try ServerScratch(name: "dante", remove: Self.remove)
        let directory = scratch.directory
        let port = scratch.port
        self.directory = directory
        self.port = port
        let configuration = Self.configuration(port: port, authentication: authentication)
        guard OCSPResponder.write(directory + "/danted.conf", Array(configuration.utf8)) else {
            Self.remove(directory)
            throw ChildProcessError("cannot write the danted configuration in \(directory)")
        }
        process = try ChildProcess.startListening(
            ["python3", "-c", Self.reaper, executable, "-f", directory + "/danted.conf", "-p", directory + "/danted.pid", "-N", "1"],
            name: "danted", port: port, deadline: deadline, poll: .milliseconds(20), cleanUp: { Self.remove(directory) })
    }

    deinit { stop() }

    /// What danted printed so far (`logoutput: stderr`).
    public var output: String { process.outputText }

    /// Stops danted (SIGTERM: the mother stops its children) and removes its directory. Safe to
    /// call more than once. Whatever still runs after five seconds is killed.
    public func stop() {
        process.terminate(within: .seconds(5))
        Self.remove(directory)
    }

    /// Runs `argv[1…]` as a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, so orphaned
    /// descendants become its children), passes SIGTERM on to it, and reaps every descendant
    /// until none is left.
    static let reaper = """
        import ctypes, os, signal, sys
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
        child = os.fork()
        if child == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        def forward(signum, frame):
            try:
                os.kill(child, signal.SIGTERM)
            except ProcessLookupError:
                pass
        signal.signal(signal.SIGTERM, forward)
        while True:
            try:
                os.wait()
            except ChildProcessError:
                break
        """

    private static func remove(_ directory: String) {
        for name in files { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    private static func configuration(port: Int, authentication: Authentication) -> String {
        // `user.privileged: root` is what reads the shadow file for `username`; danted drops to
        // `nobody` otherwise. `0/0` is any address of either family.
        """
        logoutput: stderr
        internal: 127.0.0.1 port = \(port)
        external: lo
        socksmethod: \(authentication == .username ? "username" : "none")
        clientmethod: none
        user.privileged: root
        user.unprivileged: nobody
        client pass {
            from: 127.0.0.0/8 to: 0/0
        }
        socks pass {
            from: 127.0.0.0/8 to: 0/0
            command: connect
        }

        """
    }
}
