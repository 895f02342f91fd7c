#if canImport(Glibc)
import Glibc
#endif

/// The one place system calls are made from: retries `EINTR`, turns `EAGAIN` into
/// ``IOResult/wouldBlock`` and captures `errno` into a ``PosixError`` at once, before anything
/// else can overwrite it.
public enum Syscall {
    /// Runs `body` (a call returning -1 and setting `errno` on failure) until it is not
    /// interrupted. `EAGAIN`/`EWOULDBLOCK` become `.wouldBlock`.
    @inlinable
    public static func nonBlocking<T: BinaryInteger>(
        _ call: @autoclosure () -> String,
        _ body: @autoclosure () -> T
    ) throws(PosixError) -> IOResult<T> {
        while true {
            let result = body()
            if result >= 0 { return .processed(result) }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw PosixError(code: code, call: call())
            }
        }
    }

    /// Runs `body` until it is not interrupted; any other failure throws, `EAGAIN` included.
    @inlinable
    @discardableResult
    public static func blocking<T: BinaryInteger>(
        _ call: @autoclosure () -> String,
        _ body: @autoclosure () -> T
    ) throws(PosixError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw PosixError(code: code, call: call())
        }
    }

    /// Closes a descriptor. `EINTR` from close is not retried: on Linux the descriptor is
    /// released even then, and retrying could close a descriptor another thread just got.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}

/// Process-wide setup the transport needs once.
public enum ProcessSetup {
    private static let once: Void = {
        // `writev` and OpenSSL's fd BIO cannot pass MSG_NOSIGNAL; a peer reset must be an
        // EPIPE error for one connection, not a signal that kills the process.
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// Ignores SIGPIPE (idempotent, thread-safe through Swift's lazy global initialisation).
    public static func ignoreSIGPIPE() {
        _ = once
    }
}
