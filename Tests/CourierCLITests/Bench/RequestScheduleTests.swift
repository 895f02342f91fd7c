@testable import CourierCLI
import Testing

/// The schedule and recorder values without sockets: closed loop (latency from the send) and
/// constant rate (latency from the due time, wrk2's correction of coordinated omission).
@Suite struct RequestScheduleTests {
    let ms: UInt64 = 1_000_000

    @Test func closedLoopCountsFromTheSend() {
        var schedule = RequestSchedule(mode: .closedLoop, start: 0)
        var latencies: [UInt64] = []
        // A response stalls 50 ms; the others take 1 ms each.
        var now: UInt64 = 0
        for service in [50, 1, 1, 1] as [UInt64] {
            let send = schedule.nextSend(now: now)
            #expect(send == now)
            now = send + service * ms
            latencies.append(schedule.complete(at: now))
        }
        // The stall shows once: the requests that would have waited behind it are never sent.
        #expect(latencies == [50 * ms, 1 * ms, 1 * ms, 1 * ms])
    }

    @Test func constantRateChargesAStallToTheRequestsDueDuringIt() {
        // One request every 10 ms on this connection, the first due at 100 ms.
        var schedule = RequestSchedule(mode: .constantRate(interval: 10 * ms), start: 100 * ms)
        var now: UInt64 = 0
        var sends: [UInt64] = []
        var latencies: [UInt64] = []
        for service in [50, 1, 1, 1, 1, 1, 1, 1] as [UInt64] {
            let due = schedule.nextSend(now: now)
            // Sent when due, or at once when the previous response ended later.
            let send = max(due, now)
            sends.append(send - 100 * ms)
            now = send + service * ms
            latencies.append(schedule.complete(at: now))
        }
        // The first response stalls 50 ms: requests due at 10, 20, 30 and 40 ms go out late, as
        // soon as the one before ends, and their latencies count from when they were due.
        #expect(sends == [0, 50, 51, 52, 53, 54, 60, 70].map { $0 * ms })
        #expect(latencies == [50, 41, 32, 23, 14, 5, 1, 1].map { $0 * ms })
    }

    @Test func constantRateLatencyGoesIntoTheHistogram() {
        var record = BenchRecord(digits: 3)
        var schedule = RequestSchedule(mode: .constantRate(interval: 10 * ms), start: 0)
        var now: UInt64 = 0
        for service in [50, 1, 1, 1, 1, 1, 1, 1, 1, 1] as [UInt64] {
            now = max(schedule.nextSend(now: now), now) + service * ms
            record.latency.record(Int64(schedule.complete(at: now)))
        }
        #expect(record.latency.totalCount == 10)
        // Closed-loop accounting would give a median of 1 ms; the due-time median is 5 ms and
        // the tail holds all five delayed requests.
        #expect(record.latency.value(atPercentile: 50) >= 5 * 1_000_000 - 5_000)
        #expect(record.latency.value(atPercentile: 50) <= 5 * 1_000_000 + 5_000)
        #expect(record.latency.reportedMax >= 50 * 1_000_000)
    }

    @Test func recordsAddUp() {
        var one = BenchRecord(digits: 3)
        var two = BenchRecord(digits: 3)
        one.statuses[200] = 3
        two.statuses[200] = 2
        two.statuses[503] = 1
        one.responses = 3
        two.responses = 3
        two.failures = 1
        two.errors["remoteClosedBeforeResponse"] = 1
        one.add(two)
        #expect(one.requests == 7)
        #expect(one.statusCounts.map { $0.0 } == ["200", "503"])
        #expect(one.statusCounts.map { $0.1 } == [5, 1])
        #expect(one.errors == ["remoteClosedBeforeResponse": 1])
        one.reset()
        #expect(one.requests == 0 && one.statusCounts.isEmpty && one.errors.isEmpty)
    }

    @Test func durationsAndShares() {
        #expect(BenchDuration.parse("10s") == 10_000_000_000)
        #expect(BenchDuration.parse("1m") == 60_000_000_000)
        #expect(BenchDuration.parse("250ms") == 250_000_000)
        #expect(BenchDuration.parse("2") == 2_000_000_000)
        #expect(BenchDuration.parse("1.5h") == 5_400_000_000_000)
        #expect(BenchDuration.parse("25us") == 25_000)
        for bad in ["", "s", "-1s", "0", "0us", "0.0001us", "1x", "nan", "inf"] { #expect(BenchDuration.parse(bad) == nil) }
        // A setting that 0 turns off (`--batch`) takes 0 in any unit, and nothing negative.
        for zero in ["0", "0us", "0ms", "0.0001us"] { #expect(BenchDuration.parseAllowingZero(zero) == 0, "\(zero)") }
        #expect(BenchDuration.parseAllowingZero("25us") == 25_000)
        for bad in ["", "-1us", "x", "nan"] { #expect(BenchDuration.parseAllowingZero(bad) == nil) }
        let shares = (0..<4).map { BenchPlan.share(of: 10, worker: $0, workers: 4) }
        #expect(shares == [3, 3, 2, 2])
        #expect(TextFormat.fixed(1.0005, 3) == "1.001")
        #expect(TextFormat.fixed(0.5, 0) == "1")
        #expect(TextFormat.fixed(12.3, 2) == "12.30")
    }
}
