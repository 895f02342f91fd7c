#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, and the `errno` it left.
public struct PosixError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` value captured right after the call failed.
    public let code: Int32
    /// The name of the failed call, e.g. `"connect"`.
    public let call: String

    public init(code: Int32, call: String) {
        self.code = code
        self.call = call
    }

    /// `strerror`'s text for ``code``.
    public var message: String {
        String(cString: strerror(code))
    }

    public var description: String { "\(call): \(message) (errno \(code))" }
}

/// The outcome of a non-blocking call: it did something, or it would have blocked.
///
/// `EAGAIN`/`EWOULDBLOCK` are not errors on a non-blocking descriptor; they mean "wait for
/// readiness". Returning them as a value keeps error paths for real failures.
public enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

extension IOResult: Sendable where Value: Sendable {}
extension IOResult: Equatable where Value: Equatable {}
