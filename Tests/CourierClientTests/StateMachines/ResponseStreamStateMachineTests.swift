import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// `ResponseStreamStateMachine` without sockets: every event in every state.
@Suite("ResponseStreamStateMachine")
struct ResponseStreamStateMachineTests {
    typealias Machine = ResponseStreamStateMachine<Int, Int>

    static let head = HTTPClientResponseHead(version: .http1_1, status: 200, reason: "OK", headers: HTTPFields(), framing: .contentLength(10), isKeepAlive: true)
    static let metrics = HTTPClientMetrics(fetchStart: .now())
    static let cancelled = ClientError(.cancelled)
    static let reset = ClientError(.remoteClosedDuringBody)

    static func part(_ count: Int) -> ByteBuffer { ByteBuffer(bytes: [UInt8](repeating: 7, count: count)) }

    /// An action in words, for comparisons.
    static func describe(_ action: Machine.Action) -> String {
        switch action {
        case .none: "none"
        case .startRequest: "start"
        case .succeedHead(let w, let head): "head(\(w), \(head.status))"
        case .failHead(let w, let error): "failHead(\(w), \(error.code))"
        case .resumeBody(let w, .success(let part?)): "part(\(w), \(part.readableBytes))"
        case .resumeBody(let w, .success(nil)): "end(\(w))"
        case .resumeBody(let w, .failure(let error)): "failBody(\(w), \(error.code))"
        case .resumeBodyAndReading(let w, let part): "part(\(w), \(part.readableBytes), resumeReading)"
        case .resumeReading: "resumeReading"
        case .cancelRequest(let h, let b, let error): "cancel(head: \(h.map(String.init) ?? "-"), body: \(b.map(String.init) ?? "-"), \(error.code))"
        }
    }

    static func describe(_ next: Machine.Next) -> String {
        switch next {
        case .part(let part, let resume): "part(\(part.readableBytes)\(resume ? ", resumeReading" : ""))"
        case .end: "end"
        case .error(let error): "error(\(error.code))"
        case .wait: "wait"
        }
    }

    // MARK: Machines in each state

    static func idle() -> Machine { Machine(highWater: 100, lowWater: 40) }

    static func waitingForHead() -> Machine {
        var m = idle()
        _ = m.start(1)
        return m
    }

    static func streaming(buffered: [Int] = [], waiting: Bool = false) -> Machine {
        var m = waitingForHead()
        _ = m.receivedHead(head)
        let first = m.makeIterator()
        #expect(first)
        for count in buffered { _ = m.receivedBodyPart(part(count)) }
        if waiting {
            #expect(describe(m.next()) == "wait")
            _ = m.waitForPart(2)
        }
        return m
    }

    static func finished() -> Machine {
        var m = streaming()
        _ = m.finished(trailers: HTTPFields(), metrics: metrics)
        return m
    }

    static func failed(reported: Bool) -> Machine {
        var m = streaming()
        _ = m.failed(reset, metrics: metrics)
        if reported { _ = m.next() }
        return m
    }

    // MARK: idle

    @Test func idle_start_startsTheRequest() {
        var m = Self.idle()
        #expect(Self.describe(m.start(1)) == "start")
        guard case .waitingForHead(1) = m.state else { Issue.record("\(m.state)"); return }
    }

    @Test func idle_cancel_thenStart_startsNothing() {
        var m = Self.idle()
        #expect(Self.describe(m.cancel(Self.cancelled)) == "none")
        #expect(Self.describe(m.start(1)) == "failHead(1, cancelled)")
    }

    @Test func idle_deliveryEventsAreIgnored() {
        var m = Self.idle()
        #expect(Self.describe(m.receivedHead(Self.head)) == "none")
        #expect(m.receivedBodyPart(Self.part(3)).1 == .pause)
        #expect(Self.describe(m.finished(trailers: HTTPFields(), metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.failed(Self.reset, metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.next()) == "error(invalidRequest)")
        guard case .idle = m.state else { Issue.record("\(m.state)"); return }
    }

    // MARK: waitingForHead

    @Test func waitingForHead_head_resumesTheCaller() {
        var m = Self.waitingForHead()
        #expect(Self.describe(m.receivedHead(Self.head)) == "head(1, 200)")
        guard case .streaming = m.state else { Issue.record("\(m.state)"); return }
    }

    @Test func waitingForHead_failure_failsTheCaller() {
        var m = Self.waitingForHead()
        #expect(Self.describe(m.failed(Self.reset, metrics: Self.metrics)) == "failHead(1, remoteClosedDuringBody)")
        #expect(m.metrics != nil)
    }

    @Test func waitingForHead_finishWithoutHead_failsTheCaller() {
        var m = Self.waitingForHead()
        #expect(Self.describe(m.finished(trailers: HTTPFields(), metrics: Self.metrics)) == "failHead(1, unexpectedResponse)")
    }

    @Test func waitingForHead_cancel_cancelsTheRequestAndFailsTheCaller() {
        var m = Self.waitingForHead()
        #expect(Self.describe(m.cancel(Self.cancelled)) == "cancel(head: 1, body: -, cancelled)")
        // The execution's own failure that follows changes nothing but the metrics.
        #expect(Self.describe(m.failed(ClientError(.cancelled, detail: "later"), metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.receivedHead(Self.head)) == "none")
        #expect(m.metrics != nil)
    }

    @Test func waitingForHead_secondStartAndEarlyReadsAreRefused() {
        var m = Self.waitingForHead()
        #expect(Self.describe(m.start(9)) == "failHead(9, invalidRequest)")
        #expect(Self.describe(m.next()) == "error(invalidRequest)")
        #expect(m.receivedBodyPart(Self.part(1)).1 == .pause)
    }

    // MARK: streaming

    @Test func streaming_partsAreBufferedAndThePeerPausedAtTheHighWaterMark() {
        var m = Self.streaming()
        #expect(m.receivedBodyPart(Self.part(60)).1 == .more)
        #expect(m.receivedBodyPart(Self.part(60)).1 == .pause)
        // The consumer takes one part: 60 left, above the low-water mark, still paused.
        #expect(Self.describe(m.next()) == "part(60)")
        #expect(m.receivedBodyPart(Self.part(30)).1 == .pause, "a part already read when the pause was asked")
        // 90 buffered; taking 60 leaves 30 ≤ 40: reading resumes, once.
        #expect(Self.describe(m.next()) == "part(60, resumeReading)")
        #expect(Self.describe(m.next()) == "part(30)")
        #expect(Self.describe(m.next()) == "wait")
    }

    @Test func streaming_aWaitingConsumerGetsThePartDirectly() {
        var m = Self.streaming(waiting: true)
        let (action, demand) = m.receivedBodyPart(Self.part(5))
        #expect(Self.describe(action) == "part(2, 5)")
        #expect(demand == .more)
        #expect(Self.describe(m.next()) == "wait")
    }

    @Test func streaming_waitingWhilePausedResumesReading() {
        var m = Self.streaming(buffered: [100])
        #expect(Self.describe(m.next()) == "part(100, resumeReading)")
        var p = Self.streaming(buffered: [100])
        // A part taken with the buffer at the high-water mark and nothing left: the resume comes
        // from waiting (here the `next` that emptied it already resumed).
        _ = p.next()
        #expect(Self.describe(p.next()) == "wait")
        #expect(Self.describe(p.waitForPart(2)) == "none")
    }

    @Test func streaming_waitForPartAfterDataArrived_resumesAtOnce() {
        var m = Self.streaming()
        #expect(Self.describe(m.next()) == "wait")
        // A part arrives between `next` and `waitForPart` (another thread).
        _ = m.receivedBodyPart(Self.part(4))
        #expect(Self.describe(m.waitForPart(2)) == "part(2, 4)")
    }

    /// A part arrives between `next` and `waitForPart` and fills the buffer to the high-water
    /// mark (the connection is told to pause): handing it to the waiter must resume reading.
    @Test func streaming_waitForPartAfterTheBufferFilled_resumesReadingToo() {
        var m = Self.streaming()
        #expect(Self.describe(m.next()) == "wait")
        #expect(m.receivedBodyPart(Self.part(100)).1 == .pause)
        #expect(Self.describe(m.waitForPart(2)) == "part(2, 100, resumeReading)")
        #expect(m.receivedBodyPart(Self.part(1)).1 == .more)
    }

    @Test func streaming_aSecondConcurrentReaderIsRefused() {
        var m = Self.streaming(waiting: true)
        #expect(Self.describe(m.next()) == "error(invalidRequest)")
    }

    @Test func streaming_finishWithWaiter_endsIt() {
        var m = Self.streaming(waiting: true)
        var trailers = HTTPFields()
        try? trailers.append(name: "Checksum", value: "abc")
        #expect(Self.describe(m.finished(trailers: trailers, metrics: Self.metrics)) == "end(2)")
        #expect(m.trailers?[first: "Checksum"] == "abc")
        #expect(m.metrics != nil)
        #expect(Self.describe(m.next()) == "end")
    }

    @Test func streaming_finishWithBufferedParts_handsThemOutFirst() {
        var m = Self.streaming(buffered: [3, 4])
        #expect(Self.describe(m.finished(trailers: HTTPFields(), metrics: Self.metrics)) == "none")
        #expect(m.trailers == nil, "trailers come after the last part was read")
        #expect(m.metrics != nil, "metrics are there once the request ended")
        #expect(Self.describe(m.next()) == "part(3)")
        #expect(Self.describe(m.next()) == "part(4)")
        #expect(m.trailers != nil)
        #expect(Self.describe(m.next()) == "end")
        #expect(m.receivedBodyPart(Self.part(1)).1 == .pause)
    }

    @Test func streaming_failureWithWaiter_throwsOnceThenEnds() {
        var m = Self.streaming(waiting: true)
        #expect(Self.describe(m.failed(Self.reset, metrics: Self.metrics)) == "failBody(2, remoteClosedDuringBody)")
        #expect(Self.describe(m.next()) == "end")
    }

    @Test func streaming_failureWithBufferedParts_handsThemOutThenThrows() {
        var m = Self.streaming(buffered: [3])
        #expect(Self.describe(m.failed(Self.reset, metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.next()) == "part(3)")
        #expect(Self.describe(m.next()) == "error(remoteClosedDuringBody)")
        #expect(Self.describe(m.next()) == "end")
        #expect(m.trailers == nil)
    }

    @Test func streaming_cancel_cancelsTheRequestAndTheWaiter() {
        var m = Self.streaming(waiting: true)
        #expect(Self.describe(m.cancel(Self.cancelled)) == "cancel(head: -, body: 2, cancelled)")
        #expect(m.receivedBodyPart(Self.part(1)).1 == .pause)
        #expect(Self.describe(m.failed(Self.reset, metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.next()) == "end")
        #expect(m.metrics != nil)
    }

    @Test func streaming_cancelWithoutWaiter_throwsOnTheNextRead() {
        var m = Self.streaming(buffered: [5])
        #expect(Self.describe(m.cancel(Self.cancelled)) == "cancel(head: -, body: -, cancelled)")
        #expect(Self.describe(m.next()) == "error(cancelled)", "buffered parts are dropped")
        #expect(Self.describe(m.finished(trailers: HTTPFields(), metrics: Self.metrics)) == "none")
        #expect(m.trailers == nil)
    }

    @Test func streaming_cancelAfterTheRequestEnded_doesNotCancelIt() {
        var m = Self.streaming(buffered: [5])
        _ = m.finished(trailers: HTTPFields(), metrics: Self.metrics)
        #expect(Self.describe(m.cancel(Self.cancelled)) == "none")
        #expect(Self.describe(m.next()) == "error(cancelled)")
    }

    @Test func streaming_headAgainIsIgnored() {
        var m = Self.streaming()
        #expect(Self.describe(m.receivedHead(Self.head)) == "none")
        #expect(Self.describe(m.start(5)) == "failHead(5, invalidRequest)")
    }

    @Test func makeIterator_onlyOnce() {
        var m = Self.waitingForHead()
        _ = m.receivedHead(Self.head)
        let first = m.makeIterator()
        let second = m.makeIterator()
        #expect(first)
        #expect(!second)
    }

    // MARK: finished

    @Test func finished_everyEvent() {
        var m = Self.finished()
        #expect(Self.describe(m.next()) == "end")
        #expect(Self.describe(m.next()) == "end")
        #expect(Self.describe(m.waitForPart(3)) == "end(3)")
        #expect(Self.describe(m.cancel(Self.cancelled)) == "none")
        #expect(Self.describe(m.receivedHead(Self.head)) == "none")
        #expect(m.receivedBodyPart(Self.part(1)).1 == .pause)
        #expect(Self.describe(m.finished(trailers: HTTPFields(), metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.failed(Self.reset, metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.start(4)) == "failHead(4, invalidRequest)")
        #expect(m.trailers != nil)
    }

    // MARK: failed

    @Test(arguments: [false, true]) func failed_everyEvent(reported: Bool) {
        var m = Self.failed(reported: reported)
        #expect(Self.describe(m.waitForPart(3)) == (reported ? "end(3)" : "failBody(3, remoteClosedDuringBody)"))
        #expect(Self.describe(m.next()) == "end")
        #expect(Self.describe(m.cancel(Self.cancelled)) == "none")
        #expect(Self.describe(m.receivedHead(Self.head)) == "none")
        #expect(m.receivedBodyPart(Self.part(1)).1 == .pause)
        #expect(Self.describe(m.finished(trailers: HTTPFields(), metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.failed(Self.cancelled, metrics: Self.metrics)) == "none")
        #expect(Self.describe(m.start(4)) == "failHead(4, remoteClosedDuringBody)")
        #expect(m.trailers == nil)
        #expect(m.metrics != nil)
    }
}
