@testable import Courier
import CourierClient
import CourierCore
import FoundationEssentials
import Testing

/// Every event in every state of the task state machine, without sockets: each pair is either
/// handled (the table says the state it leads to and the actions it asks for) or deliberately
/// refused (the state stays and nothing is asked for). The table is the specification; a change
/// of behaviour shows up as a changed row.
@Suite struct TaskStateMachineMatrixTests {
    /// The events, each applied to a machine in a given state; the result is
    /// `"<state after>: <actions>"` (and the demand for body parts).
    static let events: [(String, @Sendable (inout MachineFixture) -> String)] = [
        ("resume", { f in
            let actions = f.machine.resume(deadline: nil)
            return f.outcome(actions)
        }),
        ("suspend", { f in
            let actions = f.machine.suspend()
            return f.outcome(actions)
        }),
        ("cancel", { f in
            let actions = f.machine.cancel()
            return f.outcome(actions)
        }),
        ("cached", { f in
            let actions = f.machine.answeredFromCache(MachineFixture.response(), data: Data("hit".utf8))
            return f.outcome(actions)
        }),
        ("prepFailed", { f in
            let actions = f.machine.preparationFailed(CourierError(.invalidURL))
            return f.outcome(actions)
        }),
        ("launch", { f in
            let number = f.machine.launch(Request(url: MachineFixture.url))
            return f.outcome(.none) + (number.map { " #\($0)" } ?? " refused")
        }),
        ("launched", { f in
            let actions = f.machine.launched(f.transport, attempt: max(1, f.attempt))
            return f.outcome(actions)
        }),
        ("launchedStale", { f in
            let actions = f.machine.launched(FakeTransport(), attempt: f.attempt + 7)
            return f.outcome(actions)
        }),
        ("head", { f in
            let taken = f.machine.receivedHead(attempt: f.attempt, transport: f.transport)
            return f.outcome(.none) + (taken ? " decide" : " ignored")
        }),
        ("headStale", { f in
            let taken = f.machine.receivedHead(attempt: f.attempt + 7, transport: f.transport)
            return f.outcome(.none) + (taken ? " decide" : " ignored")
        }),
        ("redirected", { f in
            f.machine.redirected(
                to: Request(url: MachineFixture.redirectURL), metrics: MachineFixture.metrics(), attempt: f.attempt, transport: f.transport)
            return f.outcome(.none)
        }),
        ("part", { f in
            let outcome = f.machine.receivedBodyPart(MachineFixture.part("abcd"), attempt: f.attempt, transport: f.transport)
            return f.outcome(outcome.actions) + " \(outcome.demand)"
        }),
        ("partStale", { f in
            let outcome = f.machine.receivedBodyPart(MachineFixture.part("abcd"), attempt: f.attempt + 7, transport: f.transport)
            return f.outcome(outcome.actions) + " \(outcome.demand)"
        }),
        ("heldWritten", { f in
            let actions = f.machine.partWritten(busy: false, held: true, attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("partWrittenBusy", { f in
            let actions = f.machine.partWritten(busy: true, held: false, attempt: f.attempt)
            return f.outcome(actions) + " \(f.machine.demand(attempt: f.attempt))"
        }),
        ("sinkDrained", { f in
            let actions = f.machine.sinkDrained()
            return f.outcome(actions)
        }),
        ("finished", { f in
            let actions = f.machine.transportFinished(metrics: MachineFixture.metrics(), attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("finishedStale", { f in
            let actions = f.machine.transportFinished(metrics: MachineFixture.metrics(), attempt: f.attempt + 7)
            return f.outcome(actions)
        }),
        ("failed", { f in
            let actions = f.machine.transportFailed(CourierError(.transport), metrics: MachineFixture.metrics(), attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("deliver", { f in
            let actions = f.machine.decided(.deliver(f.delivery()), attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("follow", { f in
            let actions = f.machine.decided(.follow(Request(url: MachineFixture.redirectURL), .authentication), attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("decideCancel", { f in
            let actions = f.machine.decided(.cancel, attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("decideFail", { f in
            let actions = f.machine.decided(.fail(CourierError(.redirectRefused)), attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("retry", { f in
            let actions = f.machine.decided(.retry(after: 0), attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("retryLater", { f in
            let actions = f.machine.decided(.retry(after: 2), attempt: f.attempt)
            return f.outcome(actions)
        }),
        ("retryDecided", { f in
            let actions = f.machine.retryDecided(delay: 0.5)
            return f.outcome(actions)
        }),
        ("retryRefused", { f in
            let actions = f.machine.retryDecided(delay: nil)
            return f.outcome(actions)
        }),
        ("downloadDone", { f in
            let actions = f.machine.downloadFinished(.success(URL(fileURLWithPath: "/tmp/x")))
            return f.outcome(actions)
        }),
        // The cache's stale entry, given while the first request is prepared (RFC 9111 §4.3.1):
        // it asks for nothing; whether the machine kept it is the outcome.
        ("revalidating", { f in
            let stored = CachedResponse(response: MachineFixture.response(), data: Data("stored".utf8))
            f.machine.revalidating(stored)
            return f.outcome(.none) + (f.machine.revalidating != nil ? " revalidating" : " refused")
        }),
    ]

    static let expected: [MachineFixture.Named: [String: String]] = TaskStateMachineMatrixTable.rows

    @Test(arguments: MachineFixture.Named.allCases)
    func everyEventIsHandledOrRefused(_ state: MachineFixture.Named) throws {
        let row = try #require(Self.expected[state], "no row for \(state)")
        for (name, event) in Self.events {
            var fixture = MachineFixture.reach(state)
            #expect(fixture.stateName == state.rawValue, "reaching \(state)")
            let seen = event(&fixture)
            #expect(seen == row[name], "\(state) + \(name)")
        }
        #expect(Set(row.keys) == Set(Self.events.map(\.0)), "the row for \(state) names every event")
    }
}

extension MachineFixture {
    /// `"<state after>: <actions>"`.
    func outcome(_ actions: MachineActions) -> String {
        "\(stateName): \(names(actions).joined(separator: ","))"
    }
}
