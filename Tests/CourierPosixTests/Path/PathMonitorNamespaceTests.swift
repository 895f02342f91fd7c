#if canImport(Glibc)
import Glibc
#endif
import Testing
import CourierCore
import Dispatch
import Synchronization
@testable import CourierPosix

/// Statuses a monitor reported, in order, with a wait for the latest one.
final class StatusLog: Sendable {
    private let entries = Mutex<[PathStatus]>([])
    private let changed = DispatchSemaphore(value: 0)

    func append(_ status: PathStatus) {
        entries.withLock { $0.append(status) }
        changed.signal()
    }

    var all: [PathStatus] { entries.withLock { $0 } }

    /// Waits (on reports, not on time) until the latest report is `status`; false after 10 s.
    func waitForLatest(_ status: PathStatus) -> Bool {
        let deadline = DispatchTime.now() + .seconds(10)
        while true {
            if entries.withLock({ $0.last }) == status { return true }
            if changed.wait(timeout: deadline) == .timedOut { return entries.withLock { $0.last } == status }
        }
    }
}

/// The monitor against a real kernel: a fresh network namespace (only `lo`, down), changed
/// with `ip` from the namespace's own thread.
@Suite(.serialized) struct PathMonitorNamespaceTests {
    static let reason: Comment = "needs root, unshare(CLONE_NEWNET) and the ip tool (iproute2)"

    @Test(.enabled(if: NetworkNamespaceThread.isAvailable, reason))
    func routesAppearingAndVanishingAreReported() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-path")
            defer { loop.shutdown() }
            let namespace = try NetworkNamespaceThread()
            defer { namespace.stop() }
            let ip = NetworkNamespaceThread.ipTool!

            // A child spawned from the namespace thread is in the namespace: only lo, down.
            let links = try namespace.run { NetworkNamespaceThread.spawn([ip, "-o", "link", "show"]) }
            #expect(links.status == 0)
            let linkLines = links.output.split(separator: "\n")
            #expect(linkLines.count == 1 && linkLines.first?.contains(" lo: ") == true, "\(links.output)")
            #expect(linkLines.first?.contains("UP") == false)

            let address = try namespace.run { try PathMonitor(target: .addresses([RouteDestination("1.1.1.1")!]), loop: loop) }
            let internet = try namespace.run { try PathMonitor(target: .internet, loop: loop, loopbackSatisfies: true) }
            let strict = try namespace.run { try PathMonitor(target: .internet, loop: loop) }
            defer {
                address.cancel()
                internet.cancel()
                strict.cancel()
            }
            let addressLog = StatusLog()
            let internetLog = StatusLog()
            #expect(address.status == .unknown)
            address.start { addressLog.append($0) }
            internet.start { internetLog.append($0) }
            #expect(addressLog.waitForLatest(.unsatisfied))
            #expect(internetLog.waitForLatest(.unsatisfied))

            for command in [["link", "set", "lo", "up"], ["addr", "add", "10.9.8.7/24", "dev", "lo"], ["route", "add", "default", "dev", "lo"]] {
                let result = try namespace.run { NetworkNamespaceThread.spawn([ip] + command) }
                #expect(result.status == 0, "ip \(command): \(result.output)")
            }
            #expect(addressLog.waitForLatest(.satisfied(interface: "lo")))
            #expect(internetLog.waitForLatest(.satisfied(interface: "lo")))
            #expect(address.status == .satisfied(interface: "lo"))

            // With loopback excluded (the default for the internet), a default route via lo
            // reaches nothing.
            let strictResult = StatusLog()
            strict.evaluate { strictResult.append($0) }
            #expect(strictResult.waitForLatest(.unsatisfied))

            let removed = try namespace.run { NetworkNamespaceThread.spawn([ip, "route", "del", "default", "dev", "lo"]) }
            #expect(removed.status == 0, "\(removed.output)")
            #expect(addressLog.waitForLatest(.unsatisfied))
            #expect(internetLog.waitForLatest(.unsatisfied))

            // Reported on change only: no repeats, no flapping.
            #expect(addressLog.all == [.unsatisfied, .satisfied(interface: "lo"), .unsatisfied])
            #expect(internetLog.all == [.unsatisfied, .satisfied(interface: "lo"), .unsatisfied])
        }
    }

    @Test func theLoopbackAddressRoutesViaLoInTheHostNamespace() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-path-host")
            defer { loop.shutdown() }
            let monitor = try PathMonitor(target: .addresses([RouteDestination("127.0.0.1")!, RouteDestination("::1")!]), loop: loop)
            defer { monitor.cancel() }
            let log = StatusLog()
            monitor.start { log.append($0) }
            #expect(log.waitForLatest(.satisfied(interface: "lo")))
            // A new target is evaluated at once on the same sockets: nothing to route is unsatisfied.
            monitor.setTarget(.addresses([]))
            #expect(log.waitForLatest(.unsatisfied))
        }
    }

    @Test func cancellingBeforeStartClosesTheSockets() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-path-cancel")
            defer { loop.shutdown() }
            let monitor = try PathMonitor(target: .internet, loop: loop)
            monitor.cancel()
            let result = StatusLog()
            monitor.evaluate { result.append($0) }
            #expect(result.waitForLatest(.unknown))
            monitor.start { _ in Issue.record("a cancelled monitor reported") }
        }
    }
}
