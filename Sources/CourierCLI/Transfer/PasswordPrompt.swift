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
        if isatty(input) == 1, tcgetattr(input, &saved) == 0 {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            echoOff = tcsetattr(input, TCSANOW, &quiet) == 0
        }
        StandardError.write("Enter host password for user '\(user)':")
        let line = readLine(from: input)
        if echoOff { _ = tcsetattr(input, TCSANOW, &saved) }
        // The line ends on stderr whatever the input was (the typed newline was not echoed), as
        // curl's does.
        StandardError.write("\n")
        return line
    }

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
