/// wrk's duration syntax: a number with an optional unit, `ms`, `us`, `s` (the default), `m` or
/// `h`: `10s`, `1m`, `250ms`, `1.5m`.
enum BenchDuration {
    /// Nanoseconds, or nil when `text` is not a duration of at least one nanosecond.
    static func parse(_ text: String) -> UInt64? {
        nanoseconds(text).flatMap { $0 > 0 ? $0 : nil }
    }

    /// Nanoseconds, or nil when `text` is not a duration; `0`, `0us` and a value that rounds
    /// to no nanoseconds are 0 (for a setting that 0 turns off).
    static func parseAllowingZero(_ text: String) -> UInt64? {
        nanoseconds(text)
    }

    private static func nanoseconds(_ text: String) -> UInt64? {
        let units: [(String, Double)] = [("ms", 1e6), ("us", 1e3), ("s", 1e9), ("m", 60e9), ("h", 3600e9)]
        var number = Substring(text)
        var scale = 1e9
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale < 1e18 else { return nil }
        return UInt64(value * scale)
    }
}
