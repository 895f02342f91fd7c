import CourierCore
import CourierHTTP1

/// What one parse found; both parsers must agree on it for every case.
package struct ParseResult: Equatable, CustomStringConvertible {
    package var status = 0
    package var headerCount = 0
    /// Sum of every field's name and value length: proves each field was looked at.
    package var headerBytes = 0
    package var bodyBytes = 0
    package var complete = false

    /// Notes the status and touches every field's name and value.
    @inline(__always)
    mutating func record(_ head: HTTPResponseHead) {
        status = head.status
        for field in head.headers {
            headerCount &+= 1
            headerBytes &+= field.name.count &+ field.value.count
        }
    }

    package var description: String {
        "status \(status), \(headerCount) fields (\(headerBytes) name+value bytes), body \(bodyBytes) bytes, complete \(complete)"
    }
}

/// Drives Courier's ``HTTPResponseParser`` over one response, again and again, with one parser
/// instance (steady state: the parser's field array keeps its capacity).
///
/// Two ways to hand it the bytes:
/// - in place (`receive: false`): each parse starts from a copy of `source`, which shares its
///   storage (a retain, no copy of the bytes), the way llhttp is handed a pointer to bytes
///   already in memory. The parser cannot write to shared storage, so chunks are not joined.
/// - received (`receive: true`): each parse first copies the response into a buffer the driver
///   owns and reuses, as a socket read fills a connection's read buffer; then it parses that.
///   The llhttp driver's received mode does the same copy.
package final class CourierDriver {
    private var parser = HTTPResponseParser()
    private let source: ByteBuffer
    private let receive: Bool
    private var readBuffer: ByteBuffer

    package init(_ testCase: Case, receive: Bool = false) {
        source = ByteBuffer(bytes: testCase.bytes)
        self.receive = receive
        readBuffer = ByteBuffer(capacity: testCase.bytes.count)
    }

    /// Parses the response once per element of `iterations`.
    package func run(_ iterations: Range<Int>) -> Int {
        if !receive { return Self.loop(&parser, source, iterations) }
        // Move the read buffer out of the class so it stays uniquely owned while parsing.
        var buffer = ByteBuffer()
        swap(&buffer, &readBuffer)
        defer { swap(&buffer, &readBuffer) }
        return Self.receiveLoop(&parser, source, &buffer, iterations)
    }

    package func parseOnce() throws -> ParseResult {
        try Self.parse(&parser, source)
    }

    private static func loop(_ parser: inout HTTPResponseParser, _ source: ByteBuffer, _ iterations: Range<Int>) -> Int {
        var sum = 0
        for _ in iterations {
            do {
                let r = try parse(&parser, source)
                sum &+= r.bodyBytes &+ r.headerBytes
            } catch {
                fatalError("Courier failed to parse: \(error)")
            }
        }
        return sum
    }

    private static func receiveLoop(
        _ parser: inout HTTPResponseParser, _ source: ByteBuffer, _ buffer: inout ByteBuffer, _ iterations: Range<Int>
    ) -> Int {
        var sum = 0
        for _ in iterations {
            buffer.clear()
            source.withUnsafeReadableBytes { buffer.writeBytes($0) }
            do {
                let r = try drain(&parser, &buffer)
                sum &+= r.bodyBytes &+ r.headerBytes
            } catch {
                fatalError("Courier failed to parse: \(error)")
            }
        }
        return sum
    }

    /// Drains the events of one response: touches every field's name and value, counts body bytes.
    @inline(never)
    static func parse(_ parser: inout HTTPResponseParser, _ source: ByteBuffer) throws(HTTPParserError) -> ParseResult {
        var buffer = source
        return try drain(&parser, &buffer)
    }

    @inline(never)
    static func drain(_ parser: inout HTTPResponseParser, _ buffer: inout ByteBuffer) throws(HTTPParserError) -> ParseResult {
        var r = ParseResult()
        while true {
            switch try parser.next(&buffer) {
            case .head(let head):
                r.record(head)
            case .body(let piece):
                r.bodyBytes &+= piece.readableBytes
            case .end:
                r.complete = true
                return r
            case .needMoreData:
                return r  // the response was cut short; the startup check catches that
            case .informational, .switchingProtocols:
                fatalError("unexpected interim response in the corpus")
            }
        }
    }
}

/// Courier only: parses the gzip response and inflates its body with ``ContentDecoder``
/// (llhttp does not decompress, so this has no llhttp counterpart).
package final class CourierInflatingDriver {
    private var parser = HTTPResponseParser()
    private let source: ByteBuffer
    private let decoder = ContentDecoder(coding: .gzip)

    package init(_ testCase: Case) {
        source = ByteBuffer(bytes: testCase.bytes)
    }

    package func run(_ iterations: Range<Int>) -> Int {
        var sum = 0
        for _ in iterations {
            do {
                sum &+= try Self.parse(&parser, source, decoder).decoded
            } catch {
                fatalError("Courier failed to parse and inflate: \(error)")
            }
        }
        return sum
    }

    package func parseOnce() throws -> (result: ParseResult, decoded: Int) {
        try Self.parse(&parser, source, decoder)
    }

    /// As ``CourierDriver/parse(_:_:)``, and every body piece goes through the decoder; the
    /// decoded bytes are counted.
    @inline(never)
    static func parse(
        _ parser: inout HTTPResponseParser, _ source: ByteBuffer, _ decoder: ContentDecoder
    ) throws -> (result: ParseResult, decoded: Int) {
        var buffer = source
        var r = ParseResult()
        var decoded = 0
        while true {
            switch try parser.next(&buffer) {
            case .head(let head):
                r.record(head)
                decoder.reset()
            case .body(let piece):
                r.bodyBytes &+= piece.readableBytes
                try piece.withUnsafeReadableBytes { bytes in
                    try decoder.decode(bytes) { out in decoded &+= out.count }
                }
            case .end:
                try decoder.finish()
                r.complete = true
                return (r, decoded)
            case .needMoreData:
                return (r, decoded)
            case .informational, .switchingProtocols:
                fatalError("unexpected interim response in the corpus")
            }
        }
    }
}
