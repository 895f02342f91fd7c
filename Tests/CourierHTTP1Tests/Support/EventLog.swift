import CourierCore
import CourierHTTP1

/// Turns parser events into text lines, merging consecutive body pieces so that every feeding of
/// the same input gives the same log.
struct EventLog: Equatable, CustomStringConvertible {
    private(set) var lines: [String] = []
    private var pendingBody: [UInt8] = []
    private(set) var errors: [HTTPParserError] = []

    var description: String { lines.joined(separator: "\n") }

    mutating func flushBody() {
        if !pendingBody.isEmpty {
            lines.append("body \"\(Fixture.escape(pendingBody))\"")
            pendingBody = []
        }
    }

    mutating func body(_ bytes: ByteBuffer) {
        pendingBody += bytes.readableBytesArray()
    }

    mutating func add(_ line: String) {
        flushBody()
        lines.append(line)
    }

    mutating func fields(_ prefix: String, _ view: HTTPHeaderView) {
        for f in view {
            add("\(prefix) \"\(Fixture.escape(f.name.buffer.readableBytesArray()))\" \"\(Fixture.escape(f.value.buffer.readableBytesArray()))\"")
        }
    }

    mutating func error(_ e: HTTPParserError) {
        errors.append(e)
        add("error \(e.code.rawValue) @\(e.offset)")
    }

    static func framing(_ f: BodyFraming) -> String {
        switch f {
        case .none: return "none"
        case .contentLength(let n): return "length(\(n))"
        case .chunked: return "chunked"
        case .untilClose: return "close"
        case .tunnel: return "tunnel"
        }
    }

    mutating func head(_ kind: String, _ h: HTTPResponseHead) {
        add("\(kind) \(h.version.major).\(h.version.minor) \(h.status) \"\(Fixture.escape(h.reason.buffer.readableBytesArray()))\" keepalive=\(h.isKeepAlive) framing=\(Self.framing(h.framing))")
        fields("field", h.headers)
    }

    mutating func response(_ event: HTTPResponseParserEvent) {
        switch event {
        case .informational(let h): head("informational", h)
        case .head(let h): head("head", h)
        case .switchingProtocols(let h): head("switch", h)
        case .body(let b): body(b)
        case .end(let trailers):
            add("end")
            fields("trailer", trailers)
        case .needMoreData:
            break
        }
    }

    mutating func request(_ event: HTTPRequestParserEvent) {
        switch event {
        case .head(let h):
            add("request \(h.method) \"\(Fixture.escape(h.target.buffer.readableBytesArray()))\" \(h.version.major).\(h.version.minor) keepalive=\(h.isKeepAlive) framing=\(Self.framing(h.framing))")
            fields("field", h.headers)
        case .body(let b): body(b)
        case .end(let trailers):
            add("end")
            fields("trailer", trailers)
        case .needMoreData:
            break
        }
    }
}

/// Feeds `pieces` to a fresh response parser and logs every event, the error if any, and what
/// `finish` says when `eof` is set.
///
/// With `sharingBuffer`, a copy of the buffer is kept alive while parsing, so its storage is
/// shared and the parser cannot rewrite it (no chunks are joined in place).
func runResponseParser(_ fixture: Fixture, _ pieces: [[UInt8]], sharingBuffer: Bool = false) -> EventLog {
    var parser = HTTPResponseParser(configuration: fixture.configuration)
    parser.requestMethod = fixture.method
    var buffer = ByteBuffer()
    var log = EventLog()
    var fed = 0
    var keepAlive: [ByteBuffer] = []
    do {
        for piece in pieces {
            buffer.writeBytes(piece)
            if sharingBuffer { keepAlive.append(buffer) }
            fed += piece.count
            while case let event = try parser.next(&buffer), event != .needMoreData { log.response(event) }
            precondition(parser.bytesConsumed <= fed)
        }
        if fixture.eof {
            while case let event = try parser.finish(&buffer), event != .needMoreData { log.response(event) }
        }
    } catch {
        log.error(error)
    }
    log.flushBody()
    withExtendedLifetime(keepAlive) {}
    return log
}

/// The same for the request parser.
func runRequestParser(_ fixture: Fixture, _ pieces: [[UInt8]]) -> EventLog {
    var parser = HTTPRequestParser(configuration: fixture.configuration)
    var buffer = ByteBuffer()
    var log = EventLog()
    do {
        for piece in pieces {
            buffer.writeBytes(piece)
            while case let event = try parser.next(&buffer), event != .needMoreData { log.request(event) }
        }
        if fixture.eof {
            while case let event = try parser.finish(&buffer), event != .needMoreData { log.request(event) }
        }
    } catch {
        log.error(error)
    }
    log.flushBody()
    return log
}
