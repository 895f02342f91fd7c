@testable import Courier
@testable import CourierClient
import CourierCore
import FoundationEssentials
import Testing

/// The retrier's part of the task state machine, without sockets: which failures are put to
/// it, what a retry makes again, and what the metrics keep of each attempt.
@Suite struct TaskStateMachineRetryTests {
    typealias F = MachineFixture

    /// A machine of a task with a retrier, launched with an adapted request (a token field the
    /// adapter added): its first attempt is running and awaits the head.
    static func launched() -> F {
        var f = F(retrier: true)
        _ = f.machine.resume(deadline: nil)
        _ = f.machine.launch(adapted(f.machine.preparingRequest!))
        _ = f.machine.launched(f.transport, attempt: f.attempt)
        return f
    }

    static func adapted(_ request: Request) -> Request {
        var copy = request
        try! copy.setValue("Bearer t\(Int.random(in: 0..<1000))", forHTTPHeaderField: "Authorization")
        return copy
    }

    static func metrics(bytesSent: Int64) -> HTTPClientMetrics {
        var metrics = F.metrics()
        metrics.bytesSent = bytesSent
        return metrics
    }

    @Test(arguments: [Int64(0), 57])
    func aFailedAttemptIsPutToTheRetrierWithWhetherItsBytesWereSent(bytesSent: Int64) throws {
        var f = Self.launched()
        let actions = f.machine.transportFailed(CourierError(.transport, phase: .send), metrics: Self.metrics(bytesSent: bytesSent), attempt: f.attempt)
        #expect(f.names(actions) == ["askRetrier(0,transport)"])
        guard case .askRetrier(let context)? = actions.first else { Issue.record("no question"); return }
        #expect(context.requestBytesSent == (bytesSent > 0))
        #expect(context.request.value(forHTTPHeaderField: "Authorization") != nil, "the retrier sees the request as sent")
        #expect(f.machine.state == .running)
    }

    @Test func aRetryMakesTheRequestAgainAsItWasBeforeTheAdapterAndCountsEveryAttempt() {
        var f = Self.launched()
        _ = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: 1)
        #expect(f.names(f.machine.retryDecided(delay: 0)) == ["prepare"])
        // The adapter runs again on the request as the caller made it, not on its own output.
        #expect(f.machine.preparingRequest?.value(forHTTPHeaderField: "Authorization") == nil)
        let second = f.machine.launch(Self.adapted(f.machine.preparingRequest!))
        #expect(second == 2)
        _ = f.machine.launched(f.transport, attempt: 2)
        let failedAgain = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: 2)
        #expect(f.names(failedAgain) == ["askRetrier(1,transport)"], "the second question counts the first retry")
        #expect(f.names(f.machine.retryDecided(delay: nil)) == ["complete(transport)"])
        #expect(f.machine.metrics?.transactionMetrics.count == 2, "one transaction per attempt")
        #expect(f.machine.metrics?.retryCount == 1)
    }

    @Test func theRetriersOwnErrorTakesThePlaceOfTheFailure() {
        var f = Self.launched()
        _ = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: 1)
        let actions = f.machine.retryDecided(delay: nil, error: CourierError(.authenticationRefreshFailed))
        #expect(f.names(actions) == ["complete(authenticationRefreshFailed)"])
        #expect(f.machine.error?.phase == .adapt)
    }

    @Test func aRetryDecidedOnAHeadDropsTheBodyThenWaitsTheDelay() {
        var f = Self.launched()
        let taken = f.machine.receivedHead(attempt: 1, transport: f.transport)
        #expect(taken)
        let held = f.machine.receivedBodyPart(F.part("busy"), attempt: 1, transport: f.transport)
        #expect(held.demand == .pause)
        #expect(f.names(f.machine.decided(.retry(after: 1.5), attempt: 1)) == ["resumeReading"])
        // The rest of the 503's body is read and dropped, so the connection can be reused.
        let more = f.machine.receivedBodyPart(F.part("more"), attempt: 1, transport: f.transport)
        #expect(more.demand == .more)
        #expect(f.names(f.machine.transportFinished(metrics: F.metrics(), attempt: 1)) == ["prepareAfter(1.5)"])
        #expect(f.machine.retryCount == 1)
        #expect(f.machine.body.isEmpty, "nothing of the dropped response is the task's")
        #expect(f.machine.preparingRequest?.value(forHTTPHeaderField: "Authorization") == nil)
        // The next head has no delay left over.
        _ = f.machine.launch(f.machine.preparingRequest!)
        _ = f.machine.launched(f.transport, attempt: 2)
        _ = f.machine.receivedHead(attempt: 2, transport: f.transport)
        _ = f.machine.decided(.retry(after: 0), attempt: 2)
        #expect(f.names(f.machine.transportFinished(metrics: F.metrics(), attempt: 2)) == ["prepare"])
        #expect(f.machine.retryCount == 2)
    }

    @Test func aFailureAfterPartOfADeliveredBodyStartsTheRetryFromNothing() {
        var f = Self.launched()
        _ = f.machine.receivedHead(attempt: 1, transport: f.transport)
        _ = f.machine.decided(.deliver(f.delivery()), attempt: 1)
        _ = f.machine.receivedBodyPart(F.part("part"), attempt: 1, transport: f.transport)
        let asked = f.machine.transportFailed(CourierError(.transport, phase: .receive), metrics: F.metrics(), attempt: 1)
        guard case .askRetrier(let context)? = asked.first else { Issue.record("no question"); return }
        #expect(context.response?.statusCode == 200, "the retrier sees the response that broke off")
        _ = f.machine.retryDecided(delay: 0)
        #expect(f.machine.response == nil)
        #expect(f.machine.body.isEmpty)
    }

    @Test func aDownloadThatStartedItsFileIsNotRetried() {
        var f = F(kind: .download, retrier: true)
        _ = f.machine.resume(deadline: nil)
        _ = f.machine.launch(f.machine.preparingRequest!)
        _ = f.machine.launched(f.transport, attempt: 1)
        _ = f.machine.receivedHead(attempt: 1, transport: f.transport)
        _ = f.machine.decided(.deliver(f.delivery()), attempt: 1)
        let actions = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: 1)
        #expect(f.names(actions) == ["complete(transport)"], "its resume data says how to go on")
    }

    @Test func aTaskWithoutARetrierFailsAtOnce() {
        var f = F.reach(.awaitingHead)
        let actions = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: f.attempt)
        #expect(f.names(actions) == ["complete(transport)"])
    }

    @Test func aCancelWhileTheRetrierDecidesEndsTheTaskAndItsAnswerIsIgnored() {
        var f = Self.launched()
        _ = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: 1)
        #expect(f.names(f.machine.cancel()) == ["complete(cancelled)"])
        #expect(f.names(f.machine.retryDecided(delay: 0)).isEmpty)
        #expect(f.machine.preparingRequest == nil, "no attempt is prepared for a cancelled task")
    }
}
