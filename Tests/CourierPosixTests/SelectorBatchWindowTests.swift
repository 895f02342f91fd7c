#if canImport(Glibc)
import Glibc
#endif
import CCourierLinux
import Testing
import CourierCore
import CourierTestSupport
@testable import CourierPosix

/// The batch window at the selector (``WaitPlan``): readiness that comes during the pause comes
/// back from one wait, where the plain wait returns at the first. Two timerfds stand for two
/// replies: armed 100 ms and 200 ms ahead, they become readable by the kernel's clock alone.
@Suite struct SelectorBatchWindowTests {
    /// Waits once with `batchWindow` for two timers 100 ms apart; the slots that came back.
    static func slotsFromOneWait(batchWindow: TimeAmount?) throws -> Set<UInt32> {
        let selector = try Selector()
        let timers = [
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)),
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)),
        ]
        defer { for timer in timers where timer >= 0 { close(timer) } }
        #expect(timers.allSatisfy { $0 >= 0 })
        for (slot, timer) in timers.enumerated() {
            try selector.add(timer, interest: .read, id: RegistrationID(slot: UInt32(slot), generation: 0))
            var due = itimerspec()
            due.it_value.tv_nsec = (slot + 1) * 100_000_000
            #expect(timerfd_settime(timer, 0, &due, nil) == 0)
        }
        var slots: Set<UInt32> = []
        try selector.wait(timeoutMilliseconds: -1, batchWindow: batchWindow) { id, _ in slots.insert(id.slot) }
        return slots
    }

    @Test func readinessDuringThePauseComesBackFromOneWait() throws {
        try expectNoLeakedDescriptors {
            // Without a window the wait returns when the first timer fires, 100 ms before the other.
            let plain = try Self.slotsFromOneWait(batchWindow: nil)
            #expect(plain == [0])
            // With a 600 ms window the first poll finds nothing, the pause outlasts both timers,
            // and the poll after it finds both.
            let batched = try Self.slotsFromOneWait(batchWindow: .milliseconds(600))
            #expect(batched == [0, 1])
        }
    }
}
