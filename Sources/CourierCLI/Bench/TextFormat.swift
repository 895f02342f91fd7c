#if canImport(Glibc)
import Glibc
#endif

/// Number formatting without Foundation (the CLI links what `Courier` links, nothing more).
enum TextFormat {
    /// `value` with exactly `digits` decimals (rounded half away from zero).
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let negative = value < 0
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e18 else { return String(value) }
        let whole = UInt64(scaled)
        let integer = whole / UInt64(scale)
        var text = (negative && whole != 0 ? "-" : "") + String(integer)
        if digits > 0 {
            let fraction = String(whole % UInt64(scale))
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return text
    }

    /// A duration in nanoseconds as wrk prints one: `812.00us`, `1.52ms`, `2.01s`.
    static func duration(nanoseconds value: Double) -> String {
        if value < 1_000 { return fixed(value, 0) + "ns" }
        if value < 1_000_000 { return fixed(value / 1_000, 2) + "us" }
        if value < 1_000_000_000 { return fixed(value / 1_000_000, 2) + "ms" }
        return fixed(value / 1_000_000_000, 2) + "s"
    }

    /// A count with a binary unit, as wrk prints byte rates: `1.23MB`.
    static func bytes(_ value: Double) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var scaled = value
        var unit = 0
        while scaled >= 1024 && unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        return fixed(scaled, 2) + units[unit]
    }

    /// Wall-clock seconds since the epoch.
    static func epochSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// `seconds` since the epoch as an ISO 8601 UTC time, `2026-11-28T04:10:00Z`.
    static func iso8601(_ seconds: Double) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

/// Writes to a file descriptor, all of it (retrying short writes and EINTR).
enum Output {
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    static func out(_ text: String) { write(text, to: 1) }
    static func err(_ text: String) { write(text, to: 2) }
}
