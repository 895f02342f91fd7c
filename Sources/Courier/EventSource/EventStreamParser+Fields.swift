/// Fields and dispatch: the "process the field" and "dispatch the event" steps of WHATWG HTML
/// §9.2.6, over one complete line that is neither blank nor a comment.
extension EventStreamParser {
    /// Splits ``line`` at its first colon (a line without one is a name with an empty value),
    /// drops one space after the colon, and applies the field.
    mutating func processField(into outputs: inout [Output]) {
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: EventStreamByte.colon) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == EventStreamByte.space { value = value.dropFirst() }
        } else {
            name = line[...]
            value = []
        }
        if name.elementsEqual("data".utf8) {
            data.append(contentsOf: value)
            data.append(EventStreamByte.lf)
        } else if name.elementsEqual("event".utf8) {
            eventType = Array(value)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(EventStreamByte.nul) { idBuffer = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("retry".utf8) {
            if let milliseconds = Self.digits(value) { outputs.append(.retry(milliseconds: milliseconds)) }
        }
    }

    /// The value of a run of ASCII digits in base ten, saturating at `Int.max`; nil when the run
    /// is empty or holds anything else.
    static func digits(_ value: ArraySlice<UInt8>) -> Int? {
        guard !value.isEmpty else { return nil }
        var result = 0
        for byte in value {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - 0x30))
            result = overflow1 || overflow2 ? Int.max : sum
        }
        return result
    }

    /// A blank line: commit the last event ID, then dispatch the event unless its data buffer is
    /// empty, and start a new one.
    mutating func dispatch(into outputs: inout [Output]) {
        lastEventID = idBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            eventType.removeAll()
        }
        guard !data.isEmpty else { return }
        let text = String(decoding: data.dropLast(), as: UTF8.self)
        let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
        outputs.append(.event(ServerSentEvent(type: type, data: text, lastEventID: lastEventID)))
    }
}
