import CourierCore

/// The `text/event-stream` parser of WHATWG HTML §9.2.6 ("Interpreting an event stream"): bytes
/// in, events out, no I/O. A value type: feed it the body as it arrives, in pieces cut anywhere,
/// and it returns the same events as for the whole body at once.
///
/// - The stream is UTF-8; one leading BOM (EF BB BF) is dropped, once.
/// - Lines end with CR, LF or CRLF, also when a CR ends one piece and its LF starts the next.
/// - A line starting with `:` is a comment, skipped without being buffered (keep-alive
///   comments of any length are fine).
/// - `name:value` lines are fields (one space after the colon is removed; a line without a colon
///   is a field with an empty value): `event`, `data` (several join with LF), `id` (ignored when
///   it contains NUL; it persists across events), `retry` (ASCII digits only: reported as
///   ``Output/retry(milliseconds:)``); other names are ignored.
/// - A blank line dispatches the event, unless its data buffer is empty; its type is `message`
///   unless an `event` field said otherwise. The last event ID is committed on every blank line.
/// - An event still open when the stream ends is never dispatched (drop the parser).
///
/// The event being read — its data and type and the line in hand — never holds more than
/// ``maximumEventBytes``; past that, ``feed(_:into:)`` throws ``CourierError/Code/eventTooLarge``
/// and the parser stays failed.
public struct EventStreamParser: Sendable {
    /// What feeding produces, in stream order.
    public enum Output: Sendable, Hashable {
        /// A dispatched event.
        case event(ServerSentEvent)
        /// A `retry` field: the server's reconnection time in milliseconds (saturating at
        /// `Int.max` for absurdly long digit runs).
        case retry(milliseconds: Int)
    }

    /// The bound on one event's buffered bytes: its data and type and the line being read.
    public let maximumEventBytes: Int
    /// The last event ID string (WHATWG HTML §9.2.6): set from the last `id` field each time a
    /// blank line ends an event (dispatched or not). What a reconnection sends as `Last-Event-ID`.
    public internal(set) var lastEventID: String

    enum ByteOrderMark {
        /// Still at the start of the stream, `matched` bytes of EF BB BF seen.
        case pending(matched: Int)
        case done
    }

    var byteOrderMark = ByteOrderMark.pending(matched: 0)
    /// The line being read (never a comment line).
    var line: [UInt8] = []
    /// The line being read is a comment: its bytes are dropped.
    var inComment = false
    /// The previous byte was a CR, so an LF now is the second half of a CRLF.
    var afterCR = false
    /// The event being read: its data (each value followed by LF), its type, the last `id` value.
    var data: [UInt8] = []
    var eventType: [UInt8] = []
    var idBuffer: String
    /// Set once the bound was exceeded: every later feed throws it again.
    var failure: CourierError?

    /// A parser for a new stream. `lastEventID` is the ID a reconnection resumes from (the
    /// previous connection's ``lastEventID``).
    public init(maximumEventBytes: Int = 1 << 20, lastEventID: String = "") {
        self.maximumEventBytes = max(1, maximumEventBytes)
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Parses the next piece of the stream and appends what it completes to `outputs` (also the
    /// outputs completed before a failure).
    ///
    /// - Throws: ``CourierError`` `.eventTooLarge` once one event needs more than
    ///   ``maximumEventBytes``.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, into outputs: inout [Output]) throws(CourierError) {
        if let failure { throw failure }
        var index = 0
        let count = bytes.count
        while index < count {
            if case .pending(let matched) = byteOrderMark {
                if bytes[index] == Self.byteOrderMarkBytes[matched] {
                    index += 1
                    byteOrderMark = matched == 2 ? .done : .pending(matched: matched + 1)
                    continue
                }
                // Not a BOM after all: what looked like its start is ordinary text.
                byteOrderMark = .done
                try append(Self.byteOrderMarkBytes[..<matched])
                continue
            }
            if afterCR {
                afterCR = false
                if bytes[index] == EventStreamByte.lf {
                    index += 1
                    continue
                }
            }
            var end = index
            while end < count, bytes[end] != EventStreamByte.lf, bytes[end] != EventStreamByte.cr { end += 1 }
            try append(bytes[index..<end])
            if end == count { break }
            afterCR = bytes[end] == EventStreamByte.cr
            endLine(into: &outputs)
            index = end + 1
        }
    }

    /// ``feed(_:into:)`` for bytes in an array; returns what they complete.
    public mutating func feed(_ bytes: [UInt8]) throws(CourierError) -> [Output] {
        var outputs: [Output] = []
        // `Array.withUnsafeBytes` rethrows untyped: the error is carried out by hand.
        let failure: CourierError? = bytes.withUnsafeBytes { raw in
            do throws(CourierError) { try feed(raw, into: &outputs) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return outputs
    }

    /// ``feed(_:into:)`` for a ``ByteBuffer``'s readable bytes (which it leaves unread).
    public mutating func feed(_ buffer: ByteBuffer, into outputs: inout [Output]) throws(CourierError) {
        try buffer.withUnsafeReadableBytes { (raw) throws(CourierError) in try feed(raw, into: &outputs) }
    }

    static let byteOrderMarkBytes: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Adds bytes (no CR or LF among them) to the line being read, or drops them when it is a
    /// comment.
    private mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(CourierError) {
        guard let first = bytes.first, !inComment else { return }
        if line.isEmpty && first == EventStreamByte.colon {
            inComment = true
            return
        }
        guard line.count + bytes.count + data.count + eventType.count <= maximumEventBytes else {
            let error = CourierError(
                .eventTooLarge, detail: "an event of the event stream needs more than \(maximumEventBytes) bytes")
            failure = error
            throw error
        }
        line.append(contentsOf: bytes)
    }

    /// A line ended: interpret it (WHATWG HTML §9.2.6) unless it was a comment.
    private mutating func endLine(into outputs: inout [Output]) {
        if inComment {
            inComment = false
            return
        }
        if line.isEmpty {
            dispatch(into: &outputs)
        } else {
            processField(into: &outputs)
            line.removeAll(keepingCapacity: true)
        }
    }
}

/// The bytes the event-stream grammar names.
enum EventStreamByte {
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let colon: UInt8 = 0x3A
    static let space: UInt8 = 0x20
    static let nul: UInt8 = 0x00
}
