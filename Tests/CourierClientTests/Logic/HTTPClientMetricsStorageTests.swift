@testable import CourierClient
import CourierCore
import CourierPosix
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

    /// `restart` makes the metrics of a new request: every field as `init` makes it, the
    /// connection facts kept but hidden until `attach` (which shows them again, or others).
    @Test func restartHidesTheConnectionFactsUntilAttached() throws {
        let first = ConnectionFacts(.init(remoteAddress: try SocketAddress(ipAddress: "127.0.0.1", port: 8080), tlsVersion: "TLSv1.3"))
        var metrics = HTTPClientMetrics(fetchStart: Deadline(uptimeNanoseconds: 1))
        #expect(metrics.remoteAddress == nil)
        metrics.attach(first)
        metrics.requestStart = Deadline(uptimeNanoseconds: 5)
        metrics.bytesSent = 10
        metrics.bytesReceived = 20
        metrics.bodyBytesDelivered = 3
        metrics.reusedConnection = true
        metrics.resolution = .cache
        metrics.redirectCount = 2
        metrics.retried = true
        #expect(metrics.remoteAddress?.port == 8080)
        #expect(metrics.tlsVersion == "TLSv1.3")

        metrics.restart(fetchStart: Deadline(uptimeNanoseconds: 7))
        #expect(metrics.fetchStart == Deadline(uptimeNanoseconds: 7))
        for time in Self.times { #expect(metrics[keyPath: time] == nil) }
        #expect(metrics.bytesSent == 0 && metrics.bytesReceived == 0 && metrics.bodyBytesDelivered == 0)
        #expect(!metrics.reusedConnection && metrics.resolution == nil && metrics.redirectCount == 0 && !metrics.retried)
        #expect(metrics.connection == nil)
        #expect(metrics.remoteAddress == nil && metrics.tlsVersion == nil)

        metrics.attach(first)
        #expect(metrics.connection === first)
        #expect(metrics.remoteAddress?.port == 8080)

        // Another connection's facts replace them; nil (no facts) hides them.
        let second = ConnectionFacts(.init(remoteAddress: try SocketAddress(ipAddress: "127.0.0.1", port: 9090)))
        metrics.restart(fetchStart: Deadline(uptimeNanoseconds: 8))
        metrics.attach(second)
        #expect(metrics.connection === second)
        #expect(metrics.remoteAddress?.port == 9090 && metrics.tlsVersion == nil)
        metrics.attach(nil)
        #expect(metrics.connection == nil && metrics.remoteAddress == nil)

        // A fact set by hand shows at once, through a box of its own.
        metrics.restart(fetchStart: Deadline(uptimeNanoseconds: 9))
        metrics.tlsCipher = "TLS_AES_128_GCM_SHA256"
        #expect(metrics.tlsCipher == "TLS_AES_128_GCM_SHA256" && metrics.remoteAddress == nil)
        #expect(metrics.connection !== second)
    }
}
