import FoundationEssentials

/// The `Retry-After` field (RFC 9110 §10.2.3): how long the server asks the client to wait,
/// either `delay-seconds` (`1*DIGIT`) or an HTTP-date (any of the three formats of §5.6.7),
/// which counts from the response's `Date` when it has one — the server's own clock — else
/// from `now`. A date in the past means no wait. Nil when the field is absent or invalid.
enum RetryAfter {
    static func delay(in response: Response, now: Date = Date()) -> Double? {
        guard let value = response.headers[first: "Retry-After"]?.trimmingOWS, !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // An absurdly long digit string is still "a very long wait", not an error.
            return Double(value) ?? .infinity
        }
        guard let date = HTTPDate.parse(value, now: now) else { return nil }
        let reference = response.headers[first: "Date"].flatMap { HTTPDate.parse($0, now: now) } ?? now
        return max(0, date.timeIntervalSince(reference))
    }
}
