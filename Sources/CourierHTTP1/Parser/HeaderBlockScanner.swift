#if canImport(Glibc)
import Glibc
#endif

/// What the first line of a header block is.
@usableFromInline
enum StartLineKind: Sendable {
    /// `HTTP-version SP status-code SP [reason-phrase]` (RFC 9112 §4).
    case status
    /// `method SP request-target SP HTTP-version` (RFC 9112 §3).
    case request
    /// No start line: a trailer section (RFC 9112 §7.1.2).
    case none
}

/// The parts of a start line, as offsets into the block.
@usableFromInline
struct StartLine: Sendable {
    var version = HTTPVersion.http1_1
    var status: Int = 0
    var reasonStart = 0
    var reasonLength = 0
    var methodLength = 0
    var targetStart = 0
    var targetLength = 0
}

/// Framing facts gathered from field lines while they are scanned (RFC 9112 §6).
@usableFromInline
struct FramingFields: Sendable {
    var contentLength: UInt64? = nil
    var transferEncodingOffset: Int? = nil
    var lastCodingIsChunked = false
    var sawChunked = false
    var hasOtherCoding = false
    var connectionClose = false
    var connectionKeepAlive = false
}

/// Finds and validates the lines of one header block (start line, field lines, blank line).
///
/// Resumable at any byte: it remembers where the current line starts and how far it has searched
/// for the line's LF, so bytes are never searched twice. A line is validated once, when its LF has
/// arrived, so errors and offsets do not depend on how the input was split. Field names and values
/// are recorded as offsets into the block; nothing is copied.
@usableFromInline
struct HeaderBlockScanner: Sendable {
    let kind: StartLineKind
    private(set) var lineStart = 0
    private var searchFrom = 0
    private var startLineDone: Bool
    private var previousContentEnd = 0
    var fields: [HTTPFieldSpan] = []
    var startLine = StartLine()
    var framing = FramingFields()

    init(kind: StartLineKind) {
        self.kind = kind
        self.startLineDone = kind == .none
    }

    /// Whether any byte of a block has been looked at.
    var hasStarted: Bool { searchFrom > 0 }

    /// Prepares for the next block, keeping the field array's capacity.
    mutating func reset() {
        lineStart = 0
        searchFrom = 0
        startLineDone = kind == .none
        previousContentEnd = 0
        fields.removeAll(keepingCapacity: true)
        startLine = StartLine()
        framing = FramingFields()
    }

    /// Scans the block at the start of `bytes`. Returns the block's length (through the blank
    /// line's LF) when it is complete, or nil when more bytes are needed.
    ///
    /// - Parameters:
    ///   - bytes: the readable bytes, starting at the block's first byte.
    ///   - mutableBytes: the same memory, writable, only when obs-fold unfolding is allowed.
    ///   - base: the stream offset of `bytes[0]`, for error offsets.
    mutating func scan(
        _ bytes: UnsafeRawBufferPointer,
        mutableBytes: UnsafeMutableRawBufferPointer?,
        base: Int,
        configuration: HTTPParserConfiguration
    ) throws(HTTPParserError) -> Int? {
        let limit = configuration.maxHeaderBytes
        let end = Swift.min(bytes.count, limit)
        guard let start = bytes.baseAddress else { return nil }
        while true {
            guard searchFrom < end,
                let found = memchr(start + searchFrom, Int32(UInt8(ascii: "\n")), end &- searchFrom)
            else {
                searchFrom = Swift.max(searchFrom, end)
                if bytes.count >= limit { throw HTTPParserError(.headerBlockTooLarge, offset: base &+ limit) }
                return nil
            }
            let lf = UnsafeRawPointer(found) - start
            var contentEnd = lf
            if lf > lineStart && bytes[lf &- 1] == UInt8(ascii: "\r") {
                contentEnd = lf &- 1
            } else if !configuration.allowBareLF {
                throw HTTPParserError(.bareLF, offset: base &+ lf)
            }
            let next = lf &+ 1
            if !startLineDone {
                try parseStartLine(bytes, from: lineStart, to: contentEnd, base: base)
                startLineDone = true
            } else if contentEnd == lineStart {
                return next
            } else if ByteClass.isWhitespace(bytes[lineStart]) {
                guard configuration.allowObsFold, let mutableBytes, let last = fields.last,
                    !(kind != .none && Self.isFramingField(bytes, last))
                else {
                    throw HTTPParserError(.obsFold, offset: base &+ lineStart)
                }
                try unfold(bytes, mutableBytes, contentEnd: contentEnd, base: base)
            } else {
                guard fields.count < configuration.maxFieldCount else {
                    throw HTTPParserError(.tooManyFields, offset: base &+ lineStart)
                }
                try parseFieldLine(bytes, from: lineStart, to: contentEnd, base: base)
            }
            previousContentEnd = contentEnd
            lineStart = next
            searchFrom = next
        }
    }

    // MARK: - Start lines

    private mutating func parseStartLine(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, base: Int
    ) throws(HTTPParserError) {
        switch kind {
        case .status: try parseStatusLine(bytes, from: from, to: to, base: base)
        case .request: try parseRequestLine(bytes, from: from, to: to, base: base)
        case .none: break
        }
    }

    /// Parses `HTTP/x.y` at `at`; returns the version.
    private func parseVersion(_ bytes: UnsafeRawBufferPointer, at: Int, to: Int, base: Int) throws(HTTPParserError) -> HTTPVersion {
        let prefix: StaticString = "HTTP/"
        for i in 0..<5 {
            guard at &+ i < to, bytes[at &+ i] == prefix.utf8Start[i] else {
                throw HTTPParserError(.invalidVersion, offset: base &+ at &+ i)
            }
        }
        guard at &+ 8 <= to else { throw HTTPParserError(.invalidVersion, offset: base &+ to) }
        let major = bytes[at &+ 5] &- UInt8(ascii: "0")
        let minor = bytes[at &+ 7] &- UInt8(ascii: "0")
        guard major < 10 else { throw HTTPParserError(.invalidVersion, offset: base &+ at &+ 5) }
        guard bytes[at &+ 6] == UInt8(ascii: ".") else { throw HTTPParserError(.invalidVersion, offset: base &+ at &+ 6) }
        guard minor < 10 else { throw HTTPParserError(.invalidVersion, offset: base &+ at &+ 7) }
        guard major == 1, minor <= 1 else { throw HTTPParserError(.unsupportedVersion, offset: base &+ at &+ 5) }
        return HTTPVersion(major: major, minor: minor)
    }

    private mutating func parseStatusLine(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, base: Int
    ) throws(HTTPParserError) {
        startLine.version = try parseVersion(bytes, at: from, to: to, base: base)
        var i = from &+ 8
        guard i < to, bytes[i] == UInt8(ascii: " ") else { throw HTTPParserError(.invalidVersion, offset: base &+ i) }
        i &+= 1
        var status = 0
        for k in 0..<3 {
            guard i &+ k < to else { throw HTTPParserError(.invalidStatusCode, offset: base &+ to) }
            let digit = bytes[i &+ k] &- UInt8(ascii: "0")
            guard digit < 10, k > 0 || digit > 0 else { throw HTTPParserError(.invalidStatusCode, offset: base &+ i &+ k) }
            status = status &* 10 &+ Int(digit)
        }
        startLine.status = status
        i &+= 3
        if i == to {
            startLine.reasonStart = i
            startLine.reasonLength = 0
            return
        }
        guard bytes[i] == UInt8(ascii: " ") else { throw HTTPParserError(.invalidStatusCode, offset: base &+ i) }
        i &+= 1
        if let bad = ByteClass.firstInvalidFieldValueByte(bytes, from: i, to: to) {
            throw HTTPParserError(.invalidReasonPhrase, offset: base &+ bad)
        }
        startLine.reasonStart = i
        startLine.reasonLength = to &- i
    }

    private mutating func parseRequestLine(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, base: Int
    ) throws(HTTPParserError) {
        var i = from
        while i < to, ByteClass.isToken(bytes[i]) { i &+= 1 }
        guard i > from, i < to, bytes[i] == UInt8(ascii: " ") else {
            throw HTTPParserError(.invalidMethod, offset: base &+ i)
        }
        startLine.methodLength = i &- from
        i &+= 1
        let targetStart = i
        while i < to, ByteClass.isTargetByte(bytes[i]) { i &+= 1 }
        guard i > targetStart, i < to, bytes[i] == UInt8(ascii: " ") else {
            throw HTTPParserError(.invalidRequestTarget, offset: base &+ i)
        }
        startLine.targetStart = targetStart
        startLine.targetLength = i &- targetStart
        i &+= 1
        startLine.version = try parseVersion(bytes, at: i, to: to, base: base)
        guard i &+ 8 == to else { throw HTTPParserError(.invalidVersion, offset: base &+ i &+ 8) }
    }

    // MARK: - Field lines

    private mutating func parseFieldLine(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, base: Int
    ) throws(HTTPParserError) {
        var i = from
        while i < to, ByteClass.isToken(bytes[i]) { i &+= 1 }
        guard i < to, bytes[i] == UInt8(ascii: ":"), i > from else {
            if i < to, i > from, ByteClass.isWhitespace(bytes[i]) {
                throw HTTPParserError(.whitespaceBeforeColon, offset: base &+ i)
            }
            throw HTTPParserError(.invalidFieldName, offset: base &+ i)
        }
        let nameEnd = i
        i &+= 1
        while i < to, ByteClass.isWhitespace(bytes[i]) { i &+= 1 }
        var valueEnd = to
        while valueEnd > i, ByteClass.isWhitespace(bytes[valueEnd &- 1]) { valueEnd &-= 1 }
        if let bad = ByteClass.firstInvalidFieldValueByte(bytes, from: i, to: valueEnd) {
            throw HTTPParserError(.invalidFieldValue, offset: base &+ bad)
        }
        fields.append(HTTPFieldSpan(nameStart: from, nameLength: nameEnd &- from, valueStart: i, valueLength: valueEnd &- i))
        if kind != .none {
            try noteFraming(bytes, nameStart: from, nameLength: nameEnd &- from, valueStart: i, valueEnd: valueEnd, base: base)
        }
    }

    /// Lenient obs-fold (RFC 9112 §5.2): replaces the previous line's CRLF with SP and extends the
    /// previous field's value over this continuation line.
    private mutating func unfold(
        _ bytes: UnsafeRawBufferPointer, _ mutableBytes: UnsafeMutableRawBufferPointer,
        contentEnd: Int, base: Int
    ) throws(HTTPParserError) {
        if let bad = ByteClass.firstInvalidFieldValueByte(bytes, from: lineStart, to: contentEnd) {
            throw HTTPParserError(.invalidFieldValue, offset: base &+ bad)
        }
        for k in previousContentEnd..<lineStart { mutableBytes[k] = UInt8(ascii: " ") }
        var last = fields[fields.count &- 1]
        var valueEnd = contentEnd
        while valueEnd > Int(last.valueStart), ByteClass.isWhitespace(bytes[valueEnd &- 1]) { valueEnd &-= 1 }
        if last.valueLength == 0 {
            // The value was empty: start it at the first non-blank byte of the continuation.
            var s = lineStart
            while s < valueEnd, ByteClass.isWhitespace(bytes[s]) { s &+= 1 }
            last.valueStart = UInt32(truncatingIfNeeded: s)
        }
        last.valueLength = UInt32(truncatingIfNeeded: Swift.max(0, valueEnd &- Int(last.valueStart)))
        fields[fields.count &- 1] = last
    }

    // MARK: - Framing fields

    @inline(__always)
    private static func nameEquals(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ lowercase: StaticString) -> Bool {
        let p = lowercase.utf8Start
        for k in 0..<lowercase.utf8CodeUnitCount where ByteClass.lower(bytes[start &+ k]) != p[k] { return false }
        return true
    }

    /// Whether `span` names a field the framing is read from. A continuation line of one is
    /// refused even when obs-fold is allowed: framing is decided from the field's first line, so
    /// the unfolded value would disagree with it (RFC 9112 §5.2, §6.3).
    private static func isFramingField(_ bytes: UnsafeRawBufferPointer, _ span: HTTPFieldSpan) -> Bool {
        let start = Int(span.nameStart)
        switch span.nameLength {
        case 14: return nameEquals(bytes, start, "content-length")
        case 17: return nameEquals(bytes, start, "transfer-encoding")
        case 10: return nameEquals(bytes, start, "connection")
        default: return false
        }
    }

    private mutating func noteFraming(
        _ bytes: UnsafeRawBufferPointer, nameStart: Int, nameLength: Int, valueStart: Int, valueEnd: Int, base: Int
    ) throws(HTTPParserError) {
        switch nameLength {
        case 14 where Self.nameEquals(bytes, nameStart, "content-length"):
            try noteContentLength(bytes, from: valueStart, to: valueEnd, base: base)
        case 17 where Self.nameEquals(bytes, nameStart, "transfer-encoding"):
            if framing.transferEncodingOffset == nil { framing.transferEncodingOffset = base &+ nameStart }
            try noteTransferEncoding(bytes, from: valueStart, to: valueEnd, base: base)
        case 10 where Self.nameEquals(bytes, nameStart, "connection"):
            noteConnection(bytes, from: valueStart, to: valueEnd)
        default:
            break
        }
    }

    /// Content-Length (RFC 9110 §8.6): digits only, overflow-checked; identical duplicates are
    /// accepted, differing ones and lists are not.
    private mutating func noteContentLength(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, base: Int
    ) throws(HTTPParserError) {
        guard from < to else { throw HTTPParserError(.invalidContentLength, offset: base &+ from) }
        var value: UInt64 = 0
        for i in from..<to {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { throw HTTPParserError(.invalidContentLength, offset: base &+ i) }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            guard !o1, !o2 else { throw HTTPParserError(.invalidContentLength, offset: base &+ i) }
            value = sum
        }
        if let existing = framing.contentLength, existing != value {
            throw HTTPParserError(.conflictingContentLength, offset: base &+ from)
        }
        framing.contentLength = value
    }

    /// Transfer-Encoding (RFC 9112 §6.1): a list of codings; chunked may appear once and last.
    private mutating func noteTransferEncoding(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, base: Int
    ) throws(HTTPParserError) {
        var i = from
        while i < to {
            while i < to, ByteClass.isWhitespace(bytes[i]) || bytes[i] == UInt8(ascii: ",") { i &+= 1 }
            guard i < to else { break }
            let tokenStart = i
            while i < to, ByteClass.isToken(bytes[i]) { i &+= 1 }
            let tokenEnd = i
            while i < to, ByteClass.isWhitespace(bytes[i]) { i &+= 1 }
            guard tokenEnd > tokenStart, i == to || bytes[i] == UInt8(ascii: ",") else {
                throw HTTPParserError(.invalidTransferEncoding, offset: base &+ i)
            }
            let isChunked = tokenEnd &- tokenStart == 7 && Self.nameEquals(bytes, tokenStart, "chunked")
            if framing.sawChunked {
                // Anything after chunked, including a second chunked, means chunked is not final.
                throw HTTPParserError(.chunkedNotFinal, offset: base &+ tokenStart)
            }
            if isChunked {
                framing.sawChunked = true
                framing.lastCodingIsChunked = true
            } else {
                framing.hasOtherCoding = true
                framing.lastCodingIsChunked = false
            }
        }
    }

    /// Connection (RFC 9110 §7.6.1): only the `close` and `keep-alive` options matter here.
    private mutating func noteConnection(_ bytes: UnsafeRawBufferPointer, from: Int, to: Int) {
        var i = from
        while i < to {
            while i < to, ByteClass.isWhitespace(bytes[i]) || bytes[i] == UInt8(ascii: ",") { i &+= 1 }
            let tokenStart = i
            while i < to, bytes[i] != UInt8(ascii: ","), !ByteClass.isWhitespace(bytes[i]) { i &+= 1 }
            switch i &- tokenStart {
            case 5 where Self.nameEquals(bytes, tokenStart, "close"): framing.connectionClose = true
            case 10 where Self.nameEquals(bytes, tokenStart, "keep-alive"): framing.connectionKeepAlive = true
            default: break
            }
        }
    }
}
