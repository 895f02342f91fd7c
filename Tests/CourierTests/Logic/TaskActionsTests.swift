@testable import Courier
import CourierCore
import Testing

/// The machine's inline action list keeps every action, in order, past its two inline slots.
@Suite struct TaskActionsTests {
    let fixture = MachineFixture()

    @Test func keepsOrderPastTheInlineSlots() {
        var actions = MachineActions.none
        #expect(actions.isEmpty && actions.count == 0 && actions.first == nil)
        actions.append(.publishResumed)
        #expect(fixture.names(actions) == ["publishResumed"] && actions.count == 1)
        for completed in 1...4 { actions.append(.reportDownload(completed: Int64(completed))) }
        #expect(fixture.names(actions) == ["publishResumed", "report(1)", "report(2)", "report(3)", "report(4)"])
        #expect(actions.count == 5 && !actions.isEmpty)
    }

    /// `contains(where:)` looks at every slot, inline and past them, and at nothing else.
    @Test func containsLooksAtEverySlot() {
        var actions = MachineActions.none
        #expect(!actions.contains { _ in true })
        actions.append(.publishResumed)
        for completed in 1...4 { actions.append(.reportDownload(completed: Int64(completed))) }
        for wanted in 1...4 {
            #expect(actions.contains { fixture.names(MachineActions($0)) == ["report(\(wanted))"] })
        }
        #expect(actions.contains { fixture.names(MachineActions($0)) == ["publishResumed"] })
        #expect(!actions.contains { fixture.names(MachineActions($0)) == ["report(5)"] })
        #expect(!actions.contains { fixture.names(MachineActions($0)) == ["publishSuspended"] })
    }

    @Test func concatenationKeepsBothSidesInOrder() {
        let left = MachineActions(.publishResumed, .reportDownload(completed: 1))
        let right = MachineActions(.reportDownload(completed: 2), .publishSuspended)
        #expect(fixture.names(left + right) == ["publishResumed", "report(1)", "report(2)", "publishSuspended"])
        #expect(fixture.names(.none + right) == ["report(2)", "publishSuspended"])
        #expect(fixture.names(left + .none) == ["publishResumed", "report(1)"])
        #expect(fixture.names(MachineActions(.publishSuspended)) == ["publishSuspended"])
    }
}
