import CourierCore
import Synchronization
import Testing
@testable import CourierPosix

/// A query socket that loses the kernel's first `count` replies, as an overrun or a lost
/// datagram would: they are read and reported as if from another sender (which the monitor
/// skips).
final class LosingNetlinkSocket: NetlinkSocket {
    let toLose = Atomic<Int>(0)
    let lost = Atomic<Int>(0)

    override func receive(into buffer: inout [UInt8]) throws(PosixError) -> Received {
        let received = try super.receive(into: &buffer)
        guard case .datagram = received, toLose.load(ordering: .relaxed) > 0 else { return received }
        toLose.subtract(1, ordering: .relaxed)
        lost.add(1, ordering: .relaxed)
        return .foreign
    }
}

/// A round whose reply is lost is tried again while the monitor is started, so the first
/// status is late but still comes without waiting for a network change.
@Suite(.serialized) struct PathMonitorRetryTests {
    static func monitor(losing count: Int, on loop: EventLoop) throws -> (PathMonitor, LosingNetlinkSocket) {
        let queries = try LosingNetlinkSocket(groups: 0)
        queries.toLose.store(count, ordering: .relaxed)
        let monitor = try PathMonitor(
            target: .addresses([RouteDestination("127.0.0.1")!]), loop: loop, loopbackSatisfies: nil,
            coalescing: .milliseconds(20), roundLimit: .milliseconds(200), queries: queries)
        return (monitor, queries)
    }

    @Test(arguments: [1, 3])
    func aLostReplyIsAskedAgain(losing count: Int) throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-path-retry")
            defer { loop.shutdown() }
            let (monitor, queries) = try Self.monitor(losing: count, on: loop)
            defer { monitor.cancel() }
            let log = StatusLog()
            monitor.start { log.append($0) }
            #expect(log.waitForLatest(.satisfied(interface: "lo")))
            #expect(queries.lost.load(ordering: .relaxed) == count, "the replies were not lost as planned")
            #expect(log.all == [.satisfied(interface: "lo")], "one report, after the retries")
        }
    }

    @Test func anUnstartedMonitorDoesNotRetry() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-path-noretry")
            defer { loop.shutdown() }
            let (monitor, queries) = try Self.monitor(losing: 1, on: loop)
            defer { monitor.cancel() }
            // `evaluate` alone: the failed round answers with the last status (unknown), and
            // nothing asks again, so the second evaluation is the one that gets through.
            let first = StatusLog()
            monitor.evaluate { first.append($0) }
            #expect(first.waitForLatest(.unknown))
            #expect(queries.lost.load(ordering: .relaxed) == 1)
            let second = StatusLog()
            monitor.evaluate { second.append($0) }
            #expect(second.waitForLatest(.satisfied(interface: "lo")))
            #expect(monitor.status == .unknown, "evaluate reports to its caller, not to a handler")
        }
    }
}
