/// `--limit-rate`: how long to pause so that the average transfer speed since the start stays
/// at or under the limit (curl's averaging, not a token bucket).
struct RateLimiter {
    let bytesPerSecond: Int64
    private let start = ContinuousClock.now
    private var total: Int64 = 0

    init(bytesPerSecond: Int64) { self.bytesPerSecond = max(1, bytesPerSecond) }

    /// Counts `count` more bytes; the pause due now, or nil when the average is under the limit.
    mutating func delay(after count: Int) -> Duration? {
        total += Int64(count)
        let due = Duration.nanoseconds(Int64(Double(total) / Double(bytesPerSecond) * 1e9))
        let elapsed = ContinuousClock.now - start
        let wait = due - elapsed
        return wait > .milliseconds(5) ? wait : nil
    }
}
