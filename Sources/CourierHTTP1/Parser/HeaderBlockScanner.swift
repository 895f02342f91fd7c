import CourierCore

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
    /// A `Content-Encoding` field was seen (RFC 9110 §8.4). Not framing, but the client asks on
    /// every response, and noting it here costs one length test per field where a search of the
    /// names afterwards cost a pass over them all.
    var contentEncoding = false
}

/// Finds and validates the lines of one header block (start line, field lines, blank line).
///
/// One pass, resumable at any byte. Field values and the start line are scanned eight bytes at a
/// time for the first control byte (SWAR), which both finds the line's CR and validates the bytes
/// before it; names are classified through a table. The scanner keeps its phase and position, so
/// no byte is looked at twice however the input is split. The first offending byte decides the
/// error, so errors and offsets do not depend on the split either. Field names and values are
/// recorded as offsets into the block; nothing is copied.
@usableFromInline
struct HeaderBlockScanner: Sendable {
    private enum Phase: Sendable {
        /// Inside the start line; `position` is how far it is known to be free of controls.
        case startLine
        /// At the first byte of a field line, or of the blank line that ends the block.
        case lineStart
        /// Saw CR at the start of a line; LF ends the block.
        case blankLF
        case name
        /// After the colon, skipping optional whitespace.
        case whitespace
        case value
    }

    let kind: StartLineKind
    private var phase: Phase
    /// The next byte to examine, relative to the block start.
    private var position = 0
    private var lineStart = 0
    private var nameEnd = 0
    private var valueStart = 0
    /// Where the previous line's content ended (its CR or LF), for obs-fold unfolding.
    private var previousContentEnd = 0
    /// The current line continues the previous field's value (lenient obs-fold).
    private var continuesField = false
    var fields: [HTTPFieldSpan] = []
    var startLine = StartLine()
    var framing = FramingFields()

    init(kind: StartLineKind) {
        self.kind = kind
        self.phase = kind == .none ? .lineStart : .startLine
    }

    /// Whether any byte of a block has been looked at.
    var hasStarted: Bool { position > 0 }

    /// Prepares for the next block, keeping the field array's capacity.
    mutating func reset() {
        phase = kind == .none ? .lineStart : .startLine
        position = 0
        lineStart = 0
        previousContentEnd = 0
        continuesField = false
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
        try ByteClass.table.withUnsafeBufferPointer { (table) throws(HTTPParserError) -> Int? in
            try scanBlock(bytes, mutableBytes: mutableBytes, base: base, configuration: configuration, table: table)
        }
    }

    /// Scans the block at the front of `buffer`'s readable bytes. The buffer is touched as
    /// writable only when obs-fold unfolding is allowed, so the strict path never makes a shared
    /// buffer unique (which would copy it).
    mutating func scan(
        _ buffer: inout ByteBuffer, base: Int, configuration: HTTPParserConfiguration
    ) throws(HTTPParserError) -> Int? {
        if configuration.allowObsFold {
            return try buffer.withUnsafeMutableReadableBytes { (m) throws(HTTPParserError) -> Int? in
                try scan(UnsafeRawBufferPointer(m), mutableBytes: m, base: base, configuration: configuration)
            }
        }
        return try buffer.withUnsafeReadableBytes { (b) throws(HTTPParserError) -> Int? in
            try scan(b, mutableBytes: nil, base: base, configuration: configuration)
        }
    }

    private mutating func scanBlock(
        _ bytes: UnsafeRawBufferPointer,
        mutableBytes: UnsafeMutableRawBufferPointer?,
        base: Int,
        configuration: HTTPParserConfiguration,
        table: UnsafeBufferPointer<UInt8>
    ) throws(HTTPParserError) -> Int? {
        let limit = configuration.maxHeaderBytes
        let end = Swift.min(bytes.count, limit)
        let allowBareLF = configuration.allowBareLF
        var p = position
        defer { position = p }

        /// More bytes are needed at index `p`: nil, or the size limit if the block cannot fit.
        func needMore() throws(HTTPParserError) -> Int? {
            if bytes.count >= limit { throw HTTPParserError(.headerBlockTooLarge, offset: base &+ limit) }
            return nil
        }

        while true {
            switch phase {
            case .startLine:
                guard let k = ByteClass.firstControlOrDEL(bytes, from: p, to: end) else {
                    p = end
                    // Judge what has arrived so far, so a reply that is not HTTP/1.x fails at its
                    // first offending byte rather than after a line end that may never come.
                    if kind == .status { try parseStatusLine(bytes, from: lineStart, to: end, base: base, complete: false) }
                    return try needMore()
                }
                let c = bytes[k]
                if c == UInt8(ascii: "\t") {
                    p = k &+ 1
                    continue
                }
                p = k
                // Whatever this control byte turns out to be (CRLF, bare LF, CR without LF, or a
                // stray control), the line before it is judged first: the first offending byte
                // decides the error, so `hello world\n` is an invalid version at byte 0, not a
                // bare LF.
                try parseStartLine(bytes, from: lineStart, to: k, base: base)
                if c == UInt8(ascii: "\r") {
                    guard k &+ 1 < end else { return try needMore() }
                    guard bytes[k &+ 1] == UInt8(ascii: "\n") else { throw startLineControlError(at: k, base: base) }
                    p = k &+ 2
                } else if c == UInt8(ascii: "\n") && allowBareLF {
                    p = k &+ 1
                } else if c == UInt8(ascii: "\n") {
                    throw HTTPParserError(.bareLF, offset: base &+ k)
                } else {
                    throw startLineControlError(at: k, base: base)
                }
                previousContentEnd = k
                lineStart = p
                phase = .lineStart

            case .lineStart:
                guard p < end else { return try needMore() }
                let c = bytes[p]
                if c == UInt8(ascii: "\r") {
                    p &+= 1
                    phase = .blankLF
                } else if c == UInt8(ascii: "\n") {
                    guard allowBareLF else { throw HTTPParserError(.bareLF, offset: base &+ p) }
                    return p &+ 1
                } else if ByteClass.isWhitespace(c) {
                    // A continuation of a framing field is refused even when obs-fold is allowed:
                    // framing was read from the field's first line, and the unfolded value would
                    // disagree with it (RFC 9112 §5.2, §6.3).
                    guard configuration.allowObsFold, let mutableBytes, let last = fields.last,
                        kind == .none
                            || Self.framingField(bytes, nameStart: Int(last.nameStart), nameLength: Int(last.nameLength)) == nil
                    else {
                        throw HTTPParserError(.obsFold, offset: base &+ p)
                    }
                    // RFC 9112 §5.2: replace the obs-fold with SP and go on with the previous value.
                    for k in previousContentEnd..<lineStart { mutableBytes[k] = UInt8(ascii: " ") }
                    continuesField = true
                    valueStart = Int(fields[fields.count &- 1].valueStart)
                    phase = .value
                } else {
                    guard fields.count < configuration.maxFieldCount else {
                        throw HTTPParserError(.tooManyFields, offset: base &+ p)
                    }
                    if let next = try plainFieldLine(bytes, start: p, end: end, base: base, table: table) {
                        p = next
                        lineStart = next
                        continue
                    }
                    phase = .name
                }

            case .blankLF:
                guard p < end else { return try needMore() }
                guard bytes[p] == UInt8(ascii: "\n") else {
                    throw HTTPParserError(.invalidFieldName, offset: base &+ p &- 1)
                }
                return p &+ 1

            case .name:
                while p < end, table[Int(bytes[p])] & ByteClass.tokenFlag != 0 { p &+= 1 }
                guard p < end else { return try needMore() }
                let c = bytes[p]
                if c == UInt8(ascii: ":") && p > lineStart {
                    nameEnd = p
                    p &+= 1
                    phase = .whitespace
                } else if ByteClass.isWhitespace(c) && p > lineStart {
                    // RFC 9112 §5.1: no whitespace between name and colon (a smuggling vector).
                    var j = p
                    while j < end, ByteClass.isWhitespace(bytes[j]) { j &+= 1 }
                    guard j < end else { return try needMore() }
                    throw HTTPParserError(bytes[j] == UInt8(ascii: ":") ? .whitespaceBeforeColon : .invalidFieldName, offset: base &+ p)
                } else if c == UInt8(ascii: "\n") && !allowBareLF {
                    throw HTTPParserError(.bareLF, offset: base &+ p)
                } else {
                    throw HTTPParserError(.invalidFieldName, offset: base &+ p)
                }

            case .whitespace:
                while p < end, ByteClass.isWhitespace(bytes[p]) { p &+= 1 }
                guard p < end else { return try needMore() }
                valueStart = p
                phase = .value

            case .value:
                guard let k = ByteClass.firstControlOrDEL(bytes, from: p, to: end) else {
                    p = end
                    return try needMore()
                }
                let c = bytes[k]
                p = k
                if c == UInt8(ascii: "\t") {
                    p = k &+ 1
                    continue
                }
                var next: Int
                if c == UInt8(ascii: "\r") {
                    guard k &+ 1 < end else { return try needMore() }
                    guard bytes[k &+ 1] == UInt8(ascii: "\n") else {
                        throw HTTPParserError(.invalidFieldValue, offset: base &+ k)
                    }
                    next = k &+ 2
                } else if c == UInt8(ascii: "\n") {
                    guard allowBareLF else { throw HTTPParserError(.bareLF, offset: base &+ k) }
                    next = k &+ 1
                } else {
                    throw HTTPParserError(.invalidFieldValue, offset: base &+ k)
                }
                try endField(bytes, contentEnd: k, base: base)
                previousContentEnd = k
                p = next
                lineStart = next
                phase = .lineStart
            }
        }
    }

    /// The common case in one go: a whole `token ":" OWS value CRLF` line already in the buffer,
    /// with no HTAB in the value. Returns the index after the LF, or nil (having changed nothing)
    /// for anything else, which the phase machine then handles from the same line start, so
    /// errors and offsets are the same either way.
    @inline(__always)
    private mutating func plainFieldLine(
        _ bytes: UnsafeRawBufferPointer, start: Int, end: Int, base: Int, table: UnsafeBufferPointer<UInt8>
    ) throws(HTTPParserError) -> Int? {
        var i = start
        while i &+ 4 <= end,
            table[Int(bytes[i])] & table[Int(bytes[i &+ 1])] & table[Int(bytes[i &+ 2])] & table[Int(bytes[i &+ 3])]
                & ByteClass.tokenFlag != 0
        {
            i &+= 4
        }
        while i < end, table[Int(bytes[i])] & ByteClass.tokenFlag != 0 { i &+= 1 }
        guard i < end, i > start, bytes[i] == UInt8(ascii: ":") else { return nil }
        let colon = i
        i &+= 1
        while i < end, ByteClass.isWhitespace(bytes[i]) { i &+= 1 }
        guard let k = ByteClass.firstControlOrDEL(bytes, from: i, to: end), bytes[k] == UInt8(ascii: "\r"),
            k &+ 1 < end, bytes[k &+ 1] == UInt8(ascii: "\n")
        else { return nil }
        lineStart = start
        nameEnd = colon
        valueStart = i
        try endField(bytes, contentEnd: k, base: base)
        previousContentEnd = k
        return k &+ 2
    }

    /// A field line is complete: trim the value and record the spans (or extend the previous
    /// field's value after an obs-fold).
    @inline(__always)
    private mutating func endField(_ bytes: UnsafeRawBufferPointer, contentEnd: Int, base: Int) throws(HTTPParserError) {
        var valueEnd = contentEnd
        while valueEnd > valueStart, ByteClass.isWhitespace(bytes[valueEnd &- 1]) { valueEnd &-= 1 }
        if continuesField {
            continuesField = false
            var last = fields[fields.count &- 1]
            var start = Int(last.valueStart)
            if last.valueLength == 0 {
                while start < valueEnd, ByteClass.isWhitespace(bytes[start]) { start &+= 1 }
            }
            last.valueStart = UInt32(truncatingIfNeeded: start)
            last.valueLength = UInt32(truncatingIfNeeded: Swift.max(0, valueEnd &- start))
            fields[fields.count &- 1] = last
            return
        }
        let nameLength = nameEnd &- lineStart
        fields.append(
            HTTPFieldSpan(nameStart: lineStart, nameLength: nameLength, valueStart: valueStart, valueLength: valueEnd &- valueStart))
        if kind != .none {
            try noteFraming(bytes, nameStart: lineStart, nameLength: nameLength, valueStart: valueStart, valueEnd: valueEnd, base: base)
        }
    }

    /// The error for a control byte (other than the line's CRLF) at `k` in a start line whose
    /// bytes before `k` were already found valid.
    private func startLineControlError(at k: Int, base: Int) -> HTTPParserError {
        switch kind {
        case .status:
            return HTTPParserError(k == lineStart &+ 12 ? .invalidStatusCode : .invalidReasonPhrase, offset: base &+ k)
        case .request, .none:
            return HTTPParserError(.invalidVersion, offset: base &+ k)
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

    /// Parses `HTTP/x.y` at `at` and returns the version it is processed as.
    ///
    /// RFC 9110 §2.5: a recipient processes a higher minor version of a major version it
    /// implements as the highest minor version it conforms to, so `HTTP/1.2` … `HTTP/1.9` are
    /// HTTP/1.1 (and get HTTP/1.1's keep-alive rules). Any other major version is
    /// `unsupportedVersion`; more than one digit on either side is `invalidVersion` (RFC 9112 §2.3).
    ///
    /// When `complete` is false the line may go on past `to`: running out of bytes is not an
    /// error, and nil is returned. The checks run left to right, so a partial check reports only
    /// what the complete one would report first.
    private func parseVersion(
        _ bytes: UnsafeRawBufferPointer, at: Int, to: Int, base: Int, complete: Bool = true
    ) throws(HTTPParserError) -> HTTPVersion? {
        let prefix: StaticString = "HTTP/"
        for i in 0..<5 {
            guard at &+ i < to || complete else { return nil }
            guard at &+ i < to, bytes[at &+ i] == prefix.utf8Start[i] else {
                throw HTTPParserError(.invalidVersion, offset: base &+ at &+ i)
            }
        }
        guard at &+ 8 <= to else {
            if complete { throw HTTPParserError(.invalidVersion, offset: base &+ to) }
            return nil
        }
        let major = bytes[at &+ 5] &- UInt8(ascii: "0")
        let minor = bytes[at &+ 7] &- UInt8(ascii: "0")
        guard major < 10 else { throw HTTPParserError(.invalidVersion, offset: base &+ at &+ 5) }
        guard bytes[at &+ 6] == UInt8(ascii: ".") else { throw HTTPParserError(.invalidVersion, offset: base &+ at &+ 6) }
        guard minor < 10 else { throw HTTPParserError(.invalidVersion, offset: base &+ at &+ 7) }
        guard major == 1 else { throw HTTPParserError(.unsupportedVersion, offset: base &+ at &+ 5) }
        return minor == 0 ? .http1_0 : .http1_1
    }

    /// Parses a status line in `bytes[from..<to]`. With `complete` false, `to` is only how far the
    /// line has arrived: the bytes so far are checked and nothing is reported for what is missing.
    private mutating func parseStatusLine(
        _ bytes: UnsafeRawBufferPointer, from: Int, to: Int, base: Int, complete: Bool = true
    ) throws(HTTPParserError) {
        guard let version = try parseVersion(bytes, at: from, to: to, base: base, complete: complete) else { return }
        startLine.version = version
        var i = from &+ 8
        guard i < to || complete else { return }
        guard i < to, bytes[i] == UInt8(ascii: " ") else { throw HTTPParserError(.invalidVersion, offset: base &+ i) }
        i &+= 1
        var status = 0
        for k in 0..<3 {
            guard i &+ k < to || complete else { return }
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
        // The reason phrase needs no check here: the scan that found this line's end stopped at
        // the first control byte or DEL other than HTAB, so the bytes before `to` are all valid.
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
        startLine.version = try parseVersion(bytes, at: i, to: to, base: base) ?? .http1_1
        guard i &+ 8 == to else { throw HTTPParserError(.invalidVersion, offset: base &+ i &+ 8) }
    }

    // MARK: - Framing fields

    @inline(__always)
    private static func nameEquals(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ lowercase: StaticString) -> Bool {
        let p = lowercase.utf8Start
        for k in 0..<lowercase.utf8CodeUnitCount where ByteClass.lower(bytes[start &+ k]) != p[k] { return false }
        return true
    }

    /// Eight bytes at `offset`, with ASCII letters folded to lower case by OR-ing 0x20 into every
    /// byte. Exact for comparing tokens with lower-case names made of letters and `-`: the only
    /// other byte that ORs to a letter is its upper-case form, and the only one that ORs to `-`
    /// is CR, which is not a tchar.
    @inline(__always)
    private static func foldedWord(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        // Safe: callers pass offsets with offset + 8 <= the name's end, inside the buffer.
        bytes.baseAddress!.loadUnaligned(fromByteOffset: offset, as: UInt64.self) | 0x2020_2020_2020_2020
    }

    /// The fields framing is read from (RFC 9112 §6, RFC 9110 §7.6.1).
    private enum FramingField {
        case contentLength, transferEncoding, connection, contentEncoding
    }

    /// Which framing field a validated token name is, if any, compared eight bytes at a time.
    @inline(__always)
    private static func framingField(_ bytes: UnsafeRawBufferPointer, nameStart: Int, nameLength: Int) -> FramingField? {
        guard nameLength == 10 || nameLength == 14 || nameLength == 16 || nameLength == 17 else { return nil }
        let first = foldedWord(bytes, nameStart)
        switch nameLength {
        case 14 where first == 0x2d74_6e65_746e_6f63 /* "content-" */
            && foldedWord(bytes, nameStart &+ 6) == 0x6874_676e_656c_2d74 /* "t-length" */:
            return .contentLength
        case 17 where first == 0x7265_6673_6e61_7274 /* "transfer" */
            && foldedWord(bytes, nameStart &+ 8) == 0x6e69_646f_636e_652d /* "-encodin" */
            && foldedWord(bytes, nameStart &+ 9) == 0x676e_6964_6f63_6e65 /* "encoding" */:
            return .transferEncoding
        case 16 where first == 0x2d74_6e65_746e_6f63 /* "content-" */
            && foldedWord(bytes, nameStart &+ 8) == 0x676e_6964_6f63_6e65 /* "encoding" */:
            return .contentEncoding
        case 10 where first == 0x6974_6365_6e6e_6f63 /* "connecti" */
            && foldedWord(bytes, nameStart &+ 2) == 0x6e6f_6974_6365_6e6e /* "nnection" */:
            return .connection
        default:
            return nil
        }
    }

    private mutating func noteFraming(
        _ bytes: UnsafeRawBufferPointer, nameStart: Int, nameLength: Int, valueStart: Int, valueEnd: Int, base: Int
    ) throws(HTTPParserError) {
        switch Self.framingField(bytes, nameStart: nameStart, nameLength: nameLength) {
        case .contentLength?:
            try noteContentLength(bytes, from: valueStart, to: valueEnd, base: base)
        case .transferEncoding?:
            if framing.transferEncodingOffset == nil { framing.transferEncodingOffset = base &+ nameStart }
            try noteTransferEncoding(bytes, from: valueStart, to: valueEnd, base: base)
        case .connection?:
            noteConnection(bytes, from: valueStart, to: valueEnd)
        case .contentEncoding?:
            framing.contentEncoding = true
        case nil:
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
        // The common single-option values first, eight bytes at a time.
        if to &- from == 10, Self.foldedWord(bytes, from) == 0x696c_612d_7065_656b /* "keep-ali" */,
            Self.foldedWord(bytes, from &+ 2) == 0x6576_696c_612d_7065 /* "ep-alive" */
        {
            framing.connectionKeepAlive = true
            return
        }
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
