import CourierCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC read directly, as the reference the deadlines must agree with.
private func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Whole milliseconds rounded up, computed in 128 bits as an independent reference.
private func referenceMillisecondsRoundedUp(_ ns: Int64) -> Int64 {
    guard ns > 0 else { return 0 }
    return Int64((Int128(ns) + 999_999) / 1_000_000)
}

/// `n * factor` clamped to Int64, computed in 128 bits.
private func referenceScaled(_ n: Int64, _ factor: Int64) -> Int64 {
    let wide = Int128(n) * Int128(factor)
    if wide > Int128(Int64.max) { return .max }
    if wide < Int128(Int64.min) { return .min }
    return Int64(wide)
}

@Suite("Deadline and TimeAmount")
struct DeadlineTests {
    // MARK: - The clock

    @Test func nowReadsTheMonotonicClock() {
        for _ in 0..<1000 {
            let before = monotonicNanoseconds()
            let now = Deadline.now().uptimeNanoseconds
            let after = monotonicNanoseconds()
            #expect(before <= now && now <= after, "\(before) <= \(now) <= \(after)")
        }
    }

    @Test func nowNeverGoesBackwards() {
        var previous = Deadline.now()
        for _ in 0..<100_000 {
            let current = Deadline.now()
            #expect(current >= previous)
            if current < previous { break }
            previous = current
        }
    }

    @Test func nowAdvances() {
        // Spin until the clock ticks: synchronises on the event, with no sleep.
        let start = Deadline.now()
        var later = Deadline.now()
        var spins = 0
        while later == start && spins < 100_000_000 {
            later = Deadline.now()
            spins += 1
        }
        #expect(later > start)
    }

    @Test func afterIsNowPlusTheAmount() {
        let amount = TimeAmount.milliseconds(250)
        let before = monotonicNanoseconds()
        let deadline = Deadline.after(amount)
        let after = monotonicNanoseconds()
        #expect(deadline.uptimeNanoseconds >= before + 250_000_000)
        #expect(deadline.uptimeNanoseconds <= after + 250_000_000)
    }

    @Test func hasPassed() {
        #expect(Deadline.distantPast.hasPassed)
        #expect(!Deadline.distantFuture.hasPassed)
        #expect((Deadline.now() + .seconds(-1)).hasPassed)
        #expect(!Deadline.after(.seconds(3600)).hasPassed)
        // A deadline of "now" has passed by the time it is asked about (at or before now).
        #expect(Deadline.now().hasPassed)
    }

    @Test func distantValues() {
        #expect(Deadline.distantFuture.uptimeNanoseconds == UInt64.max)
        #expect(Deadline.distantPast.uptimeNanoseconds == 0)
        #expect(Deadline.distantPast < Deadline.now())
        #expect(Deadline.now() < Deadline.distantFuture)
    }

    // MARK: - Arithmetic

    static let additions: [(UInt64, Int64, UInt64)] = [
        (1_000, 500, 1_500),
        (1_000, -500, 500),
        (1_000, -1_000, 0),
        (1_000, 0, 1_000),
        (0, Int64.max, UInt64(Int64.max)),
        (UInt64.max - 10, 10, UInt64.max),
    ]

    @Test(arguments: additions)
    func additionWithoutSaturation(_ start: UInt64, _ delta: Int64, _ expected: UInt64) {
        #expect((Deadline(uptimeNanoseconds: start) + .nanoseconds(delta)).uptimeNanoseconds == expected)
    }

    @Test func additionSaturatesAtDistantFuture() {
        #expect(Deadline.distantFuture + .nanoseconds(1) == .distantFuture)
        #expect(Deadline.distantFuture + .seconds(Int64.max) == .distantFuture)
        #expect(Deadline(uptimeNanoseconds: UInt64.max - 10) + .nanoseconds(11) == .distantFuture)
        #expect(Deadline(uptimeNanoseconds: UInt64.max / 2 + 2) + .nanoseconds(.max) == .distantFuture)
        #expect(Deadline.now() + TimeAmount(nanoseconds: .max) + TimeAmount(nanoseconds: .max) == .distantFuture)
    }

    @Test func additionSaturatesAtDistantPast() {
        #expect(Deadline.distantPast + .nanoseconds(-1) == .distantPast)
        #expect(Deadline(uptimeNanoseconds: 10) + .nanoseconds(-11) == .distantPast)
        #expect(Deadline(uptimeNanoseconds: 10) + .nanoseconds(.min) == .distantPast)
        #expect(Deadline.now() + .seconds(Int64.min) == .distantPast)
    }

    @Test func addingTheMostNegativeAmount() {
        // Int64.min has no positive counterpart in Int64: its magnitude must still be subtracted.
        let d = Deadline.distantFuture + .nanoseconds(.min)
        #expect(d.uptimeNanoseconds == UInt64.max - (UInt64(Int64.max) + 1))
    }

    static let subtractions: [(UInt64, UInt64, Int64)] = [
        (10, 3, 7),
        (3, 10, -7),
        (5, 5, 0),
        (UInt64(Int64.max), 0, Int64.max),
        (0, UInt64(Int64.max), -Int64.max),
        (0, UInt64(Int64.max) + 1, Int64.min),  // exactly representable: -2^63
    ]

    @Test(arguments: subtractions)
    func subtractionWithoutSaturation(_ a: UInt64, _ b: UInt64, _ expected: Int64) {
        #expect((Deadline(uptimeNanoseconds: a) - Deadline(uptimeNanoseconds: b)).nanoseconds == expected)
    }

    @Test func subtractionSaturates() {
        #expect((Deadline.distantFuture - Deadline.distantPast).nanoseconds == .max)
        #expect((Deadline.distantPast - Deadline.distantFuture).nanoseconds == .min)
        #expect((Deadline(uptimeNanoseconds: UInt64(Int64.max) + 1) - .distantPast).nanoseconds == .max)
        #expect((Deadline.distantPast - Deadline(uptimeNanoseconds: UInt64(Int64.max) + 2)).nanoseconds == .min)
    }

    @Test func subtractionUndoesAddition() {
        let base = Deadline.now()
        for ns: Int64 in [0, 1, -1, 999, -999, 1_000_000_007, -1_000_000_007] {
            let moved = base + .nanoseconds(ns)
            #expect((moved - base).nanoseconds == ns)
        }
    }

    @Test func remaining() {
        let now = Deadline(uptimeNanoseconds: 1_000_000)
        #expect(Deadline(uptimeNanoseconds: 1_000_500).remaining(from: now) == .nanoseconds(500))
        #expect(Deadline(uptimeNanoseconds: 1_000_000).remaining(from: now) == .zero)
        #expect(Deadline(uptimeNanoseconds: 999_999).remaining(from: now) == .zero)
        #expect(Deadline.distantPast.remaining(from: now) == .zero)
        #expect(Deadline.distantFuture.remaining(from: .distantPast) == TimeAmount(nanoseconds: .max))
        #expect(Deadline(uptimeNanoseconds: UInt64(Int64.max)).remaining(from: .distantPast) == TimeAmount(nanoseconds: .max))
        #expect(Deadline(uptimeNanoseconds: UInt64(Int64.max) - 1).remaining(from: .distantPast).nanoseconds == Int64.max - 1)
    }

    @Test func remainingFromTheRealClock() {
        let deadline = Deadline.after(.seconds(60))
        let left = deadline.remaining()
        #expect(left > .zero)
        #expect(left <= .seconds(60))
        // The default `from` is read after the receiver, so a deadline of "now" has none left.
        #expect(Deadline.now().remaining() == .zero)
        #expect((Deadline.now() + .seconds(-5)).remaining() == .zero)
    }

    // MARK: - TimeAmount

    @Test func conversions() {
        #expect(TimeAmount.nanoseconds(7).nanoseconds == 7)
        #expect(TimeAmount.microseconds(7).nanoseconds == 7_000)
        #expect(TimeAmount.milliseconds(7).nanoseconds == 7_000_000)
        #expect(TimeAmount.seconds(7).nanoseconds == 7_000_000_000)
        #expect(TimeAmount.seconds(-2).nanoseconds == -2_000_000_000)
        #expect(TimeAmount.milliseconds(1) == .microseconds(1_000))
        #expect(TimeAmount.seconds(1) == .milliseconds(1_000))
        #expect(TimeAmount.zero.nanoseconds == 0)
    }

    /// Values around each unit's overflow boundary, checked against 128-bit arithmetic.
    @Test(arguments: [Int64(1_000), 1_000_000, 1_000_000_000])
    func conversionsSaturate(_ factor: Int64) {
        let convert: (Int64) -> TimeAmount = switch factor {
        case 1_000: TimeAmount.microseconds
        case 1_000_000: TimeAmount.milliseconds
        default: TimeAmount.seconds
        }
        let edge = Int64.max / factor
        var inputs: [Int64] = [0, 1, -1, .max, .min, .max - 1, .min + 1]
        for k in -2...2 { inputs += [edge + Int64(k), -edge + Int64(k)] }
        for n in inputs {
            #expect(convert(n).nanoseconds == referenceScaled(n, factor), "\(n) × \(factor)")
        }
    }

    @Test func millisecondsRoundedUp() {
        var inputs: [Int64] = [0, -1, -1_000_000, .min, .max, .max - 1, 1, 2]
        for ms: Int64 in [1, 2, 10, 999, 1_000, 123_456] {
            let base = ms * 1_000_000
            inputs += [base - 1, base, base + 1]
        }
        for ns in inputs {
            #expect(TimeAmount(nanoseconds: ns).millisecondsRoundedUp == referenceMillisecondsRoundedUp(ns), "\(ns) ns")
        }
        // Spot values stated in the documentation's terms: a partial millisecond counts as one.
        #expect(TimeAmount.microseconds(1).millisecondsRoundedUp == 1)
        #expect(TimeAmount.milliseconds(5).millisecondsRoundedUp == 5)
        #expect(TimeAmount(nanoseconds: 5_000_001).millisecondsRoundedUp == 6)
    }

    @Test func ordering() {
        #expect(TimeAmount.nanoseconds(-1) < .zero)
        #expect(TimeAmount.zero < .nanoseconds(1))
        #expect(TimeAmount.milliseconds(999) < .seconds(1))
        #expect(TimeAmount(nanoseconds: .min) < TimeAmount(nanoseconds: .max))
        #expect(Deadline(uptimeNanoseconds: 1) < Deadline(uptimeNanoseconds: 2))
        #expect(!(Deadline(uptimeNanoseconds: 2) < Deadline(uptimeNanoseconds: 2)))
        #expect([Deadline(uptimeNanoseconds: 3), .distantFuture, .distantPast].sorted()
            == [.distantPast, Deadline(uptimeNanoseconds: 3), .distantFuture])
    }
}
