@testable import Courier
import CourierClient
import CourierCore
import FoundationEssentials
import Testing

/// The orderings the socket tests found, replayed on the task state machine alone: each is a
/// sequence of events in one order, with what the machine must ask for.
@Suite struct TaskStateMachineRaceTests {
    typealias F = MachineFixture

    @Test func cancelRacingTheEndOfTheResponseWins() {
        var f = F.reach(.delivering)
        #expect(f.names(f.machine.cancel()) == ["cancelTransport"])
        #expect(f.machine.state == .canceling)
        // The transport had already finished the response when the cancel reached it.
        let actions = f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)
        #expect(f.names(actions) == ["complete(cancelled)"])
        #expect(f.machine.transactions.count == 1, "the attempt's metrics are kept")
        #expect(f.machine.state == .completed)
    }

    @Test func partsArrivingWhileAHookDecidesAreHeldThenDelivered() {
        var f = F.reach(.deciding)
        let first = f.machine.receivedBodyPart(F.part("ab"), attempt: f.attempt, transport: f.transport)
        #expect(first.demand == .pause)
        // One more part may come before the transport stops: kept, never dropped.
        let second = f.machine.receivedBodyPart(F.part("cd"), attempt: f.attempt, transport: f.transport)
        #expect(second.demand == .pause)
        let actions = f.machine.decided(.deliver(f.delivery()), attempt: f.attempt)
        #expect(f.names(actions) == ["announce(0/4)", "report(4)", "forwardData", "resumeReading"])
        #expect(String(decoding: f.machine.body, as: UTF8.self) == "abcd")
    }

    @Test func aResponseThatEndsWhileAHookDecidesCompletesWithTheDecision() {
        var f = F.reach(.decidingHeld)
        #expect(f.names(f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)).isEmpty)
        let actions = f.machine.decided(.deliver(f.delivery()), attempt: f.attempt)
        #expect(f.names(actions) == ["announce(0/4)", "report(4)", "forwardData", "complete(ok)"])
        #expect(String(decoding: f.machine.body, as: UTF8.self) == "held")
    }

    @Test func suspendDuringARedirectPausesTheNextResponse() {
        // The transport follows redirects within one attempt; the task hears of each hop.
        var f = F.reach(.awaitingHead)
        #expect(f.names(f.machine.suspend()) == ["publishSuspended"])
        f.machine.redirected(to: Request(url: F.redirectURL), metrics: F.metrics(), attempt: f.attempt, transport: f.transport)
        #expect(f.machine.redirectCount == 1)
        #expect(f.machine.transactions.count == 1, "the redirect's own transaction")
        #expect(f.machine.currentRequest.url == F.redirectURL)
        let taken = f.machine.receivedHead(attempt: f.attempt, transport: f.transport)
        #expect(taken)
        _ = f.machine.decided(.deliver(f.delivery()), attempt: f.attempt)
        let part = f.machine.receivedBodyPart(F.part("body"), attempt: f.attempt, transport: f.transport)
        #expect(part.demand == .pause, "still suspended")
        #expect(f.names(f.machine.resume(deadline: nil)) == ["publishResumed", "resumeReading"])
        let done = f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)
        #expect(f.names(done) == ["complete(ok)"])
        #expect(f.machine.metrics?.transactionMetrics.count == 2)
        #expect(f.machine.metrics?.redirectCount == 1)
    }

    @Test func anAuthenticationRetryIsANewAttemptAndSuspensionCarriesOver() {
        var f = F.reach(.deciding)
        #expect(f.names(f.machine.suspend()) == ["publishSuspended"])
        let next = Request(url: F.url)
        #expect(f.names(f.machine.decided(.follow(next, .authentication), attempt: f.attempt)).isEmpty)
        // The 401's body is dropped even while suspended, so the connection stays reusable.
        let dropped = f.machine.receivedBodyPart(F.part("who are you"), attempt: f.attempt, transport: f.transport)
        #expect(dropped.demand == .more)
        #expect(f.names(f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)) == ["prepare"])
        let attempt = f.machine.launch(next)
        #expect(attempt == 2)
        _ = f.machine.launched(f.transport, attempt: 2)
        let taken = f.machine.receivedHead(attempt: 2, transport: f.transport)
        #expect(taken)
        _ = f.machine.decided(.deliver(f.delivery()), attempt: 2)
        let part = f.machine.receivedBodyPart(F.part("body"), attempt: 2, transport: f.transport)
        #expect(part.demand == .pause, "still suspended")
        #expect(f.names(f.machine.resume(deadline: nil)) == ["publishResumed", "resumeReading"])
        #expect(f.machine.authenticationFailures == 1)
    }

    @Test func callbacksBeforeExecuteReturnedAdoptTheHandle() {
        var f = F.reach(.launching)
        let taken = f.machine.receivedHead(attempt: f.attempt, transport: f.transport)
        #expect(taken)
        #expect(f.names(f.machine.launched(f.transport, attempt: f.attempt)).isEmpty, "already adopted: nothing to cancel")
        #expect(f.names(f.machine.cancel()) == ["cancelTransport"])
    }

    @Test func cancelWhileLaunchingCancelsTheHandleWhenItArrives() {
        var f = F.reach(.launching)
        #expect(f.names(f.machine.cancel()).isEmpty)
        #expect(f.names(f.machine.launched(f.transport, attempt: f.attempt)) == ["cancelTransport"])
        let failed = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: f.attempt)
        #expect(f.names(failed) == ["complete(cancelled)"], "the cancellation, not the transport's error")
    }

    @Test func aHandleForATaskThatEndedIsCancelled() {
        var f = F.reach(.launching)
        // The transport failed before `execute` returned (a client already shut down).
        _ = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: f.attempt)
        #expect(f.names(f.machine.launched(f.transport, attempt: f.attempt)) == ["cancelTransport"])
    }

    @Test func aDecisionAfterCancelClosesTheSinkItOpened() {
        var f = F(kind: .download)
        f.drive(to: .deciding)
        _ = f.machine.cancel()
        let late = TaskDelivery<FakeSink>(response: F.response(), sink: f.sink, resumeOffset: 10, total: 4, validator: nil)
        #expect(f.names(f.machine.decided(.deliver(late), attempt: f.attempt)) == ["abandonSink"])
        guard case .abandonSink(_, let keep) = f.machine.decided(.deliver(late), attempt: f.attempt).first else {
            Issue.record("no abandonSink")
            return
        }
        #expect(keep, "a resumed download's partial file is kept")
    }

    @Test func cancelAfterTheResponseEndedWhileDecidingCompletesAtOnce() {
        var f = F.reach(.deciding)
        _ = f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)
        #expect(f.names(f.machine.cancel()) == ["complete(cancelled)"], "no transport is left to confirm")
    }

    @Test func aFullSinkPausesReadingUntilItDrains() {
        var f = F(kind: .download)
        f.drive(to: .delivering)
        let outcome = f.machine.receivedBodyPart(F.part("abcd"), attempt: f.attempt, transport: f.transport)
        #expect(f.names(outcome.actions) == ["write", "report(4)"])
        _ = f.machine.partWritten(busy: true, held: false, attempt: f.attempt)
        #expect(f.machine.demand(attempt: f.attempt) == .pause)
        // A resume by the caller does not override the sink.
        _ = f.machine.suspend()
        #expect(f.names(f.machine.resume(deadline: nil)) == ["publishResumed"])
        #expect(f.names(f.machine.sinkDrained()) == ["resumeReading"])
        #expect(f.names(f.machine.sinkDrained()).isEmpty, "a second drain resumes nothing")
    }

    @Test func aHeldPartIsWrittenBeforeReadingResumesOrTheFileFinishes() {
        var f = F(kind: .download)
        f.drive(to: .decidingHeld)
        let actions = f.machine.decided(.deliver(f.delivery()), attempt: f.attempt)
        #expect(f.names(actions) == ["announce(0/4)", "writeHeld", "report(4)"])
        // The caller resumes meanwhile: the held part still goes first.
        _ = f.machine.suspend()
        #expect(f.names(f.machine.resume(deadline: nil)) == ["publishResumed"])
        #expect(f.names(f.machine.partWritten(busy: false, held: true, attempt: f.attempt)) == ["resumeReading"])
        _ = f.machine.receivedBodyPart(F.part("tail"), attempt: f.attempt, transport: f.transport)
        #expect(f.names(f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)) == ["finishDownload"])
        #expect(f.names(f.machine.cancel()).isEmpty, "too late to cancel while the file is finished")
        let done = f.machine.downloadFinished(.success(URL(fileURLWithPath: "/tmp/done")))
        #expect(f.names(done) == ["complete(ok)"])
    }

    @Test func aBodyPastTheLimitStopsTheTransportAndFails() {
        var f = F(kind: .data, bodyLimit: 3)
        f.drive(to: .delivering)
        let outcome = f.machine.receivedBodyPart(F.part("abcd"), attempt: f.attempt, transport: f.transport)
        #expect(f.names(outcome.actions) == ["cancelTransport", "complete(bodyTooLarge)"])
        // The cancelled transport's failure comes later and is ignored.
        #expect(f.names(f.machine.transportFailed(CourierError(.cancelled), metrics: F.metrics(), attempt: f.attempt)).isEmpty)
    }

    @Test func aFailedDownloadWithAValidatorLeavesResumeData() throws {
        var f = F(kind: .download)
        f.drive(to: .deciding)
        let delivery = TaskDelivery<FakeSink>(
            response: F.response(200, [("ETag", "\"v1\"")]), sink: f.sink, resumeOffset: 0, total: 10, validator: "\"v1\"")
        _ = f.machine.decided(.deliver(delivery), attempt: f.attempt)
        let outcome = f.machine.receivedBodyPart(F.part("abcd"), attempt: f.attempt, transport: f.transport)
        _ = f.machine.partWritten(busy: false, held: false, attempt: f.attempt)
        #expect(outcome.demand == .more)
        let failed = f.machine.transportFailed(CourierError(.transport), metrics: F.metrics(), attempt: f.attempt)
        guard case .complete(let ending) = failed.first else {
            Issue.record("no completion")
            return
        }
        #expect(ending.abandonSink === f.sink)
        #expect(ending.keepFile)
        let resume = try #require(ending.outcome.resumeData.flatMap(ResumeData.decode))
        #expect(resume.bytesReceived == 4)
        #expect(resume.validator == "\"v1\"")
        #expect(resume.temporaryFilePath == "/nonexistent/partial")
    }

    @Test func aFailedDownloadWithoutAValidatorDropsItsFile() {
        var f = F(kind: .download)
        f.drive(to: .delivering)
        _ = f.machine.receivedBodyPart(F.part("abcd"), attempt: f.attempt, transport: f.transport)
        #expect(f.names(f.machine.cancel()) == ["cancelTransport"], "the transport confirms first")
        let failed = f.machine.transportFailed(CourierError(.cancelled), metrics: F.metrics(), attempt: f.attempt)
        guard case .complete(let ending) = failed.first else {
            Issue.record("no completion")
            return
        }
        #expect(ending.outcome.error?.code == .cancelled)
        #expect(ending.outcome.resumeData == nil)
        #expect(ending.abandonSink === f.sink)
        #expect(!ending.keepFile)
    }

    @Test func theMetricsHaveOneTransactionPerAttempt() {
        var f = F.reach(.discarding)
        _ = f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)
        _ = f.machine.launch(Request(url: F.redirectURL))
        _ = f.machine.launched(f.transport, attempt: f.attempt)
        _ = f.machine.receivedHead(attempt: f.attempt, transport: f.transport)
        _ = f.machine.decided(.deliver(f.delivery()), attempt: f.attempt)
        let done = f.machine.transportFinished(metrics: F.metrics(), attempt: f.attempt)
        #expect(f.names(done) == ["complete(ok)"])
        #expect(f.machine.metrics?.transactionMetrics.count == 2)
        #expect(f.machine.authenticationFailures == 1)
        #expect(f.machine.redirectCount == 0)
    }

    @Test func aCachedAnswerCompletesWithoutTheNetwork() {
        var f = F.reach(.preparing)
        let actions = f.machine.answeredFromCache(F.response(), data: Data("hit".utf8))
        #expect(f.names(actions) == ["announce(3/3)", "complete(ok)"])
        #expect(f.machine.metrics?.transactionMetrics.isEmpty == true)
    }
}
