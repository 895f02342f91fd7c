/// When one connection's requests should be sent, and where each one's latency counts from.
///
/// Closed loop (wrk): a request goes as soon as the previous one ended, and its latency counts
/// from when it was sent. Constant rate (wrk2's `-R`): request *k* of a connection is due at
/// `start + k × interval`; it goes at that time, or at once when the previous response ended
/// later than that, and its latency counts from when it was *due*. So a response that stalls
/// also charges the requests queued behind it with the time they waited to be sent, as a user
/// arriving at a fixed rate would have waited: wrk2's correction of coordinated omission.
///
/// A value with no clock of its own: the caller passes the times in (monotonic nanoseconds).
struct RequestSchedule: Sendable, Equatable {
    enum Mode: Sendable, Equatable {
        case closedLoop
        /// One request every `interval` nanoseconds on this connection.
        case constantRate(interval: UInt64)
    }

    let mode: Mode
    /// The due time of the request in flight (or of the next one, between requests).
    private(set) var due: UInt64

    /// - Parameter start: when the connection's first request is due.
    init(mode: Mode, start: UInt64) {
        self.mode = mode
        self.due = start
    }

    /// When the next request should be sent, asked at `now`: `now` in a closed loop; its due
    /// time at a constant rate (in the past when the connection is behind: send at once).
    mutating func nextSend(now: UInt64) -> UInt64 {
        switch mode {
        case .closedLoop:
            due = now
            return now
        case .constantRate:
            return due
        }
    }

    /// The request in flight ended at `end`: its latency, counted from its due time, and the
    /// schedule moves on to the next request.
    mutating func complete(at end: UInt64) -> UInt64 {
        let latency = end >= due ? end - due : 0
        if case .constantRate(let interval) = mode { due &+= interval }
        return latency
    }
}
