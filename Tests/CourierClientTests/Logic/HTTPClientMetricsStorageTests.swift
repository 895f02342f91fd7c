@testable import CourierClient
import CourierCore
import Testing

/// The optional times of ``HTTPClientMetrics`` are stored 8 bytes each with a presence bit:
/// each reads back what was set, nil included, with no field leaking into another, for every
/// value a `Deadline` can hold.
@Suite("HTTPClientMetrics times")
struct HTTPClientMetricsStorageTests {
    typealias Time = WritableKeyPath<HTTPClientMetrics, Deadline?> & Sendable
    static let times: [Time] = [
        \.resolveStart, \.resolveEnd, \.connectStart, \.connectEnd, \.tlsStart, \.tlsEnd,
        \.requestStart, \.requestEnd, \.responseStart, \.responseEnd,
    ]

    @Test func eachTimeIsItsOwn() {
        let start = Deadline(uptimeNanoseconds: 42)
        var metrics = HTTPClientMetrics(fetchStart: start)
        for time in Self.times { #expect(metrics[keyPath: time] == nil) }
        for (index, time) in Self.times.enumerated() {
            metrics[keyPath: time] = Deadline(uptimeNanoseconds: UInt64(1_000 + index))
        }
        for (index, time) in Self.times.enumerated() {
            #expect(metrics[keyPath: time] == Deadline(uptimeNanoseconds: UInt64(1_000 + index)))
        }
        // Clearing one leaves the others; the extremes of the clock are values, not "nil".
        for (index, time) in Self.times.enumerated() {
            metrics[keyPath: time] = nil
            #expect(metrics[keyPath: time] == nil)
            for later in Self.times[(index + 1)...] { #expect(metrics[keyPath: later] != nil) }
        }
        for edge in [UInt64.min, .max] {
            for time in Self.times {
                metrics[keyPath: time] = Deadline(uptimeNanoseconds: edge)
                #expect(metrics[keyPath: time] == Deadline(uptimeNanoseconds: edge))
            }
        }
        #expect(metrics.fetchStart == start)
    }
}
