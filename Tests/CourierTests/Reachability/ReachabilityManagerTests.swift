import Courier
import CourierCore
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

/// Statuses a handler received, with the queue check, and a wait on the next one.
private final class Received: Sendable {
    private let statuses = Mutex<[ReachabilityStatus]>([])
    private let onExpectedQueue = Mutex<[Bool]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func record(_ status: ReachabilityStatus, onQueue: Bool) {
        statuses.withLock { $0.append(status) }
        onExpectedQueue.withLock { $0.append(onQueue) }
        arrived.signal()
    }

    /// Waits for the next report (an event, not a sleep); nil after 10 s.
    func next() -> ReachabilityStatus? {
        let index = statuses.withLock { $0.count }
        while statuses.withLock({ $0.count }) <= index {
            if arrived.wait(timeout: .now() + .seconds(10)) == .timedOut { return nil }
        }
        return statuses.withLock { $0[index] }
    }

    var all: [ReachabilityStatus] { statuses.withLock { $0 } }
    var allOnQueue: Bool { onExpectedQueue.withLock { !$0.contains(false) } }
}

/// The Linux reachability manager in the host namespace, where 127.0.0.1 always routes via lo.
/// (The netlink monitor under it is tested against a private network namespace in
/// CourierPosixTests.PathMonitorNamespaceTests.)
@Suite(.serialized) struct ReachabilityManagerTests {
    private static func withoutLeaks(_ body: () throws -> Void) throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors(body)
        }
    }

    @Test func statusesDescribeThemselvesAsAFNDoes() {
        #expect(ReachabilityStatus.unknown.description == "Unknown")
        #expect(ReachabilityStatus.notReachable.description == "Not Reachable")
        #expect(ReachabilityStatus.reachable(via: "eth0").description == "Reachable via eth0")
        #expect(ReachabilityStatus.reachable(via: "eth0").isReachable)
        #expect(ReachabilityStatus.reachable(via: "wlan0").interface == "wlan0")
        #expect(!ReachabilityStatus.notReachable.isReachable && !ReachabilityStatus.unknown.isReachable)
        #expect(ReachabilityStatus.unknown.interface == nil)
    }

    @Test func anAddressMustBeAnIPLiteral() {
        #expect(throws: ReachabilityError.notAnIPAddress("localhost")) { try ReachabilityManager(address: "localhost") }
        #expect(throws: ReachabilityError.notAnIPAddress("[::1]")) { try ReachabilityManager(address: "[::1]") }
        #expect(throws: ReachabilityError.notAnIPAddress("127.0.0.1:80")) { try ReachabilityManager(address: "127.0.0.1:80") }
    }

    @Test func theLoopbackAddressIsReachableViaLoOnTheGivenQueue() throws {
        try Self.withoutLeaks {
            let manager = try ReachabilityManager(address: "127.0.0.1")
            #expect(manager.status == .unknown)
            #expect(manager.localizedStatusString == "Unknown")
            let queue = DispatchQueue(label: "test.reachability")
            let key = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: key, value: true)
            let received = Received()
            manager.setStatusChangeHandler(queue: queue) { status in
                received.record(status, onQueue: DispatchQueue.getSpecific(key: key) == true)
            }
            manager.startMonitoring()
            #expect(received.next() == .reachable(via: "lo"))
            #expect(received.allOnQueue)
            #expect(manager.status == .reachable(via: "lo"))
            #expect(manager.isReachable)
            #expect(manager.localizedStatusString == "Reachable via lo")
            manager.stopMonitoring()
            // Stopping keeps the last status; starting again reports the first evaluation again.
            #expect(manager.status == .reachable(via: "lo"))
            manager.startMonitoring()
            #expect(received.next() == .reachable(via: "lo"))
            manager.stopMonitoring()
            #expect(received.all == [.reachable(via: "lo"), .reachable(via: "lo")])
        }
    }

    @Test func localhostResolvesAndIsReachableViaLo() throws {
        try Self.withoutLeaks {
            let manager = ReachabilityManager(domain: "localhost")
            let received = Received()
            // The default queue: the manager's own serial queue.
            manager.setStatusChangeHandler { received.record($0, onQueue: true) }
            manager.startMonitoring()
            #expect(received.next() == .reachable(via: "lo"))
            #expect(manager.isReachable)
            manager.stopMonitoring()
        }
    }

    @Test func releasingAStartedManagerClosesItsSockets() throws {
        try Self.withoutLeaks {
            let received = Received()
            do {
                let manager = try ReachabilityManager(address: "127.0.0.1")
                manager.setStatusChangeHandler { received.record($0, onQueue: true) }
                manager.startMonitoring()
                #expect(received.next() == .reachable(via: "lo"))
            }
            // No stopMonitoring(): deinit ends the loop and closes the netlink sockets.
        }
    }

    @Test func statusUpdatesStartWithTheCurrentStatus() throws {
        try Self.withoutLeaks {
            let manager = try ReachabilityManager(address: "::1")
            let first = Mutex<ReachabilityStatus?>(nil)
            let got = DispatchSemaphore(value: 0)
            let stream = manager.statusUpdates()
            let consumer = Task {
                for await status in stream {
                    first.withLock { $0 = $0 ?? status }
                    got.signal()
                }
            }
            manager.startMonitoring()
            #expect(got.wait(timeout: .now() + .seconds(10)) == .success)
            let status = first.withLock { $0 }
            // ::1 routes via lo wherever IPv6 is enabled; with IPv6 off it has no route.
            #expect(status == .reachable(via: "lo") || status == .notReachable)
            #expect(status == manager.status)

            // A stream made later gets the current status at once.
            let later = manager.statusUpdates()
            let current = Mutex<ReachabilityStatus?>(nil)
            let gotCurrent = DispatchSemaphore(value: 0)
            let laterConsumer = Task {
                for await status in later {
                    current.withLock { $0 = status }
                    gotCurrent.signal()
                    break
                }
            }
            #expect(gotCurrent.wait(timeout: .now() + .seconds(10)) == .success)
            #expect(current.withLock { $0 } == status)
            manager.stopMonitoring()
            consumer.cancel()
            laterConsumer.cancel()
        }
    }
}
