#if canImport(Glibc)
import Glibc
#endif

/// curl's prompt for `-u user` without a password: `Enter host password for user 'user':` on
/// standard error (even with `-s`, as curl's), and the answer read from the terminal with echo
/// off, or from standard input when the process has no terminal (a pipe, a script, a test).
enum PasswordPrompt {
    /// `-u`'s value with the password asked for when it has none (no colon); as given otherwise
    /// (`user:` is an empty password on purpose, and is not asked).
    static func completing(_ user: String) -> String {
        guard !user.contains(":") else { return user }
        return user + ":" + ask(for: user)
    }

    /// Asks for `user`'s password and returns the line typed (without its newline).
    static func ask(for user: String) -> String {
        let terminal = open("/dev/tty", O_RDONLY | O_CLOEXEC)
        let input = terminal >= 0 ? terminal : STDIN_FILENO
        defer { if terminal >= 0 { close(terminal) } }
        var saved = termios()
        var echoOff = false
        var handlers: [(Int32, __sighandler_t?)] = []
        if isatty(input) == 1, tcgetattr(input, &saved) == 0 {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            // A signal that ends the process at the prompt (Ctrl-C, a hang-up) gives the
            // terminal its echo back first.
            quietTerminal = QuietTerminal(descriptor: input, saved: saved)
            handlers = Self.endingSignals.map { ($0, signal($0, restoreEchoAndDie)) }
            echoOff = tcsetattr(input, TCSANOW, &quiet) == 0
        }
        StandardError.write("Enter host password for user '\(user)':")
        let line = readLine(from: input)
        if echoOff { _ = tcsetattr(input, TCSANOW, &saved) }
        for (number, handler) in handlers { signal(number, handler) }
        quietTerminal.descriptor = -1
        // The line ends on stderr whatever the input was (the typed newline was not echoed), as
        // curl's does.
        StandardError.write("\n")
        return line
    }

    private static let endingSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// The bytes up to the first newline (as curl, a CR before it is kept), or all there is at the end
    /// of the input. Read a byte at a time: standard input may carry a request body after the
    /// password line (`-d @-`), and none of it may be consumed here.
    private static func readLine(from descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 4096 {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The terminal whose echo the prompt turned off, and its settings before: what
/// ``restoreEchoAndDie(_:)`` puts back. Written only before the handlers are installed and after
/// they are removed.
private struct QuietTerminal {
    var descriptor: Int32 = -1
    var saved = termios()
}

nonisolated(unsafe) private var quietTerminal = QuietTerminal()

/// A signal handler: restores the terminal's settings (`tcsetattr` is async-signal-safe), then
/// lets the signal end the process as it would have.
private func restoreEchoAndDie(_ number: Int32) {
    if quietTerminal.descriptor >= 0 {
        var saved = quietTerminal.saved
        _ = tcsetattr(quietTerminal.descriptor, TCSANOW, &saved)
    }
    signal(number, SIG_DFL)
    raise(number)
}
