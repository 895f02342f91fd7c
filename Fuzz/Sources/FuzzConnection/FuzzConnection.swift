// Fuzzes HTTP1ConnectionStateMachine: the input is a sequence of the events a connection sees
// (requests started with or without a body, body parts and ends, response bytes cut anywhere,
// EOF, pause and demand, timeouts, cancellation, socket errors), fed the way the I/O driver
// (HTTP1Connection) feeds them; the actions that come out are checked against a model of the
// connection kept by this harness, independently of the machine's own bookkeeping.
//
// Properties:
// - exactly one terminal action (succeedRequest or failRequest) per started request, and none
//   without a request; a request refused by startRequest gets its one failRequest there, with
//   `.keepAlive` and nothing written (`.close` on a closed connection);
// - nothing but `.none` after the connection closed (`.close`, or a terminal action with
//   `.close`/`.tunnel`), and `.close` itself only on an idle connection;
// - the connection is reused (succeedRequest `.keepAlive`) exactly when nothing casts doubt on
//   the framing or the connection (RFC 9112 §9.3, §9.6): the response's fields and framing allow
//   it (HTTP/1.1 or keep-alive, no `close` option, not read until close, not a tunnel, not both
//   Content-Length and Transfer-Encoding), the request did not forbid it, the request body went
//   out whole, no EOF, no bytes after the message, under `maximumUses`; never after an error;
// - a 2xx to CONNECT, and nothing else, becomes a tunnel; bytes on an idle connection close it;
// - a response body never exceeds its Content-Length and matches it on success; no body for a
//   response framed `.none`; trailers only after chunked;
// - `isSafeToRetry` only for an idempotent request with a replayable body on a reused connection
//   that received no response byte (RFC 9110 §9.2.2, RFC 9112 §9.3.1), and then always;
// - the bytes written for a request whose body went out whole parse as exactly that request
//   (method, version, body, trailers);
// - every action is one the API allows for that input, and the machine's queries (isClosed,
//   hasRequestInFlight, isReusable, isSendingRequestBody, isPaused, uses, requestBytesSent)
//   agree with the model after every step;
// - at the end, after demand and EOF, no request is left without its terminal action, and every
//   input to the closed machine returns `.none`.
//
// Input layout (read in order; past the end every byte reads as 0):
//   4 bytes     parser configuration (HTTPParserConfiguration.fuzzed: lenient flags, limits)
//   1 byte      maximumUses: b % 5 == 0 → none, else b % 5
//   then operations, one byte each (op & 15) with their operands, at most 256:
//    0, 1  start a request: byte m (method m & 7 of GET HEAD POST PUT DELETE OPTIONS PATCH CONNECT;
//          body (m >> 3) & 3: none, a known length (one more byte), chunked, length 0;
//          m & 0x20 expectContinue; m & 0x40 body not replayable; m & 0x80 HTTP/1.0), byte f
//          (f & 7: a Connection value from a table, or none; f & 8 an Expect: 100-continue field;
//          f & 0x10 Host as a field; f & 0x20 an invalid target; f & 0x40 Content-Length: 7;
//          f & 0x80 Transfer-Encoding: chunked)
//    2     a request body part: a length byte and that many bytes
//    3     the request body ends (op & 0x10: with a trailer)
//    4–6   response bytes: a length byte and that many bytes
//    7, 15 a canned response from a table (one byte selects it)
//    8     response bytes: a 16-bit length (at most 4096) and that many bytes
//    9     EOF
//    10    pause the response body       11  demand more
//    12    a timer fires ((op >> 4) % 3: idle read, total, continue wait)
//    13    cancel                         14  a socket error ((op >> 4) % 4 selects its code)
import CourierClient
import CourierCore
import CourierHTTP1
import FuzzSupport

private typealias Machine = HTTP1ConnectionStateMachine
private typealias Action = HTTP1ConnectionStateMachine.Action

private let methods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .DELETE, .OPTIONS, .PATCH, .CONNECT]
/// Connection field values a request may carry, and whether each has the `close` and the
/// `keep-alive` option (RFC 9110 §7.6.1: a comma-separated list of tokens, case-insensitive).
private let connectionValues: [(value: String, close: Bool, keepAlive: Bool)] = [
    ("close", true, false), ("keep-alive", false, true), ("Close", true, false), ("keep-alive, close", true, true),
    ("upgrade", false, false), ("KEEP-ALIVE", false, true),
]
private let errorCodes: [ClientError.Code] = [.ioError, .tls, .remoteClosedDuringBody, .connectionFailed]
private let cannedText: [String] = [
    "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n",
    "HTTP/1.1 204 No Content\r\n\r\n",
    "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
    "HTTP/1.1 100 Continue\r\n\r\n",
    "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n",
    "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
    "HTTP/1.0 200 OK\r\n\r\nuntil close",
    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
    "HTTP/1.1 200 Connection established\r\n\r\n",
    "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "HTTP/1.1 500 Oops\r\nContent-Length: 5\r\n\r\nsh",
]
private let canned: [[UInt8]] = cannedText.map { Array($0.utf8) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnection(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let configuration = HTTPParserConfiguration.fuzzed(&reader)
    let uses = Int(reader.u8() % 5)
    var harness = Harness(maximumUses: uses == 0 ? nil : uses, configuration: configuration)
    var operations = 0
    while !reader.isAtEnd && operations < 256 {
        harness.step(&reader)
        harness.checkQueries()
        operations += 1
    }
    harness.finish()
    return 0
}

/// Where an action came from, for the API contract of each input.
private enum Source: String {
    case start, bodyPart, bodyEnd, inbound, eof, demand, timeout, cancel, error
}

/// One entry of the step log.
private enum Step: CustomStringConvertible {
    case note(String)
    case timeout(Machine.TimeoutKind)
    case error(ClientError.Code)
    case start(HTTPRequestHead, Machine.RequestBodyKind, expectContinue: Bool, replayable: Bool)
    case bodyPart(Int)
    case bodyEnd(HTTPFields)
    case receive([UInt8])
    case action(Source, Action)

    var description: String {
        switch self {
        case .note(let text): return text
        case .timeout(let kind): return "timeout \(kind)"
        case .error(let code): return "error \(code)"
        case .start(let head, let body, let expectContinue, let replayable):
            return "start \(head.method) \(head.target) \(head.version) body \(body) expectContinue=\(expectContinue) "
                + "replayable=\(replayable) fields \(head.headers.map { "\($0.name): \($0.value)" })"
        case .bodyPart(let count): return "body part \(count)"
        case .bodyEnd(let trailers): return "body end, trailers \(trailers.map { "\($0.name): \($0.value)" })"
        case .receive(let bytes): return "receive \(bytes.count): \(escaped(bytes.prefix(120)))"
        case .action(let source, let action): return "  \(source.rawValue) → \(brief(action))"
        }
    }
}

/// What the driver knows about the request in flight.
private struct Request {
    var method: HTTPMethod
    var version: HTTPVersion
    var bodyKind: Machine.RequestBodyKind
    /// `Connection: close`, or HTTP/1.0 without `keep-alive` (RFC 9112 §9.3, §9.6).
    var forbidsReuse: Bool
    var bodyReplayable: Bool
    /// Another request was started on this connection before.
    var onReusedConnection: Bool
    /// Every byte the machine asked to write for this request.
    var written: [UInt8] = []
    /// The payload the driver handed over, and the trailers.
    var body: [UInt8] = []
    var trailers = HTTPFields()
    /// The driver saw `then: .requestComplete`.
    var bodyComplete: Bool
    var waitingForContinue = false
    var sending = false
    /// A final response came before the body was sent (`stopSendingBody`).
    var abandoned = false
    var head: HTTPClientResponseHead?
    var bodyReceived = 0
    var responseBytesArrived = false
    var sawEOF = false
    var paused = false
}

private struct Harness {
    var machine: Machine
    let maximumUses: Int?
    let configuration: HTTPParserConfiguration
    var buffer = ByteBuffer()
    var request: Request?
    var closed = false
    var eof = false
    var started = 0
    var bytesWritten: Int64 = 0
    /// What happened, rendered only when a property fails (formatting every step would cost more
    /// than running the machine).
    var log: [Step] = []

    init(maximumUses: Int?, configuration: HTTPParserConfiguration) {
        self.machine = Machine(maximumUses: maximumUses, parserConfiguration: configuration)
        self.maximumUses = maximumUses
        self.configuration = configuration
    }

    func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, line: UInt = #line) {
        if !condition() {
            fuzzFail(
                """
                \(message())
                parser: \(configuration.fuzzSummary) maximumUses=\(maximumUses.map(String.init) ?? "nil")
                request: \(request.map { "\($0.method) \($0.version) body \($0.bodyKind) complete=\($0.bodyComplete) sending=\($0.sending) head=\($0.head.map { String($0.status) } ?? "nil")" } ?? "none")
                closed=\(closed) eof=\(eof) buffered=\(buffer.readableBytes)
                steps:
                \(log.suffix(60).map(\.description).joined(separator: "\n"))
                """, line: line)
        }
    }

    // MARK: - Operations

    mutating func step(_ reader: inout FuzzReader) {
        let op = reader.u8()
        switch op & 15 {
        case 0, 1: start(&reader)
        case 2:
            let part = reader.lengthPrefixed()
            bodyPart(part)
        case 3: bodyEnd(withTrailer: op & 0x10 != 0)
        case 4, 5, 6: receive(reader.lengthPrefixed())
        case 7, 15: receive(canned[Int(reader.u8()) % canned.count])
        case 8: receive(reader.take(Int(reader.u16()) % 4097))
        case 9: readEOF()
        case 10:
            log.append(.note("pause"))
            machine.pauseResponseBody()
            if request != nil { request!.paused = true }
        case 11: demand()
        case 12:
            let kind = [Machine.TimeoutKind.idleRead, .total, .continueWait][Int(op >> 4) % 3]
            log.append(.timeout(kind))
            let waiting = request?.waitingForContinue == true
            let action = machine.timeout(kind)
            switch kind {
            case .idleRead, .total:
                check(request == nil ? action == .none : isFailure(action, kind == .idleRead ? .readTimeout : .totalTimeout), "timeout \(kind) gave \(brief(action))")
            case .continueWait:
                check(action == (waiting ? .sendRequestBody : .none), "the continue timeout gave \(brief(action))")
            }
            handle(action, .timeout)
        case 13:
            log.append(.note("cancel"))
            let action = machine.cancel()
            check(request == nil ? action == .none : isFailure(action, .cancelled), "cancel gave \(brief(action))")
            handle(action, .cancel)
        default:
            let error = ClientError(errorCodes[Int(op >> 4) % errorCodes.count], detail: "fuzz")
            log.append(.error(error.code))
            let action = machine.errorCaught(error)
            let expected: Action = closed ? .none : request == nil ? .close : .failRequest(error, then: .close)
            check(action == expected, "errorCaught gave \(brief(action)), expected \(brief(expected))")
            handle(action, .error)
        }
    }

    mutating func start(_ reader: inout FuzzReader) {
        let m = reader.u8()
        let f = reader.u8()
        let method = methods[Int(m & 7)]
        let bodyKind: Machine.RequestBodyKind
        switch (m >> 3) & 3 {
        case 0: bodyKind = .none
        case 1: bodyKind = .knownLength(Int64(reader.u8()))
        case 2: bodyKind = .chunked
        default: bodyKind = .knownLength(0)
        }
        // The driver starts a request only on a connection without one in flight.
        guard request == nil else { return }
        let expectContinue = m & 0x20 != 0
        let bodyReplayable = m & 0x40 == 0
        let version: HTTPVersion = m & 0x80 != 0 ? .http1_0 : .http1_1
        var fields = HTTPFields()
        var close = false, keepAlive = false
        if Int(f & 7) < connectionValues.count {
            let c = connectionValues[Int(f & 7)]
            try! fields.append(name: "Connection", value: c.value)
            (close, keepAlive) = (c.close, c.keepAlive)
        }
        if f & 0x08 != 0 { try! fields.append(name: "Expect", value: "100-continue") }
        if f & 0x10 != 0 { try! fields.append(name: "Host", value: "example.com") }
        if f & 0x40 != 0 { try! fields.append(name: "Content-Length", value: "7") }
        if f & 0x80 != 0 { try! fields.append(name: "Transfer-Encoding", value: "chunked") }
        let target: RequestTarget =
            method == .CONNECT ? .authority(host: "example.com", port: 443) : .origin(f & 0x20 != 0 ? "no-slash" : "/p")
        let head = HTTPRequestHead(method: method, target: target, version: version, headers: fields)
        let host: String? = f & 0x10 != 0 ? nil : "example.com"
        log.append(.start(head, bodyKind, expectContinue: expectContinue, replayable: bodyReplayable))

        // Whether the encoder takes this head, asked independently of the machine.
        let framing: RequestBodyFraming
        switch bodyKind {
        case .none: framing = .none
        case .knownLength(let n): framing = .contentLength(UInt64(n))
        case .chunked: framing = .chunked
        }
        var probe = ByteBuffer()
        let encodable = (try? HTTPRequestEncoder.encodeHead(head, host: host, framing: framing, into: &probe)) != nil

        let wasClosed = closed
        let action = machine.startRequest(
            head: head, host: host, body: bodyKind, expectContinue: expectContinue, bodyReplayable: bodyReplayable)
        log.append(.action(.start, action))
        if wasClosed {
            check(isFailure(action, .connectionClosed, then: .close), "start on a closed connection gave \(brief(action))")
            return
        }
        guard encodable else {
            check(isFailure(action, .invalidRequest, then: .keepAlive), "a head the encoder refuses gave \(brief(action))")
            return
        }
        let hasBody = bodyKind == .chunked || (bodyKind != .none && bodyKind != .knownLength(0))
        let waits = hasBody && (expectContinue || f & 0x08 != 0)
        let then: Machine.AfterWrite = !hasBody ? .requestComplete : waits ? .waitForContinue : .sendRequestBody
        guard case .write(let bytes, then) = action else {
            check(false, "start gave \(brief(action)), expected a write then \(then)")
            return
        }
        started += 1
        request = Request(
            method: method, version: version, bodyKind: bodyKind,
            forbidsReuse: close || (version == .http1_0 && !keepAlive), bodyReplayable: bodyReplayable,
            onReusedConnection: started > 1, bodyComplete: false)
        recordWrite(bytes, then: then)
    }

    mutating func bodyPart(_ part: [UInt8]) {
        guard var request, request.sending else { return }  // the driver feeds parts only when asked
        log.append(.bodyPart(part.count))
        let action = machine.requestBodyPart(ByteBuffer(bytes: part))
        let sent = Int64(request.body.count)
        switch request.bodyKind {
        case _ where part.isEmpty:
            check(action == .none, "an empty part gave \(brief(action))")
        case .knownLength(let n) where sent + Int64(part.count) > n:
            check(isFailure(action, .bodyLengthMismatch), "a part past the length gave \(brief(action))")
        case .knownLength(let n):
            let then: Machine.AfterWrite = sent + Int64(part.count) == n ? .requestComplete : .sendRequestBody
            check(action == .write(ByteBuffer(bytes: part), then: then), "a part gave \(brief(action))")
        default:
            guard case .write(_, .sendRequestBody) = action else { return check(false, "a chunk gave \(brief(action))") }
        }
        if case .write = action {
            request.body += part
            self.request = request
        }
        handle(action, .bodyPart)
    }

    mutating func bodyEnd(withTrailer: Bool) {
        guard let request, request.sending else { return }
        var trailers = HTTPFields()
        if withTrailer { try! trailers.append(name: "X-Sum", value: "1") }
        log.append(.bodyEnd(trailers))
        let action = machine.requestBodyEnd(trailers: trailers)
        if request.bodyKind == .chunked {
            guard case .write(_, .requestComplete) = action else { return check(false, "the chunked end gave \(brief(action))") }
            self.request!.trailers = trailers
        } else {
            check(isFailure(action, .bodyLengthMismatch), "a short known-length body gave \(brief(action))")
        }
        handle(action, .bodyEnd)
    }

    mutating func receive(_ bytes: [UInt8]) {
        guard !eof else { return }  // nothing arrives after the end
        log.append(.receive(bytes))
        let idle = request == nil && !closed
        buffer.writeBytes(bytes)
        if !bytes.isEmpty { request?.responseBytesArrived = true }
        let first = machine.nextInboundAction(&buffer)
        if idle {
            check(first == (bytes.isEmpty ? .wait(.read) : .close), "bytes on an idle connection gave \(brief(first))")
        }
        drain(first, .inbound)
    }

    mutating func readEOF() {
        guard !eof else { return }
        log.append(.note("EOF"))
        eof = true
        request?.sawEOF = true
        let idle = request == nil && !closed
        let first = machine.readEOF(&buffer)
        if idle { check(first == .close, "EOF on an idle connection gave \(brief(first))") }
        drain(first, .eof)
    }

    mutating func demand() {
        log.append(.note("demand"))
        let paused = request?.paused == true
        let action = machine.demandMoreResponseBody()
        check(action == (paused ? .resumeInbound : .none), "demand gave \(brief(action))")
        if paused { request!.paused = false }
        drain(action, .demand)
    }

    /// Loops the inbound side the way the driver's drainInbound does.
    mutating func drain(_ first: Action, _ source: Source) {
        var action = first
        while true {
            handle(action, source)
            switch action {
            case .forwardHead, .forwardBody, .sendRequestBody, .resumeInbound:
                action = machine.nextInboundAction(&buffer)
            default:
                // After EOF, a request that is not paused has ended.
                if eof && request?.paused != true {
                    check(request == nil && closed, "after EOF the request in flight did not end (\(brief(action)))")
                }
                return
            }
        }
    }

    // MARK: - The model

    mutating func recordWrite(_ bytes: ByteBuffer, then: Machine.AfterWrite) {
        request!.written += bytes.readableBytesArray()
        bytesWritten += Int64(bytes.readableBytes)
        switch then {
        case .sendRequestBody:
            request!.sending = true
        case .waitForContinue:
            request!.waitingForContinue = true
            request!.sending = false
        case .requestComplete:
            request!.sending = false
            request!.bodyComplete = true
        }
    }

    mutating func handle(_ action: Action, _ source: Source) {
        if source != .start { log.append(.action(source, action)) }
        if closed {
            check(action == .none, "\(brief(action)) after the connection closed")
            return
        }
        switch action {
        case .write(let bytes, let then):
            check(request != nil && [.start, .bodyPart, .bodyEnd].contains(source), "a write from \(source)")
            if source != .start { recordWrite(bytes, then: then) }
        case .sendRequestBody:
            check([.inbound, .eof, .demand, .timeout].contains(source), "sendRequestBody from \(source)")
            check(request?.waitingForContinue == true, "sendRequestBody for a body that was not held")
            request!.waitingForContinue = false
            request!.sending = true
        case .forwardHead(let head, let stop):
            check([.inbound, .eof, .demand].contains(source), "a head from \(source)")
            check(request != nil && request!.head == nil, "a second head, or one without a request")
            check(head.status >= 200 && head.status <= 999, "forwarded status \(head.status)")
            check(stop == !request!.bodyComplete, "stopSendingBody \(stop) with the body complete=\(request!.bodyComplete)")
            check(head.isKeepAlive == expectedKeepAlive(version: head.version, fields: head.headers, framing: head.framing),
                  "isKeepAlive \(head.isKeepAlive) disagrees with the head \(head)")
            if stop {
                request!.abandoned = true
                request!.sending = false
                request!.waitingForContinue = false
            }
            request!.head = head
        case .forwardBody(let bytes):
            check([.inbound, .eof, .demand].contains(source), "body from \(source)")
            guard let head = request?.head else { return check(false, "body before a head") }
            check(bytes.readableBytes > 0, "an empty body part")
            request!.bodyReceived += bytes.readableBytes
            switch head.framing {
            case .contentLength(let n):
                check(UInt64(request!.bodyReceived) <= n, "\(request!.bodyReceived) body bytes for Content-Length \(n)")
            case .none:
                check(false, "body for a response framed .none (\(head.status))")
            default:
                break
            }
        case .succeedRequest(let trailers, let then):
            check([.inbound, .eof, .demand].contains(source), "success from \(source)")
            guard let request else { return check(false, "a success without a request") }
            succeeded(request, trailers: trailers, then: then)
        case .failRequest(let error, let then):
            check(then == .close, "a failure that keeps the connection: \(error)")
            guard let request else { return check(false, "a failure without a request: \(error)") }
            failed(request, error, source)
        case .wait(let hint):
            check([.inbound, .eof, .demand].contains(source), "wait from \(source)")
            check((hint == .stopReading) == (request?.paused == true), "wait(\(hint)) with paused=\(request?.paused == true)")
        case .resumeInbound:
            check(source == .demand, "resumeInbound from \(source)")
        case .close:
            check([.inbound, .eof, .error].contains(source), "close from \(source)")
            check(request == nil, "close with a request in flight: it never gets its terminal action")
            closed = true
        case .none:
            break
        }
    }

    mutating func succeeded(_ request: Request, trailers: HTTPFields, then: Machine.AfterResponse) {
        guard let head = request.head else { return check(false, "success before a head") }
        // RFC 9110 §9.3.6: any 2xx to CONNECT, 204 included, switches the connection to a tunnel
        // (a finding of this target: Fuzz/FailCases/FuzzConnection/connect-204-kept-alive).
        let tunnel = request.method == .CONNECT && (200..<300).contains(head.status)
        check((then == .tunnel) == tunnel && (head.framing == .tunnel) == tunnel, "then \(then) framing \(head.framing) for \(request.method) → \(head.status)")
        switch head.framing {
        case .contentLength(let n): check(UInt64(request.bodyReceived) == n, "\(request.bodyReceived) body bytes for Content-Length \(n)")
        case .none, .tunnel: check(request.bodyReceived == 0, "a body for framing \(head.framing)")
        default: break
        }
        check(trailers.isEmpty || head.framing == .chunked, "trailers after \(head.framing)")

        let responseAllows = expectedKeepAlive(version: head.version, fields: head.headers, framing: head.framing)
        let underLimit = maximumUses.map { started < $0 } ?? true
        let mayReuse =
            responseAllows && !request.forbidsReuse && request.bodyComplete && !request.abandoned && !request.sawEOF
            && buffer.readableBytes == 0 && underLimit
        if then == .keepAlive {
            check(
                mayReuse,
                "reused although: responseAllows=\(responseAllows) requestForbids=\(request.forbidsReuse) "
                    + "bodyComplete=\(request.bodyComplete) abandoned=\(request.abandoned) eof=\(request.sawEOF) "
                    + "buffered=\(buffer.readableBytes) underLimit=\(underLimit)")
        } else if then == .close {
            check(!mayReuse, "closed though nothing forbids reuse")
        }
        checkWritten(request)
        self.request = nil
        closed = then != .keepAlive
    }

    mutating func failed(_ request: Request, _ error: ClientError, _ source: Source) {
        let retryable =
            request.onReusedConnection && !request.responseBytesArrived && request.method.isIdempotent
            && request.bodyReplayable
        if error.code == .remoteClosedBeforeResponse {
            check(request.head == nil && request.sawEOF, "remoteClosedBeforeResponse after a head or without EOF")
            check(error.isSafeToRetry == retryable, "isSafeToRetry \(error.isSafeToRetry), expected \(retryable): \(error)")
        } else {
            check(!error.isSafeToRetry, "\(error) is marked safe to retry")
        }
        switch source {
        case .inbound, .eof, .demand:
            let codes: [ClientError.Code] = [.parse, .remoteClosedBeforeResponse, .remoteClosedDuringBody, .unexpectedResponse]
            check(codes.contains(error.code), "\(error) from the inbound side")
            if error.code == .remoteClosedDuringBody { check(request.head != nil && request.sawEOF, "\(error) before a head or without EOF") }
        default:
            break
        }
        checkWritten(request)
        self.request = nil
        closed = true
    }

    /// The bytes written for a request whose body went out whole parse as exactly that request.
    func checkWritten(_ request: Request) {
        guard request.bodyComplete, request.method != .CONNECT else { return }
        var wire = ByteBuffer(bytes: request.written)
        var parser = HTTPRequestParser()
        var sawHead = false, ended = false
        var body: [UInt8] = []
        do throws(HTTPParserError) {
            parsing: while true {
                switch try parser.next(&wire) {
                case .needMoreData:
                    break parsing
                case .head(let head):
                    check(!sawHead && head.method == request.method && head.version == request.version, "wrote head \(head.method) \(head.version)")
                    sawHead = true
                case .body(let piece):
                    body += piece.readableBytesArray()
                case .end(let trailers):
                    check(!ended, "wrote a second request")
                    ended = true
                    let got = trailers.map { ($0.name.string, $0.value.string) }
                    let want = request.trailers.map { ($0.name, $0.value) }
                    check(got.count == want.count && zip(got, want).allSatisfy { $0 == $1 }, "wrote trailers \(got)")
                }
            }
        } catch {
            check(false, "wrote bytes the request parser refuses: \(error)\n\(escaped(request.written.prefix(512)))")
        }
        check(sawHead && ended && wire.readableBytes == 0, "wrote an incomplete request: \(escaped(request.written.prefix(512)))")
        check(body == request.body, "wrote body \(escaped(body.prefix(64))), the driver gave \(escaped(request.body.prefix(64)))")
    }

    func checkQueries() {
        check(machine.isClosed == closed, "isClosed \(machine.isClosed)")
        check(machine.hasRequestInFlight == (request != nil), "hasRequestInFlight \(machine.hasRequestInFlight)")
        check(machine.isReusable == (!closed && request == nil), "isReusable \(machine.isReusable)")
        check(machine.isSendingRequestBody == (request?.sending == true), "isSendingRequestBody \(machine.isSendingRequestBody)")
        check(machine.isPaused == (request?.paused == true), "isPaused \(machine.isPaused)")
        check(machine.uses == started, "uses \(machine.uses), started \(started)")
        check(machine.requestBytesSent == bytesWritten, "requestBytesSent \(machine.requestBytesSent), written \(bytesWritten)")
    }

    /// Ends the input the way a connection ends: demand returns, the peer closes. Then every input
    /// to the closed machine must do nothing.
    mutating func finish() {
        if request?.paused == true { demand() }
        readEOF()
        checkQueries()
        check(request == nil && closed, "the request never got its terminal action")
        let probes: [(String, Action)] = [
            ("nextInboundAction", machine.nextInboundAction(&buffer)),
            ("readEOF", machine.readEOF(&buffer)),
            ("errorCaught", machine.errorCaught(ClientError(.ioError))),
            ("timeout", machine.timeout(.total)),
            ("timeout", machine.timeout(.continueWait)),
            ("cancel", machine.cancel()),
            ("demand", machine.demandMoreResponseBody()),
            ("requestBodyPart", machine.requestBodyPart(ByteBuffer(string: "x"))),
            ("requestBodyEnd", machine.requestBodyEnd()),
        ]
        for (name, action) in probes {
            check(action == .none, "\(name) on the closed machine gave \(brief(action))")
        }
        let start = machine.startRequest(head: HTTPRequestHead(method: .GET, target: .origin("/")), host: "h", body: .none)
        check(isFailure(start, .connectionClosed, then: .close), "start on the closed machine gave \(brief(start))")
        check(machine.isClosed && machine.uses == started, "the closed machine changed")
    }
}

private func isFailure(_ action: Action, _ code: ClientError.Code, then: Machine.AfterResponse = .close) -> Bool {
    if case .failRequest(let error, then) = action { return error.code == code }
    return false
}

/// A short rendering of an action for the step log.
private func brief(_ action: Action) -> String {
    switch action {
    case .write(let bytes, let then): return "write(\(bytes.readableBytes) bytes, then: \(then))"
    case .sendRequestBody: return "sendRequestBody"
    case .forwardHead(let head, let stop): return "forwardHead(\(head.version) \(head.status) \(head.framing) keepAlive=\(head.isKeepAlive)\(stop ? " stop" : ""))"
    case .forwardBody(let bytes): return "forwardBody(\(bytes.readableBytes))"
    case .succeedRequest(let trailers, let then): return "succeedRequest(\(trailers.count) trailers, then: \(then))"
    case .failRequest(let error, let then): return "failRequest(\(error), then: \(then))"
    case .wait(let hint): return "wait(\(hint))"
    case .resumeInbound: return "resumeInbound"
    case .close: return "close"
    case .none: return "none"
    }
}
