import CourierCore
import CourierHTTP1
import Testing

@testable import CourierClient

/// ``RedirectHold`` without sockets: every event in every state, and the orderings of body
/// parts, the body's end and the handler's answer.
@Suite struct RedirectHoldTests {
    typealias Hold = RedirectHold<String>

    static func bytes(_ s: String) -> ByteBuffer { ByteBuffer(string: s) }
    static let trailers: HTTPFields = ["X-Trailer": "t"]

    static func heldString(_ action: Hold.AnswerAction) -> String? {
        guard case .deliver(let held?, _, _) = action else { return nil }
        return String(decoding: held.readableBytesArray(), as: UTF8.self)
    }

    @Test func passingDeliversPartsAndFinishes() {
        var hold = Hold()
        #expect(hold.isPassing)
        #expect(hold.bodyPart(Self.bytes("a")) == .deliver)
        guard case .finish = hold.end(trailers: Self.trailers) else { Issue.record("not finished"); return }
        guard case .ignore = hold.answerStop() else { Issue.record("an answer without a decision counts"); return }
        guard case .ignore = hold.answerFollow("next") else { Issue.record("an answer without a decision counts"); return }
    }

    @Test func followedWithoutHandlerDropsTheBodyThenFollows() {
        var hold = Hold()
        hold.follow("next")
        #expect(!hold.isPassing && !hold.isDeciding)
        #expect(hold.bodyPart(Self.bytes("moved")) == .drop)
        guard case .follow("next") = hold.end(trailers: HTTPFields()) else { Issue.record("not followed"); return }
        #expect(hold.isPassing)
        guard case .ignore = hold.answerStop() else { Issue.record("a late answer counts"); return }
    }

    @Test func partsWhileDecidingAreHeldAndPauseReading() {
        var hold = Hold()
        hold.startDeciding()
        #expect(hold.isDeciding)
        #expect(hold.bodyPart(Self.bytes("mo")) == .holdAndPause)
        // One more part parsed before the pause took effect: appended, not dropped.
        #expect(hold.bodyPart(Self.bytes("ved")) == .holdAndPause)
        let action = hold.answerStop()
        #expect(Self.heldString(action) == "moved")
        guard case .deliver(_, nil, true) = action else { Issue.record("\(action)"); return }
        #expect(hold.isPassing)
        #expect(hold.bodyPart(Self.bytes("more")) == .deliver)
    }

    @Test func stopBeforeAnyPartDeliversTheHeadOnly() {
        var hold = Hold()
        hold.startDeciding()
        guard case .deliver(nil, nil, false) = hold.answerStop() else { Issue.record("expected nothing held, no resume"); return }
        #expect(hold.bodyPart(Self.bytes("body")) == .deliver)
    }

    @Test func stopAfterTheEndDeliversEverythingAndFinishes() {
        var hold = Hold()
        hold.startDeciding()
        _ = hold.bodyPart(Self.bytes("moved"))
        guard case .wait = hold.end(trailers: Self.trailers) else { Issue.record("the end did not wait"); return }
        let action = hold.answerStop()
        #expect(Self.heldString(action) == "moved")
        // Ended: nothing to resume.
        guard case .deliver(_, let trailers?, false) = action else { Issue.record("\(action)"); return }
        #expect(trailers == Self.trailers)
    }

    @Test func emptyBodyEndedWhileDecidingThenStop() {
        var hold = Hold()
        hold.startDeciding()
        guard case .wait = hold.end(trailers: HTTPFields()) else { Issue.record("the end did not wait"); return }
        guard case .deliver(nil, _?, false) = hold.answerStop() else { Issue.record("expected the end only"); return }
    }

    @Test func followBeforeTheEndDiscardsTheRest() {
        var hold = Hold()
        hold.startDeciding()
        _ = hold.bodyPart(Self.bytes("mo"))
        guard case .discard(resume: true) = hold.answerFollow("next") else { Issue.record("not discarding"); return }
        #expect(hold.bodyPart(Self.bytes("ved")) == .drop)
        guard case .follow("next") = hold.end(trailers: HTTPFields()) else { Issue.record("not followed"); return }
    }

    @Test func followBeforeAnyPartDoesNotResume() {
        var hold = Hold()
        hold.startDeciding()
        guard case .discard(resume: false) = hold.answerFollow("next") else { Issue.record("resumed a reader never paused"); return }
    }

    @Test func followAfterTheEndFollowsAtOnce() {
        var hold = Hold()
        hold.startDeciding()
        _ = hold.bodyPart(Self.bytes("moved"))
        _ = hold.end(trailers: HTTPFields())
        guard case .follow("next") = hold.answerFollow("next") else { Issue.record("not followed"); return }
        #expect(hold.isPassing)
    }

    @Test func onlyTheFirstAnswerCounts() {
        var hold = Hold()
        hold.startDeciding()
        _ = hold.answerStop()
        guard case .ignore = hold.answerFollow("next") else { Issue.record("a second answer counted"); return }
        guard case .ignore = hold.answerStop() else { Issue.record("a second answer counted"); return }
    }

    @Test func resetForgetsADecision() {
        var hold = Hold()
        hold.startDeciding()
        _ = hold.bodyPart(Self.bytes("x"))
        hold.reset()
        #expect(hold.isPassing)
        guard case .ignore = hold.answerStop() else { Issue.record("an answer after reset counted"); return }
    }
}
