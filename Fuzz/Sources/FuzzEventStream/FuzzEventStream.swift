// Fuzzes the Server-Sent Events parser (Courier's EventStreamParser, WHATWG HTML §9.2.6): the
// same stream fed whole and cut into pieces must give the same events, retry values, error and
// last event ID; what it gives must be what a plain line-by-line reading of the spec gives (when
// the bound was not hit); nothing traps; a failed parser keeps failing; every event respects the
// grammar (no CR in data, no NUL/CR/LF in the ID, a non-empty type).
//
// Input layout:
//   byte  0     the bound on one event (maximumEventBytes): 1 MiB, 16, 64 or 1000 (low two bits);
//               bit 2: a parser that resumes from last event ID "r"
//   byte  1     feeding mode (low two bits: 1/2/3 cuts or bytewise)
//   bytes 2–7   three little-endian 16-bit cut selectors
//   bytes 8…    the stream
import Courier
import FuzzSupport

struct Parsed: Equatable, CustomStringConvertible {
    var outputs: [EventStreamParser.Output] = []
    var error: String?
    var lastEventID = ""

    var description: String {
        let lines = outputs.map { output -> String in
            switch output {
            case .event(let event):
                return "  event type=\(escaped(Array(event.type.utf8))) id=\(escaped(Array(event.lastEventID.utf8))) data=\(escaped(Array(event.data.utf8)))"
            case .retry(let milliseconds):
                return "  retry \(milliseconds)"
            }
        }
        return (lines + ["  error: \(error ?? "none") last id: \(escaped(Array(lastEventID.utf8)))"]).joined(separator: "\n")
    }
}

func parse(_ pieces: [ArraySlice<UInt8>], maximumEventBytes: Int, lastEventID: String) -> Parsed {
    var parser = EventStreamParser(maximumEventBytes: maximumEventBytes, lastEventID: lastEventID)
    var result = Parsed()
    for piece in pieces {
        let failure: CourierError? = piece.withUnsafeBytes { raw in
            do throws(CourierError) { try parser.feed(raw, into: &result.outputs) } catch { return error }
            return nil
        }
        if let failure {
            fuzzCheck(failure.code == .eventTooLarge, "unexpected error \(failure)")
            result.error = failure.code.name
            // A failed parser keeps failing, and produces nothing more.
            var more: [EventStreamParser.Output] = []
            let again: CourierError? = [UInt8(ascii: "\n"), UInt8(ascii: "\n")].withUnsafeBytes { raw in
                do throws(CourierError) { try parser.feed(raw, into: &more) } catch { return error }
                return nil
            }
            fuzzCheck(again?.code == .eventTooLarge && more.isEmpty, "a failed parser accepted more input")
            break
        }
    }
    result.lastEventID = parser.lastEventID
    return result
}

/// WHATWG HTML §9.2.6 read plainly over the whole stream: drop one leading BOM, cut lines at
/// CRLF, CR or LF, and apply each line. No bound.
func reference(_ stream: [UInt8], lastEventID initialID: String) -> Parsed {
    var bytes = stream[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    var lines: [ArraySlice<UInt8>] = []
    var start = bytes.startIndex
    var i = bytes.startIndex
    while i < bytes.endIndex {
        let byte = bytes[i]
        if byte == 0x0D || byte == 0x0A {
            lines.append(bytes[start..<i])
            if byte == 0x0D, i + 1 < bytes.endIndex, bytes[i + 1] == 0x0A { i += 1 }
            start = i + 1
        }
        i += 1
    }
    // What follows the last line end is an unfinished line: discarded.
    var result = Parsed()
    var data: [UInt8] = []
    var type: [UInt8] = []
    var idBuffer = initialID
    result.lastEventID = initialID
    for line in lines {
        if line.isEmpty {
            result.lastEventID = idBuffer
            if !data.isEmpty {
                data.removeLast()
                let event = ServerSentEvent(
                    type: type.isEmpty ? "message" : String(decoding: type, as: UTF8.self),
                    data: String(decoding: data, as: UTF8.self), lastEventID: idBuffer)
                result.outputs.append(.event(event))
            }
            data = []
            type = []
            continue
        }
        if line.first == UInt8(ascii: ":") { continue }
        var name = line
        var value: ArraySlice<UInt8> = []
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        }
        switch String(decoding: name, as: UTF8.self) {
        case "event": type = Array(value)
        case "data": data += value + [0x0A]
        case "id": if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                var number = 0
                for digit in value {
                    let (times10, o1) = number.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(Int(digit - 0x30))
                    number = o1 || o2 ? Int.max : sum
                }
                result.outputs.append(.retry(milliseconds: number))
            }
        default: break
        }
    }
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let configuration = reader.u8()
    let maximumEventBytes = [1 << 20, 16, 64, 1000][Int(configuration & 3)]
    let lastEventID = configuration & 4 != 0 ? "r" : ""
    let (feeding, _) = Feeding.read(from: &reader, count: Swift.max(0, size - 8))
    let stream = reader.rest()

    let whole = parse([stream[...]], maximumEventBytes: maximumEventBytes, lastEventID: lastEventID)
    let split = parse(feeding.pieces(stream), maximumEventBytes: maximumEventBytes, lastEventID: lastEventID)
    let setup = "maximumEventBytes=\(maximumEventBytes) lastEventID=\(lastEventID)\ninput (\(stream.count) bytes): \(escaped(stream.prefix(512)))"
    fuzzCheck(whole == split, "feeding \(feeding) differs from feeding whole\n\(setup)\nwhole:\n\(whole)\n\(feeding):\n\(split)")

    for case .event(let event) in whole.outputs {
        fuzzCheck(!event.type.isEmpty, "an event without a type\n\(setup)")
        fuzzCheck(!event.data.utf8.contains(0x0D), "CR in an event's data\n\(setup)")
        fuzzCheck(!event.lastEventID.utf8.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }), "NUL, CR or LF in an ID\n\(setup)")
    }

    let expected = reference(stream, lastEventID: lastEventID)
    if whole.error == nil {
        fuzzCheck(whole == expected, "the parser differs from the plain reading\n\(setup)\nparser:\n\(whole)\nreference:\n\(expected)")
    } else {
        // Up to the failure, the parser gave what the plain reading gives.
        fuzzCheck(Array(expected.outputs.prefix(whole.outputs.count)) == whole.outputs,
                  "before failing, the parser differs from the plain reading\n\(setup)\nparser:\n\(whole)\nreference:\n\(expected)")
        // It failed only for an event (data, type and line in hand) past the bound.
        fuzzCheck(stream.count > maximumEventBytes, "failed on a stream shorter than the bound\n\(setup)")
    }
    return 0
}
