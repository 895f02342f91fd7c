import CourierCore
import CourierHTTP1

/// The state of one HTTP/1.1 connection, as a pure value: inputs in, ``Action``s out.
///
/// The driver owns the socket, the timers and one read buffer; this machine owns the response
/// parser and knows where the current request stands. It does no I/O, reads no clock and takes no
/// lock. One request at a time (no pipelining, RFC 9112 §9.3.2).
///
/// Driver loop, in short:
/// - ``startRequest(head:host:body:expectContinue:bodyReplayable:)`` → write the head.
/// - feed the body with ``requestBodyPart(_:)`` and ``requestBodyEnd(trailers:)`` when told to.
/// - after appending socket bytes to the read buffer, call ``nextInboundAction(_:)`` until it
///   returns ``Action/wait(_:)``, ``Action/succeedRequest(trailers:then:)``,
///   ``Action/failRequest(_:then:)``, ``Action/close`` or ``Action/none``.
/// - report EOF with ``readEOF(_:)`` (then keep calling ``nextInboundAction(_:)`` the same way),
///   socket errors with ``errorCaught(_:)``, timers with ``timeout(_:)``, and ``cancel()``.
///
/// Inputs that make no sense in the current phase because of the *network* (bytes on an idle
/// connection, EOF at any time) never trap. Inputs only a buggy driver would send (a second
/// request while one is in flight) are precondition failures.
public struct HTTP1ConnectionStateMachine: Sendable {
    private enum Phase: Sendable {
        /// No request; the connection may be parked in the pool.
        case idle
        /// A request is in flight; see `request`.
        case inFlight
        /// Closed or about to be: nothing more happens on this connection.
        case closed
    }

    /// Where the request body stands.
    private enum BodyPhase: Sendable {
        /// The head carried `Expect: 100-continue`; the body waits for `100 Continue`.
        case waitingForContinue
        /// The driver feeds parts; `sent` counts payload bytes.
        case sending(sent: Int64)
        /// The body is complete (or there was none).
        case sent
        /// A final response arrived first; the rest of the body is dropped.
        case abandoned
    }

    private enum ResponsePhase: Sendable {
        case waitingForHead
        case body(keepAlive: Bool, tunnel: Bool)
    }

    /// Everything about the request in flight.
    private struct InFlight: Sendable {
        var method: HTTPMethod
        var bodyKind: RequestBodyKind
        var body: BodyPhase
        var response = ResponsePhase.waitingForHead
        /// The request asked the server to close (RFC 9112 §9.6), or is HTTP/1.0 without keep-alive.
        var requestForbidsReuse: Bool
        /// The connection had served a request before this one.
        var isReusedConnection: Bool
        /// The driver can send the body again from the start.
        var bodyReplayable: Bool
        /// At least one response byte arrived for this request.
        var receivedResponseByte = false
        /// The consumer of the response body asked for a pause.
        var paused = false
        /// The server closed its side.
        var eof = false
    }

    /// A request head as last encoded on this connection, and whether it forbids reuse.
    private struct EncodedHead: Sendable {
        var head: HTTPRequestHead
        var host: String?
        var framing: RequestBodyFraming
        var forbidsReuse: Bool
        /// What the caller said the head was made from (``startRequest(head:host:body:expectContinue:bodyReplayable:source:sourceIsKeepable:)``).
        /// Held, so its identity cannot pass to another object while these bytes are kept.
        var source: (any AnyObject & Sendable)?

        /// Byte for byte (text equality would call canonically equivalent strings equal).
        func matches(_ other: HTTPRequestHead, host otherHost: String?, framing otherFraming: RequestBodyFraming) -> Bool {
            switch (host, otherHost) {
            case (nil, nil): break
            case (let mine?, let theirs?): guard mine.hasSameUTF8(as: theirs) else { return false }
            default: return false
            }
            return framing == otherFraming && head.hasSameBytes(as: other)
        }
    }

    private var phase = Phase.idle
    private var request: InFlight?
    private var parser: HTTPResponseParser
    /// The last request head's bytes. The same head again is sent as these bytes; another is
    /// encoded into this buffer: by then the write has let go of it, so it is unique again and
    /// the head is written without an allocation (a buffer still shared is copied on write, as
    /// any `ByteBuffer`).
    private var headBuffer = ByteBuffer()
    /// What `headBuffer` holds the encoding of; nil when it holds none.
    private var encodedHead: EncodedHead?
    /// The memory of the response head in flight, or of this connection's last one: its copy
    /// and box are filled again for a later head once the consumer has let go of them
    /// (``HTTPClientResponseHead/reused(_:reusing:box:)``).
    private var responseHead = ResponseHeadSlot()
    /// Where an ended response's head memory goes, for the next head of any connection on the
    /// loop (the connection sets its loop's); nil: this machine keeps it.
    var headMemory: LoopHeadMemory?

    /// The number of requests this connection may carry; nil for no limit.
    public let maximumUses: Int?
    /// Requests started on this connection so far.
    public private(set) var uses = 0
    /// Request bytes (head, body, chunk framing) handed to the driver to write.
    public private(set) var requestBytesSent: Int64 = 0
    /// Response bytes the parser has consumed over the connection's life.
    public var responseBytesConsumed: Int { parser.bytesConsumed }

    /// - Parameters:
    ///   - maximumUses: after this many requests the connection is closed instead of kept alive.
    ///   - parserConfiguration: limits for the response parser.
    public init(maximumUses: Int? = nil, parserConfiguration: HTTPParserConfiguration = .default) {
        precondition(maximumUses.map { $0 > 0 } ?? true, "maximumUses must be positive")
        self.maximumUses = maximumUses
        self.parser = HTTPResponseParser(configuration: parserConfiguration)
    }

    /// Whether the connection is idle and may carry a new request.
    public var isReusable: Bool {
        if case .idle = phase { return true }
        return false
    }

    /// Whether the connection is finished.
    public var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// Whether a request is in flight.
    public var hasRequestInFlight: Bool { request != nil }

    /// Whether the driver should be feeding request body parts now.
    public var isSendingRequestBody: Bool {
        if case .sending = request?.body { return true }
        return false
    }

    // MARK: - Request

    /// Starts a request on an idle connection and returns the encoded head to write.
    ///
    /// - Parameters:
    ///   - head: the request head. A `Connection: close` field in it forbids reuse (RFC 9112 §9.6).
    ///   - host: the Host value used when `head` has none (RFC 9112 §3.2).
    ///   - body: how the body is framed (RFC 9112 §6).
    ///   - expectContinue: send `Expect: 100-continue` and hold the body until `100 Continue` or the
    ///     continue timeout (RFC 9110 §10.1.1). Ignored without a body.
    ///   - bodyReplayable: the driver could send the body again; needed for a safe retry.
    /// - Returns: `.write(head, then:)`, or `.failRequest(.invalidRequest, then: .keepAlive)` when
    ///   the head cannot be encoded (nothing was written), or `.failRequest(.connectionClosed,
    ///   then: .close)` on a closed connection.
    /// How a body of this kind is framed on the wire (RFC 9112 §6).
    static func framing(of body: RequestBodyKind) -> RequestBodyFraming {
        switch body {
        case .none: return .none
        case .knownLength(let n):
            precondition(n >= 0, "negative request body length")
            return .contentLength(UInt64(n))
        case .chunked: return .chunked
        }
    }

    /// `head` with `Expect: 100-continue` when the caller wants it and there is a body to hold
    /// (RFC 9110 §10.1.1), and whether to wait for the interim response before sending it.
    static func expecting(_ head: HTTPRequestHead, body: RequestBodyKind, expectContinue: Bool) -> (HTTPRequestHead, wait: Bool) {
        let hasBody = body == .chunked || (body != .none && body != .knownLength(0))
        guard hasBody else { return (head, false) }
        var head = head
        let asked = head.headers.values(for: "Expect").contains { $0.lowercased() == "100-continue" }
        if expectContinue && !asked {
            do { try head.headers.append(name: "Expect", value: "100-continue") } catch {
                preconditionFailure("a constant field is valid")
            }
        }
        return (head, expectContinue || asked)
    }

    /// Starts a request: its head (with `host` as `Host`, RFC 9112 §3.2) goes out first.
    ///
    /// `source`: what the caller made `head`, `host` and `expectContinue` from, when it makes them
    /// the same way every time from the same object (the client passes the request's storage,
    /// from which it derives them for this connection). The head sent last on this connection
    /// from the same source, with the same body framing (`body` is measured for each request: a
    /// file may have changed size), is then sent again as its bytes without comparing the heads;
    /// without a source (or from another one) the heads are compared byte for byte.
    /// `sourceIsKeepable`: the source may be kept past the request, by the head memory the key's
    /// connections on the loop share (``LoopHeadMemory``), which lasts as long as the pool: the
    /// client passes ``HTTPClientRequest/holdsOnlyValues``.
    public mutating func startRequest(
        head: HTTPRequestHead, host: String? = nil, body: RequestBodyKind, expectContinue: Bool = false,
        bodyReplayable: Bool = true, source: (any AnyObject & Sendable)? = nil, sourceIsKeepable: Bool = false
    ) -> Action {
        switch phase {
        case .closed:
            return .failRequest(ClientError(.connectionClosed, detail: "start of \(head.method)"), then: .close)
        case .inFlight:
            preconditionFailure("startRequest while a request is in flight")
        case .idle:
            break
        }
        let framing = Self.framing(of: body)
        let (head, waitForContinue) = Self.expecting(head, body: body, expectContinue: expectContinue)
        let hasBody = body == .chunked || (body != .none && body != .knownLength(0))
        let bytes: ByteBuffer
        let forbidsReuse: Bool
        // The framing is compared even for the same source: it comes from the body as it is now
        // (a file's size is read for each request).
        // Read in place (`encodedHead?.…`): binding the record copied it, three retains and
        // three releases a request.
        let sameSource = source.map { $0 === encodedHead?.source && encodedHead?.framing == framing } ?? false
        if let source, let repeated = headMemory?.repeatedBytes(of: source, framing: framing) {
            // The loop's copy of a head sent again and again: the same bytes as this
            // connection's own copy would be, and still in the cache.
            bytes = repeated.bytes
            forbidsReuse = repeated.forbidsReuse
        } else if sameSource || encodedHead?.matches(head, host: host, framing: framing) == true {
            // The head this connection sent last, byte for byte (a load generator, a poller):
            // it was checked and encoded then, and `headBuffer` still holds those bytes.
            bytes = headBuffer
            forbidsReuse = encodedHead?.forbidsReuse == true
            // Sent twice in a row from one source: likely again, on the loop's other connections.
            // Only a source the caller lets be kept, and never with a body: the memory lasts as
            // long as the pool, and the source (the request's box) holds the request's body.
            if sameSource, sourceIsKeepable, !hasBody, let source, let headMemory {
                headMemory.repeatedRequest = SentRequestHead(source: source, framing: framing, forbidsReuse: forbidsReuse, bytes: bytes)
            }
        } else {
            encodedHead = nil
            var fresh = headBuffer
            headBuffer = ByteBuffer()
            fresh.clear()
            // Room for a typical head at once: growing from empty reallocated twice per request.
            fresh.reserveWritable(512)
            do {
                try HTTPRequestEncoder.encodeHead(head, host: host, framing: framing, into: &fresh)
            } catch {
                return .failRequest(ClientError(.invalidRequest, cause: error), then: .keepAlive)
            }
            forbidsReuse = Self.requestForbidsReuse(head)
            // A large head's buffer is not kept: an idle connection holds no more than a page.
            if fresh.capacity <= 4096 {
                headBuffer = fresh
                encodedHead = EncodedHead(head: head, host: host, framing: framing, forbidsReuse: forbidsReuse, source: source)
            }
            bytes = fresh
        }

        uses += 1
        // Set only when it changes: the setter copies the method and classifies it again (about
        // 80 instructions), and a keep-alive connection mostly sends one method.
        if parser.requestMethod != head.method { parser.requestMethod = head.method }
        let then: AfterWrite = !hasBody ? .requestComplete : waitForContinue ? .waitForContinue : .sendRequestBody
        request = InFlight(
            method: head.method, bodyKind: body,
            body: !hasBody ? .sent : waitForContinue ? .waitingForContinue : .sending(sent: 0),
            requestForbidsReuse: forbidsReuse, isReusedConnection: uses > 1,
            bodyReplayable: bodyReplayable)
        phase = .inFlight
        requestBytesSent += Int64(bytes.readableBytes)
        return .write(bytes, then: then)
    }

    /// RFC 9112 §9.6: a client that sends `Connection: close` will not reuse the connection.
    /// RFC 9112 §9.3: an HTTP/1.0 request without `keep-alive` is not persistent.
    private static func requestForbidsReuse(_ head: HTTPRequestHead) -> Bool {
        let tokens = head.headers.values(for: "Connection").flatMap { $0.split(separator: ",") }.map {
            $0.trimmingSpaces().lowercased()
        }
        if tokens.contains("close") { return true }
        return head.version == .http1_0 && !tokens.contains("keep-alive")
    }

    /// The next part of the request body. Returns the bytes to write: the part itself for a
    /// known length (RFC 9112 §6.2), a chunk for chunked (RFC 9112 §7.1).
    ///
    /// Returns `.failRequest(.bodyLengthMismatch, then: .close)` when the part goes past the
    /// declared length, and `.none` when the body is no longer wanted (the response came first,
    /// or the request is over) or the part is empty.
    public mutating func requestBodyPart(_ part: ByteBuffer) -> Action {
        guard case .inFlight = phase, var request else { return .none }
        let count = Int64(part.readableBytes)
        switch request.body {
        case .waitingForContinue:
            preconditionFailure("request body part before the body was asked for")
        case .abandoned:
            return .none
        case .sent:
            guard count > 0 else { return .none }
            return fail(ClientError(.bodyLengthMismatch, detail: "body part after the declared body was complete"))
        case .sending(let sent):
            guard count > 0 else { return .none }
            switch request.bodyKind {
            case .knownLength(let length):
                guard sent + count <= length else {
                    return fail(ClientError(.bodyLengthMismatch, detail: "more than the declared \(length) bytes"))
                }
                request.body = sent + count == length ? .sent : .sending(sent: sent + count)
                self.request = request
                requestBytesSent += count
                return .write(part, then: sent + count == length ? .requestComplete : .sendRequestBody)
            case .chunked:
                var framed = ByteBuffer(capacity: part.readableBytes + 20)
                HTTPRequestEncoder.encodeChunkHeader(size: part.readableBytes, into: &framed)
                framed.writeBuffer(part)
                HTTPRequestEncoder.encodeChunkEnd(into: &framed)
                request.body = .sending(sent: sent + count)
                self.request = request
                requestBytesSent += Int64(framed.readableBytes)
                return .write(framed, then: .sendRequestBody)
            case .none:
                return fail(ClientError(.bodyLengthMismatch, detail: "body part for a request without a body"))
            }
        }
    }

    /// The request body is complete. For chunked, returns the last chunk and `trailers`
    /// (RFC 9112 §7.1.2); a known-length body must have sent exactly its length (trailers are
    /// dropped: only chunked can carry them).
    public mutating func requestBodyEnd(trailers: HTTPFields = HTTPFields()) -> Action {
        guard case .inFlight = phase, var request else { return .none }
        switch request.body {
        case .waitingForContinue:
            preconditionFailure("request body end before the body was asked for")
        case .abandoned, .sent:
            return .none
        case .sending(let sent):
            switch request.bodyKind {
            case .knownLength(let length):
                return fail(ClientError(.bodyLengthMismatch, detail: "\(sent) of the declared \(length) bytes"))
            case .chunked:
                var bytes = ByteBuffer()
                HTTPRequestEncoder.encodeLastChunk(trailers: trailers, into: &bytes)
                request.body = .sent
                self.request = request
                requestBytesSent += Int64(bytes.readableBytes)
                return .write(bytes, then: .requestComplete)
            case .none:
                request.body = .sent
                self.request = request
                return .none
            }
        }
    }

    // MARK: - Response

    /// Parses what the read buffer holds and returns the next thing to do. Call it after appending
    /// bytes, and again after every action other than `.wait`, `.succeedRequest`, `.failRequest`,
    /// `.close` and `.none`.
    ///
    /// On an idle connection any byte is a response nobody asked for: the connection is stale or
    /// hostile and is closed (RFC 9112 §9.3.2: no pipelining, so nothing may arrive unasked).
    public mutating func nextInboundAction(_ buffer: inout ByteBuffer) -> Action {
        switch phase {
        case .closed:
            return .none
        case .idle:
            if buffer.readableBytes > 0 {
                phase = .closed
                return .close
            }
            return .wait(.read)
        case .inFlight:
            break
        }
        // The request is read and changed in place (`request!`): a copy of it per event retained
        // and released its fields for nothing.
        guard request != nil else { preconditionFailure("in flight without a request") }
        if request!.paused { return .wait(.stopReading) }
        if buffer.readableBytes > 0 && !request!.receivedResponseByte {
            request!.receivedResponseByte = true
        }
        while true {
            var event: HTTPResponseParserEvent
            do {
                event = try parser.next(&buffer)
                // Matched, not compared: `==` on the event enum compares whole heads.
                if case .needMoreData = event, request!.eof {
                    event = try parser.finish(&buffer)
                    if case .needMoreData = event {
                        // Closed between messages: no part of a response arrived.
                        return fail(closedBeforeResponse(request!, cause: nil))
                    }
                }
            } catch {
                return fail(mapParseError(error, request!))
            }
            // Consumed: the payloads move out of the event instead of being copied from it (a
            // head's copy and the event's destruction cost about 300 instructions a response).
            switch consume event {
            case .needMoreData:
                return .wait(.read)
            case .informational(let head):
                // RFC 9110 §15.2: interim responses; 100 releases a held body (§10.1.1), others
                // (103 Early Hints, 102) are skipped.
                if head.status == 100, case .waitingForContinue = request!.body {
                    request!.body = .sending(sent: 0)
                    return .sendRequestBody
                }
                continue
            case .switchingProtocols(let head):
                // RFC 9110 §7.8: we never send Upgrade, so a 101 is not ours to accept.
                return fail(ClientError(.unexpectedResponse, detail: "\(head.status) without an Upgrade request"))
            case .head(let head):
                var stop = false
                switch request!.body {
                case .waitingForContinue, .sending:
                    // RFC 9110 §10.1.1 / RFC 9112 §9.5: a final response before the body is sent ends
                    // the need for it; the connection cannot be reused (the server may not have
                    // read the body), so it closes after the response.
                    request!.body = .abandoned
                    stop = true
                case .sent, .abandoned:
                    break
                }
                request!.response = .body(keepAlive: head.isKeepAlive, tunnel: head.framing == .tunnel)
                // The loop's last given-back slot is the one still in the cache. A slot kept here
                // (the loop had no room for it) is used rather than dropped.
                if responseHead.box == nil, let spare = headMemory?.take() { responseHead = spare }
                let owned = HTTPClientResponseHead.reused(head, reusing: &responseHead.buffer, box: &responseHead.box)
                // As for request heads: an idle connection keeps no more than a page.
                if !responseHead.isWorthKeeping { responseHead = ResponseHeadSlot() }
                return .forwardHead(owned, stopSendingBody: stop)
            case .body(let bytes):
                return .forwardBody(bytes)
            case .end(let trailers):
                return finishResponse(trailers: trailers.owned(), buffer: buffer)
            }
        }
    }

    /// Decides keep-alive after a complete response (RFC 9112 §9.3, §9.6).
    private mutating func finishResponse(trailers: HTTPFields, buffer: ByteBuffer) -> Action {
        // Moved out, not copied (a copy retained its fields and the reset released them).
        guard let request = request.take(), case .body(let keepAlive, let tunnel) = request.response else {
            preconditionFailure("response end without a head")
        }
        // The head has been delivered: unless its consumer kept it, its box lets go of the
        // fields now, so the parser's span list and the head buffer are unique again when the
        // next head is parsed and copied (shared, the parser's next reset would copy the list).
        if isKnownUniquelyReferenced(&responseHead.box), let box = responseHead.box { box.releaseFields() }
        if let headMemory, responseHead.box != nil {
            // Kept here only when the loop has no room.
            responseHead = headMemory.give(responseHead) ?? ResponseHeadSlot()
        }
        if tunnel {
            phase = .closed
            return .succeedRequest(trailers: trailers, then: .tunnel)
        }
        var bodyComplete = false
        if case .sent = request.body { bodyComplete = true }
        let reusable =
            keepAlive && !request.requestForbidsReuse && bodyComplete && !request.eof
            && parser.isAtMessageBoundary && buffer.readableBytes == 0
            && maximumUses.map { uses < $0 } ?? true
        phase = reusable ? .idle : .closed
        return .succeedRequest(trailers: trailers, then: reusable ? .keepAlive : .close)
    }

    /// The server closed its side. The driver then calls ``nextInboundAction(_:)`` as usual (this
    /// call returns the first action): a body delimited by close ends (RFC 9112 §6.3 ¶8), anything
    /// else cut short fails. On an idle connection, EOF means the connection is stale: close.
    public mutating func readEOF(_ buffer: inout ByteBuffer) -> Action {
        switch phase {
        case .closed:
            return .none
        case .idle:
            phase = .closed
            return .close
        case .inFlight:
            request?.eof = true
            return nextInboundAction(&buffer)
        }
    }

    /// The response body consumer cannot take more; the machine stops parsing and tells the driver
    /// to stop reading (``Action/wait(_:)`` with `.stopReading`) until ``demandMoreResponseBody()``.
    public mutating func pauseResponseBody() {
        guard case .inFlight = phase else { return }
        request?.paused = true
    }

    /// The consumer wants more. Returns `.resumeInbound` when reading was paused, else `.none`.
    public mutating func demandMoreResponseBody() -> Action {
        guard case .inFlight = phase, request?.paused == true else { return .none }
        request?.paused = false
        return .resumeInbound
    }

    /// Whether response parsing is paused for backpressure.
    public var isPaused: Bool { request?.paused ?? false }

    // MARK: - Failures

    /// A socket or TLS error. Fails the request in flight; an idle connection just closes.
    public mutating func errorCaught(_ error: ClientError) -> Action {
        switch phase {
        case .closed: return .none
        case .idle:
            phase = .closed
            return .close
        case .inFlight: return fail(error)
        }
    }

    /// A timer the driver armed for the request in flight fired.
    public mutating func timeout(_ kind: TimeoutKind) -> Action {
        guard case .inFlight = phase, var request else { return .none }
        switch kind {
        case .idleRead:
            return fail(ClientError(.readTimeout))
        case .total:
            // The phase says where the time ran out: still sending the request (a body the server
            // does not read, or a 100-continue wait), or waiting for the response.
            switch request.body {
            case .waitingForContinue, .sending:
                return fail(ClientError(.totalTimeout, phase: .send, detail: "while sending the request"))
            case .sent, .abandoned:
                return fail(ClientError(.totalTimeout, detail: "while receiving the response"))
            }
        case .continueWait:
            // RFC 9110 §10.1.1: a client that waited "for some reasonable period" may send the body.
            guard case .waitingForContinue = request.body else { return .none }
            request.body = .sending(sent: 0)
            self.request = request
            return .sendRequestBody
        }
    }

    /// The request's owner cancelled it. A connection with a request in flight is closed, never
    /// reused: the server may still be sending (or reading) the abandoned exchange.
    public mutating func cancel() -> Action {
        guard case .inFlight = phase else { return .none }
        return fail(ClientError(.cancelled))
    }

    private mutating func fail(_ error: ClientError) -> Action {
        phase = .closed
        request = nil
        return .failRequest(error, then: .close)
    }

    /// RFC 9112 §9.3.1 and RFC 9110 §9.2.2: a request may be retried automatically only if it is
    /// idempotent, its body can be sent again, and the server provably did not act on it — here:
    /// the connection was reused (a stale keep-alive connection the server closed) and not one
    /// response byte arrived.
    private func closedBeforeResponse(_ request: InFlight, cause: HTTPParserError?) -> ClientError {
        let safe =
            request.isReusedConnection && !request.receivedResponseByte && request.method.isIdempotent
            && request.bodyReplayable
        let detail = request.receivedResponseByte
            ? "the connection closed in the middle of the response head"
            : request.isReusedConnection
                ? "the reused connection closed before any response byte"
                : "the new connection closed before any response byte"
        return ClientError(.remoteClosedBeforeResponse, cause: cause, detail: detail, isSafeToRetry: safe)
    }

    private func mapParseError(_ error: HTTPParserError, _ request: InFlight) -> ClientError {
        guard error.code == .truncatedMessage else { return ClientError(.parse, cause: error) }
        if case .waitingForHead = request.response { return closedBeforeResponse(request, cause: error) }
        return ClientError(.remoteClosedDuringBody, cause: error)
    }
}

extension Substring {
    /// Without leading and trailing SP/HTAB (RFC 9110 §5.6.3 OWS).
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
