import Courier
import CourierTestSupport
import Testing

/// `EventStreamParser` against WHATWG HTML §9.2.6 ("Interpreting an event stream"), every case
/// fed whole, split in two at every byte and one byte at a time.
@Suite struct EventStreamParserTests {
    // MARK: Fields

    @Test func aDataLineAndABlankLineDispatchAMessage() {
        let parsed = expectSameForEveryFeeding("data: hello\n\n")
        #expect(parsed.outputs == [.event(sse("hello"))])
        #expect(parsed.error == nil)
    }

    @Test func severalDataLinesJoinWithLF() {
        #expect(expectSameForEveryFeeding("data: YHOO\ndata: +2\ndata: 10\n\n").events == [sse("YHOO\n+2\n10")])
    }

    @Test func theEventFieldSetsTheTypeForOneEventOnly() {
        let parsed = expectSameForEveryFeeding("event: add\ndata: 73857293\n\ndata: plain\n\nevent: remove\ndata: 2153\n\n")
        #expect(parsed.events == [sse("73857293", type: "add"), sse("plain"), sse("2153", type: "remove")])
    }

    @Test func anEmptyEventFieldMeansMessage() {
        #expect(expectSameForEveryFeeding("event:\ndata: x\n\nevent\ndata: y\n\n").events == [sse("x"), sse("y")])
    }

    @Test func theLastEventIDPersistsAcrossEventsUntilTheServerChangesIt() {
        let parsed = expectSameForEveryFeeding("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\n")
        #expect(parsed.events == [sse("a", id: "1"), sse("b", id: "1"), sse("c", id: "2"), sse("d", id: "")])
        #expect(parsed.lastEventID == "")
    }

    @Test func anIDContainingNULIsIgnored() {
        let parsed = expectSameForEveryFeeding(Array("id: 1\n\nid: a\u{0}b\ndata: x\n\n".utf8))
        #expect(parsed.events == [sse("x", id: "1")])
        #expect(parsed.lastEventID == "1")
    }

    @Test func theLastEventIDIsCommittedByABlankLineEvenWithoutAnEvent() {
        let committed = expectSameForEveryFeeding("id: 7\n\n")
        #expect(committed.events.isEmpty)
        #expect(committed.lastEventID == "7")
        // Without the blank line the event (and its id) never completed.
        #expect(expectSameForEveryFeeding("id: 8\ndata: x\n").lastEventID == "")
        #expect(expectSameForEveryFeeding("id: 9\ndata: x\n", lastEventID: "5").lastEventID == "5")
    }

    @Test func aParserForAReconnectionStartsFromTheLastEventID() {
        let parsed = expectSameForEveryFeeding("data: x\n\n", lastEventID: "41")
        #expect(parsed.events == [sse("x", id: "41")])
        #expect(parsed.lastEventID == "41")
    }

    @Test func retryTakesASCIIDigitsOnly() {
        let parsed = expectSameForEveryFeeding(
            "retry: 10\nretry: 1a\nretry:\nretry\nretry: -5\nretry:  20\nretry: 20 \nretry: 1.5\nretry:0\nretry: 007\ndata: x\n\n")
        #expect(parsed.retries == [10, 0, 7])
        // A retry field is not an event and does not end one.
        #expect(parsed.events == [sse("x")])
        #expect(parsed.outputs.last == .event(sse("x")))
    }

    @Test func anEnormousRetrySaturates() {
        #expect(expectSameForEveryFeeding("retry: 99999999999999999999999999999\n").retries == [Int.max])
    }

    @Test func unknownFieldsAndWrongCaseAreIgnored() {
        #expect(expectSameForEveryFeeding("foo: bar\nData: no\nDATA: no\nEvent: t\ndata: x\n\n").events == [sse("x")])
    }

    // MARK: Colons and spaces

    @Test func oneSpaceAfterTheColonIsRemovedAndNoMore() {
        let parsed = expectSameForEveryFeeding("data:no-space\n\ndata: one\n\ndata:  two\n\ndata:\tx\n\ndata: a:b: c\n\n")
        #expect(parsed.events == [sse("no-space"), sse("one"), sse(" two"), sse("\tx"), sse("a:b: c")])
    }

    @Test func aFieldWithoutAColonHasAnEmptyValue() {
        // The WHATWG example: two events, "" and "\n"; the last "data:" is never dispatched.
        let parsed = expectSameForEveryFeeding("data\n\ndata\ndata\n\ndata:")
        #expect(parsed.events == [sse(""), sse("\n")])
    }

    @Test func theSpaceAfterTheColonIsOptional() {
        // The WHATWG example: both events are "test".
        #expect(expectSameForEveryFeeding("data:test\n\ndata: test\n\n").events == [sse("test"), sse("test")])
    }

    // MARK: Comments

    @Test func commentLinesAreSkipped() {
        let parsed = expectSameForEveryFeeding(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n")
        // The WHATWG example: the third block has no blank line after it, so it never completes.
        #expect(parsed.events == [sse("first event", id: "1"), sse("second event", id: "")])
    }

    @Test func aCommentInsideAnEventDoesNotEndIt() {
        #expect(expectSameForEveryFeeding("data: a\n:keep-alive\ndata: b\n:\n\n").events == [sse("a\nb")])
    }

    @Test func aCommentLongerThanTheBoundIsFine() {
        let parsed = expectSameForEveryFeeding(":" + String(repeating: "c", count: 100) + "\ndata: ok\n\n", maximumEventBytes: 16)
        #expect(parsed.events == [sse("ok")])
        #expect(parsed.error == nil)
    }

    // MARK: Line ends

    @Test func crLFAndCRLFAllEndLines() {
        let parsed = expectSameForEveryFeeding("data: a\rdata: b\r\ndata: c\n\r\nevent: e\rdata: d\r\r")
        #expect(parsed.events == [sse("a\nb\nc"), sse("d", type: "e")])
    }

    @Test func aCRThenCRLFIsTwoLineEnds() {
        // CR ends "data: a", CR LF ends the blank line: one event, then "data: b" LF LF.
        #expect(expectSameForEveryFeeding("data: a\r\r\ndata: b\n\n").events == [sse("a"), sse("b")])
    }

    @Test func aCRAtTheEndOfOnePieceAndAnLFAtTheStartOfTheNextAreOneLineEnd() {
        // The split feedings cut between every CR and LF; this one spells it out.
        let pieces: [[UInt8]] = [Array("data: a\r".utf8), Array("\ndata: b\r".utf8), Array("\n\r".utf8), Array("\n".utf8)]
        #expect(parse(pieces).events == [sse("a\nb")])
        #expect(parse(pieces) == parse([Array(pieces.joined())]))
    }

    @Test func anUnfinishedEventIsNotDispatched() {
        #expect(expectSameForEveryFeeding("data: x\n").events.isEmpty)
        #expect(expectSameForEveryFeeding("data: x").events.isEmpty)
        #expect(expectSameForEveryFeeding("data: x\n\ndata: y\r").events == [sse("x")])
    }

    @Test func anEventWithAnEmptyDataBufferIsNotDispatched() {
        let parsed = expectSameForEveryFeeding("event: e\n\nid: 1\n\n\n\n\ndata: x\n\n")
        #expect(parsed.events == [sse("x", id: "1")])
    }

    // MARK: Byte order mark and UTF-8

    @Test func aLeadingBOMIsStrippedOnce() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(expectSameForEveryFeeding(bom + Array("data: x\n\n".utf8)).events == [sse("x")])
        // A second BOM belongs to the first field name, which is then unknown.
        #expect(expectSameForEveryFeeding(bom + bom + Array("data: x\n\ndata: y\n\n".utf8)).events == [sse("y")])
        // A BOM after the start is text.
        #expect(expectSameForEveryFeeding(Array("data: x\n\n".utf8) + bom + Array("data: y\n\n".utf8)).events == [sse("x")])
        #expect(expectSameForEveryFeeding(Array("data: ".utf8) + bom + Array("y\n\n".utf8)).events == [sse("\u{FEFF}y")])
    }

    @Test func aPartialBOMIsText() {
        // EF BB then "data": the field name is not "data".
        #expect(expectSameForEveryFeeding([0xEF, 0xBB] + Array("data: x\n\ndata: y\n\n".utf8)).events == [sse("y")])
        // EF then a line end: a line of its own (an unknown field), then the event.
        #expect(expectSameForEveryFeeding([0xEF] + Array("\ndata: y\n\n".utf8)).events == [sse("y")])
        // A partial BOM then a colon is not a comment: the line is a field named EF.
        #expect(expectSameForEveryFeeding([0xEF] + Array(":x\ndata: y\n\n".utf8)).events == [sse("y")])
        // The stream is only a partial BOM.
        #expect(expectSameForEveryFeeding([0xEF, 0xBB]).outputs.isEmpty)
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        let parsed = expectSameForEveryFeeding(Array("data: a".utf8) + [0xFF] + Array("b\nevent: ".utf8) + [0xC3] + Array("\n\n".utf8))
        #expect(parsed.events == [sse("a\u{FFFD}b", type: "\u{FFFD}")])
    }

    @Test func multiByteCharactersSurviveEveryCut() {
        #expect(expectSameForEveryFeeding("id: é\nevent: ü\ndata: 日本🎉\n\n").events == [sse("日本🎉", type: "ü", id: "é")])
    }

    // MARK: The bound

    @Test func anEventAtTheBoundIsDispatched() {
        // "data: 0123456789" is 16 bytes.
        let parsed = expectSameForEveryFeeding("data: 0123456789\n\n", maximumEventBytes: 16)
        #expect(parsed.events == [sse("0123456789")])
        #expect(parsed.error == nil)
    }

    @Test func aLineOverTheBoundFailsTheStream() {
        let parsed = expectSameForEveryFeeding("data: a\n\ndata: 01234567890\n\ndata: never\n\n", maximumEventBytes: 16)
        #expect(parsed.events == [sse("a")])
        #expect(parsed.error == "eventTooLarge")
    }

    @Test func dataAccumulatedOverTheBoundFailsTheStream() {
        // 5 bytes of data ("0123\n"), then 10 + 5, then 8 + 10 > 16.
        let parsed = expectSameForEveryFeeding("data: 0123\ndata: 4567\ndata: 89\n\n", maximumEventBytes: 16)
        #expect(parsed.events.isEmpty)
        #expect(parsed.error == "eventTooLarge")
    }

    @Test func anEndlessLineFailsInsteadOfGrowing() {
        let parsed = expectSameForEveryFeeding(Array(repeating: UInt8(ascii: "d"), count: 300), maximumEventBytes: 64)
        #expect(parsed.error == "eventTooLarge")
    }

    @Test func aFailedParserKeepsFailing() {
        var parser = EventStreamParser(maximumEventBytes: 4)
        #expect(throws: CourierError.self) { _ = try parser.feed(Array("data: x".utf8)) }
        #expect(throws: CourierError.self) { _ = try parser.feed(Array("\n\n".utf8)) }
        do {
            _ = try parser.feed(Array("x".utf8))
            Issue.record("a failed parser accepted more")
        } catch {
            #expect(error.code == .eventTooLarge)
        }
    }

    @Test func memoryIsBoundedAcrossManyEvents() {
        // Many events, each within the bound: the limit is per event, not per stream.
        let text = String(repeating: "data: 0123456789\n\n", count: 40)
        #expect(expectSameForEveryFeeding(text, maximumEventBytes: 16).events.count == 40)
    }

    // MARK: Random streams

    @Test func randomStreamsGiveTheSameOutputsHoweverTheyAreCut() {
        var random = SplitMix64(seed: 0x55E)
        let alphabet: [[UInt8]] = ["data", "event", "id", "retry", ":", " ", "\r", "\n", "\r\n", "x", "7", "\u{FEFF}", "\u{0}", "é"]
            .map { Array($0.utf8) }
        for _ in 0..<300 {
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 0...40, using: &random) { stream += alphabet.randomElement(using: &random)! }
            let whole = parse([stream], maximumEventBytes: 24)
            var cuts = (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: 0...stream.count, using: &random) }.sorted()
            cuts.append(stream.count)
            var pieces: [[UInt8]] = []
            var start = 0
            for cut in cuts {
                pieces.append(Array(stream[start..<cut]))
                start = cut
            }
            #expect(parse(pieces, maximumEventBytes: 24) == whole, "cuts \(cuts) of \(stream)")
            #expect(parse(stream.map { [$0] }, maximumEventBytes: 24) == whole, "bytewise \(stream)")
        }
    }
}
