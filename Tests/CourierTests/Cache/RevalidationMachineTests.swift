@testable import Courier
@testable import CourierClient
import CourierCore
import FoundationEssentials
import Testing

/// The task machine's revalidation step, without sockets: a 304 to the conditional request
/// completes the task from the stored body with the updated head; anything else is delivered as
/// usual.
@Suite struct RevalidationMachineTests {
    typealias F = MachineFixture

    static let stored = CachedResponse(
        response: F.response(200, [("Cache-Control", "max-age=0"), ("ETag", "\"v1\""), ("X-State", "old")]), data: Data("stored".utf8))

    /// A machine revalidating ``stored``, its conditional attempt's head just arrived.
    static func awaitingDecision() -> (F, Int) {
        var f = F.reach(.preparing)
        f.machine.revalidating(stored)
        let attempt = f.machine.launch(CacheRules.conditionalRequest(Request(url: F.url), ["If-None-Match": "\"v1\""]))!
        _ = f.machine.launched(f.transport, attempt: attempt)
        _ = f.machine.receivedHead(attempt: attempt, transport: f.transport)
        return (f, attempt)
    }

    static func deliver(_ response: Response) -> TaskDecision<FakeSink> {
        .deliver(TaskDelivery(response: response, sink: nil, resumeOffset: 0, total: 0, validator: nil))
    }

    @Test func a304CompletesFromTheStoredBody() {
        var (f, attempt) = Self.awaitingDecision()
        let decided = f.machine.decided(Self.deliver(F.response(304, [("X-State", "new")])), attempt: attempt)
        #expect(f.names(decided) == ["announce(6/6)"])
        #expect(f.stateName == "servingStored")
        // A stray body part of the 304 is dropped, not appended.
        let part = f.machine.receivedBodyPart(F.part("junk"), attempt: attempt, transport: f.transport)
        #expect(part.actions.isEmpty)
        let ended = f.machine.transportFinished(metrics: F.metrics(), attempt: attempt)
        #expect(f.names(ended) == ["complete(ok)"])
        #expect(f.machine.response?.statusCode == 200)
        #expect(f.machine.response?.headers[first: "X-State"] == "new")
        #expect(f.machine.body == Data("stored".utf8))
        #expect(f.machine.metrics?.responseSource == .revalidated)
        #expect(f.machine.metrics?.transactionMetrics.count == 1)
    }

    @Test func a304WhoseEndCameFirstCompletesAtTheDecision() {
        var (f, attempt) = Self.awaitingDecision()
        _ = f.machine.transportFinished(metrics: F.metrics(), attempt: attempt)
        let decided = f.machine.decided(Self.deliver(F.response(304)), attempt: attempt)
        #expect(f.names(decided) == ["announce(6/6)", "complete(ok)"])
        #expect(f.machine.metrics?.responseSource == .revalidated)
    }

    @Test func anotherStatusIsDeliveredAsUsual() {
        var (f, attempt) = Self.awaitingDecision()
        _ = f.machine.decided(Self.deliver(F.response(200)), attempt: attempt)
        _ = f.machine.receivedBodyPart(F.part("new"), attempt: attempt, transport: f.transport)
        _ = f.machine.transportFinished(metrics: F.metrics(), attempt: attempt)
        #expect(f.machine.body == Data("new".utf8))
        #expect(f.machine.metrics?.responseSource == .network)
    }

    @Test func a304WithoutARevalidationIsTheResponse() {
        var f = F.reach(.preparing)
        let attempt = f.machine.launch(Request(url: F.url))!
        _ = f.machine.launched(f.transport, attempt: attempt)
        _ = f.machine.receivedHead(attempt: attempt, transport: f.transport)
        _ = f.machine.decided(Self.deliver(F.response(304)), attempt: attempt)
        _ = f.machine.transportFinished(metrics: F.metrics(), attempt: attempt)
        #expect(f.machine.response?.statusCode == 304)
        #expect(f.machine.metrics?.responseSource == .network)
    }

    @Test func aCacheAnswerSaysSo() {
        var f = F.reach(.preparing)
        _ = f.machine.answeredFromCache(F.response(), data: Data("hit".utf8))
        #expect(f.machine.metrics?.responseSource == .cache)
    }
}
