#if canImport(Glibc)
import Glibc
#endif

/// A point on the monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds since an arbitrary origin.
///
/// Deadlines never go backwards when the wall clock is changed, so timeouts built on them are
/// immune to NTP steps. `Deadline.distantFuture` stands for "no deadline".
public struct Deadline: Hashable, Comparable, Sendable {
    /// Nanoseconds since the clock's origin.
    public let uptimeNanoseconds: UInt64

    public init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// The current time.
    public static func now() -> Deadline {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Deadline(uptimeNanoseconds: UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec))
    }

    /// A deadline that never arrives.
    public static let distantFuture = Deadline(uptimeNanoseconds: .max)

    /// A deadline that has always passed.
    public static let distantPast = Deadline(uptimeNanoseconds: 0)

    /// The deadline `amount` after now.
    public static func after(_ amount: TimeAmount) -> Deadline {
        now() + amount
    }

    /// Whether this deadline is at or before now.
    public var hasPassed: Bool { self <= .now() }

    /// The time left until this deadline, or zero when it has passed.
    public func remaining(from now: Deadline = .now()) -> TimeAmount {
        guard uptimeNanoseconds > now.uptimeNanoseconds else { return .zero }
        let left = uptimeNanoseconds - now.uptimeNanoseconds
        return TimeAmount(nanoseconds: left > UInt64(Int64.max) ? .max : Int64(left))
    }

    public static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }

    /// Adds a duration, saturating at `distantFuture` and `distantPast`.
    public static func + (lhs: Deadline, rhs: TimeAmount) -> Deadline {
        if rhs.nanoseconds >= 0 {
            let (sum, overflow) = lhs.uptimeNanoseconds.addingReportingOverflow(UInt64(rhs.nanoseconds))
            return Deadline(uptimeNanoseconds: overflow ? .max : sum)
        }
        let magnitude = rhs.nanoseconds.magnitude
        return Deadline(uptimeNanoseconds: lhs.uptimeNanoseconds > magnitude ? lhs.uptimeNanoseconds - magnitude : 0)
    }

    /// The signed duration from `rhs` to `lhs`, saturating.
    public static func - (lhs: Deadline, rhs: Deadline) -> TimeAmount {
        if lhs >= rhs {
            let d = lhs.uptimeNanoseconds - rhs.uptimeNanoseconds
            return TimeAmount(nanoseconds: d > UInt64(Int64.max) ? .max : Int64(d))
        }
        let d = rhs.uptimeNanoseconds - lhs.uptimeNanoseconds
        return TimeAmount(nanoseconds: d > UInt64(Int64.max) ? .min : -Int64(d))
    }
}

/// A signed duration in nanoseconds.
public struct TimeAmount: Hashable, Comparable, Sendable {
    public let nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = TimeAmount(nanoseconds: 0)

    public static func nanoseconds(_ n: Int64) -> TimeAmount { TimeAmount(nanoseconds: n) }
    public static func microseconds(_ n: Int64) -> TimeAmount { TimeAmount(nanoseconds: saturating(n.multipliedReportingOverflow(by: 1_000), sign: n)) }
    public static func milliseconds(_ n: Int64) -> TimeAmount { TimeAmount(nanoseconds: saturating(n.multipliedReportingOverflow(by: 1_000_000), sign: n)) }
    public static func seconds(_ n: Int64) -> TimeAmount { TimeAmount(nanoseconds: saturating(n.multipliedReportingOverflow(by: 1_000_000_000), sign: n)) }

    /// Whole milliseconds, rounded up, for APIs such as `epoll_wait` that take a millisecond timeout.
    public var millisecondsRoundedUp: Int64 {
        nanoseconds <= 0 ? 0 : (nanoseconds / 1_000_000) + (nanoseconds % 1_000_000 == 0 ? 0 : 1)
    }

    public static func < (lhs: TimeAmount, rhs: TimeAmount) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}

private func saturating(_ r: (partialValue: Int64, overflow: Bool), sign: Int64) -> Int64 {
    r.overflow ? (sign < 0 ? .min : .max) : r.partialValue
}
