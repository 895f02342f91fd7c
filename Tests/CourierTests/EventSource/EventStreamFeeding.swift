import Courier
import CourierTestSupport
import Testing

/// What a parser made of a stream: its outputs in order, the error code it stopped with, and
/// its last event ID at the end.
struct ParsedStream: Equatable, CustomStringConvertible {
    var outputs: [EventStreamParser.Output] = []
    var error: String?
    var lastEventID = ""

    var events: [ServerSentEvent] {
        outputs.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    var retries: [Int] {
        outputs.compactMap { if case .retry(let milliseconds) = $0 { milliseconds } else { nil } }
    }

    var description: String { "\(outputs) error: \(error ?? "none") last id: \(lastEventID)" }
}

/// Feeds `pieces` to a fresh parser, stopping at the first error.
func parse(_ pieces: [[UInt8]], maximumEventBytes: Int = 1 << 20, lastEventID: String = "") -> ParsedStream {
    var parser = EventStreamParser(maximumEventBytes: maximumEventBytes, lastEventID: lastEventID)
    var result = ParsedStream()
    for piece in pieces {
        let failure: CourierError? = piece.withUnsafeBytes { raw in
            do throws(CourierError) { try parser.feed(raw, into: &result.outputs) } catch { return error }
            return nil
        }
        if let failure {
            result.error = failure.code.name
            break
        }
    }
    result.lastEventID = parser.lastEventID
    return result
}

/// Parses `input` fed every way and expects the same result from each; returns the whole
/// feeding's.
@discardableResult
func expectSameForEveryFeeding(
    _ input: [UInt8], maximumEventBytes: Int = 1 << 20, lastEventID: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) -> ParsedStream {
    let reference = parse([input], maximumEventBytes: maximumEventBytes, lastEventID: lastEventID)
    for feeding in Feeding.all(count: input.count) {
        let result = parse(feeding.pieces(input), maximumEventBytes: maximumEventBytes, lastEventID: lastEventID)
        #expect(result == reference, "feeding \(feeding) differs from whole", sourceLocation: sourceLocation)
        if result != reference { break }
    }
    return reference
}

/// ``expectSameForEveryFeeding(_:maximumEventBytes:lastEventID:sourceLocation:)`` for text.
@discardableResult
func expectSameForEveryFeeding(
    _ text: String, maximumEventBytes: Int = 1 << 20, lastEventID: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) -> ParsedStream {
    expectSameForEveryFeeding(Array(text.utf8), maximumEventBytes: maximumEventBytes, lastEventID: lastEventID, sourceLocation: sourceLocation)
}

func sse(_ data: String, type: String = "message", id: String = "") -> ServerSentEvent {
    ServerSentEvent(type: type, data: data, lastEventID: id)
}
