// The one JSON line a client driver prints: {"requests":N,"bytes":B,"seconds":S,"errors":E}.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What a driver measured over its request phase.
public struct DriverReport: Sendable {
    /// Requests completed (status 200 or not).
    public var requests: Int
    /// Body bytes received; decoded bytes with `--decode-gzip`.
    public var bytes: Int
    /// Wall time of the request phase only, from a monotonic clock.
    public var seconds: Double
    /// Requests that failed or had a status other than 200.
    public var errors: Int

    public init(requests: Int, bytes: Int, seconds: Double, errors: Int) {
        self.requests = requests
        self.bytes = bytes
        self.seconds = seconds
        self.errors = errors
    }

    /// The JSON line, without a trailing newline.
    public var json: String {
        "{\"requests\":\(requests),\"bytes\":\(bytes),\"seconds\":\(seconds),\"errors\":\(errors)}"
    }

    /// Prints the JSON line to stdout and flushes it.
    public func emit() {
        print(json)
        fflush(nil)
    }
}

/// Seconds elapsed since `start` on `ContinuousClock` (monotonic).
public func secondsSince(_ start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    let parts = elapsed.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
}
