#if canImport(Glibc)
import Glibc
#endif
import Testing
import Synchronization
import CourierTestSupport
@testable import CourierPosix

/// `Trigger.level` against `Trigger.edge` on one loop. A level-triggered socket that is never
/// read is reported on every turn, so it counts the turns; an edge-triggered one beside it is
/// reported once per arrival of bytes and once per change of interest, however many turns pass.
@Suite struct SelectorTriggerTests {
    @Test func anEdgeTriggeredRegistrationHearsOncePerArrivalAndPerChangeOfInterest() throws {
        try expectNoLeakedDescriptors {
            let loop = try EventLoop(name: "t-trigger")
            defer { loop.shutdown() }
            let edgePair = try socketPair()
            let levelPair = try socketPair()
            defer { for fd in edgePair + levelPair { close(fd) } }
            // One byte waits on each before either is registered.
            #expect(write(edgePair[1], "a", 1) == 1)
            #expect(write(levelPair[1], "a", 1) == 1)

            let edgeReports = Mutex(0)
            let levelReports = Mutex(0)
            let seen = Mutex<[String]>([])
            let done = Box<Bool>()
            loop.execute {
                do {
                    let edge = try loop.register(edgePair[0], interest: .read, trigger: .edge, handler: Handler { events in
                        #expect(events.contains(.readable))
                        edgeReports.withLock { $0 += 1 }
                    })
                    var level: RegistrationID?
                    level = try loop.register(levelPair[0], interest: .read, handler: Handler { _ in
                        let turn = levelReports.withLock { $0 += 1; return $0 }
                        let edgeSoFar = edgeReports.withLock { $0 }
                        switch turn {
                        case 5:
                            seen.withLock { $0.append("turn 5: \(edgeSoFar)") }
                            // New bytes behind the unread one: a new arrival.
                            _ = write(edgePair[1], "b", 1)
                        case 10:
                            seen.withLock { $0.append("turn 10: \(edgeSoFar)") }
                            // The same interest again: the kernel polls and finds bytes waiting.
                            try? loop.reregister(edge, interest: .read)
                        case 15:
                            seen.withLock { $0.append("turn 15: \(edgeSoFar)") }
                            loop.deregister(edge)
                            if let level { loop.deregister(level) }
                            done.put(true)
                        default:
                            break
                        }
                    })
                } catch {
                    Issue.record("register: \(error)")
                    done.put(false)
                }
            }
            #expect(done.take() == true)
            #expect(seen.withLock { $0 } == ["turn 5: 1", "turn 10: 2", "turn 15: 3"])
            // Nothing was read: both bytes are still waiting on the edge-triggered socket.
            var bytes = [UInt8](repeating: 0, count: 4)
            #expect(read(edgePair[0], &bytes, 4) == 2)
        }
    }

    private func socketPair() throws -> [Int32] {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw PosixError(code: errno, call: "socketpair")
        }
        return pair
    }
}

/// Calls `body` with each report.
private final class Handler: Selectable, @unchecked Sendable {
    let body: (SelectorEvents) -> Void
    init(_ body: @escaping (SelectorEvents) -> Void) { self.body = body }
    func selectorReady(_ events: SelectorEvents) { body(events) }
}
