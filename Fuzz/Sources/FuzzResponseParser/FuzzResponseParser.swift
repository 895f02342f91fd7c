// Fuzzes HTTPResponseParser: the same stream fed whole and cut into pieces must give the same
// normalised event log, and every event must obey the parser's documented limits.
//
// Input layout:
//   bytes 0–3   parser configuration (HTTPParserConfiguration.fuzzed)
//   byte  4     feeding mode (low two bits: 1/2/3 cuts or bytewise); bits 2–3 the request
//               method (GET, HEAD, CONNECT, POST); bit 4: the split feeding keeps every head and
//               body it was handed alive to the end (so the buffer is shared, not reused in
//               place) and checks they never changed
//   bytes 5–10  three little-endian 16-bit cut selectors
//   bytes 11…   the response stream
import CourierCore
import CourierHTTP1
import FuzzSupport

private let methods: [HTTPMethod] = [.GET, .HEAD, .CONNECT, .POST]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let configuration = HTTPParserConfiguration.fuzzed(&reader)
    let headerLength = 11
    let streamLength = Swift.max(0, size - headerLength)
    let (feeding, modeBits) = Feeding.read(from: &reader, count: streamLength)
    let method = methods[Int(modeBits & 3)]
    let retain = modeBits & 4 != 0
    let stream = reader.rest()

    let setup = "configuration: \(configuration.fuzzSummary) method=\(method) retain=\(retain)"
    let whole = parse(
        [stream[...]], configuration: configuration, method: method, total: stream.count, retain: false, setup: setup)
    let split = parse(
        feeding.pieces(stream), configuration: configuration, method: method, total: stream.count, retain: retain,
        setup: setup)
    if whole != split {
        fuzzFail("\(setup)\n" + describeDifference(whole, split, feeding: feeding, input: stream))
    }
    return 0
}

private func describeDifference(_ a: EventLog, _ b: EventLog, feeding: Feeding, input: [UInt8]) -> String {
    "feeding \(feeding) differs from feeding whole\ninput (\(input.count) bytes): \(escaped(input.prefix(512)))\nwhole:\n\(a)\n\(feeding):\n\(b)"
}

/// What the current message has shown so far, for the per-message checks.
private struct MessageState {
    var framing: BodyFraming?
    var status = 0
    var bodyBytes: UInt64 = 0
}

/// Feeds `pieces` to a fresh parser (draining `next` after each), then `finish`, and returns the
/// normalised log. Checks the per-event properties on the way.
private func parse(
    _ pieces: [ArraySlice<UInt8>], configuration: HTTPParserConfiguration, method: HTTPMethod, total: Int,
    retain: Bool, setup: String
) -> EventLog {
    var parser = HTTPResponseParser(configuration: configuration)
    parser.requestMethod = method
    var buffer = ByteBuffer()
    var log = EventLog()
    var fed = 0
    var steps = 0
    // Every event but `end` consumes at least one byte, and `end` follows some other event.
    let stepLimit = 2 * total + 8
    var message = MessageState()
    // With `retain`, what was handed out and how it looked then, checked again at the end.
    var heldHeads: [(HTTPResponseHead, String)] = []
    var heldBodies: [(ByteBuffer, [UInt8])] = []
    var heldTrailers: [(HTTPHeaderView, String)] = []

    func checkCounters(_ context: String) {
        fuzzCheck(
            parser.bytesConsumed >= 0 && parser.bytesConsumed <= total,
            "\(setup)\n\(context): bytesConsumed \(parser.bytesConsumed) outside 0...\(total)")
        fuzzCheck(
            parser.bytesConsumed + buffer.readableBytes == fed,
            "\(setup)\n\(context): bytesConsumed \(parser.bytesConsumed) + buffered \(buffer.readableBytes) != fed \(fed)")
    }

    func record(_ event: HTTPResponseParserEvent, consumedBefore: Int, context: String) {
        steps += 1
        fuzzCheck(steps <= stepLimit, "\(setup)\n\(context): more than \(stepLimit) events from \(total) bytes")
        switch event {
        case .informational(let head), .head(let head), .switchingProtocols(let head):
            let headLength = parser.bytesConsumed - consumedBefore
            fuzzCheck(
                headLength > 0 && headLength <= configuration.maxHeaderBytes,
                "\(setup)\n\(context): head of \(headLength) bytes, limit \(configuration.maxHeaderBytes)")
            let kind: String
            switch event {
            case .informational:
                kind = "informational"
                fuzzCheck((100..<200).contains(head.status) && head.status != 101, "informational with status \(head.status)")
            case .switchingProtocols:
                kind = "switchingProtocols"
                fuzzCheck(head.status == 101, "switchingProtocols with status \(head.status)")
            default:
                kind = "head"
                fuzzCheck((200...999).contains(head.status), "final head with status \(head.status)")
            }
            checkHead(head, method: method, configuration: configuration, setup: setup)
            message = MessageState(framing: head.framing, status: head.status, bodyBytes: 0)
            if retain { heldHeads.append((head, renderHead(head))) }
            log.add("\(kind) \(renderHead(head)) length=\(headLength)")
        case .body(let bytes):
            fuzzCheck(bytes.readableBytes > 0, "\(setup)\n\(context): empty body event")
            message.bodyBytes += UInt64(bytes.readableBytes)
            if let max = configuration.maxBodyBytes {
                fuzzCheck(message.bodyBytes <= max, "\(setup)\n\(context): \(message.bodyBytes) body bytes, limit \(max)")
            }
            switch message.framing {
            case .contentLength(let n)?:
                fuzzCheck(message.bodyBytes <= n, "\(setup)\n\(context): \(message.bodyBytes) body bytes for Content-Length \(n)")
            case .chunked?, .untilClose?:
                break
            default:
                fuzzFail("\(setup)\n\(context): body bytes for framing \(String(describing: message.framing))")
            }
            log.body(bytes)
            if retain { heldBodies.append((bytes, bytes.readableBytesArray())) }
        case .end(let trailers):
            if case .contentLength(let n)? = message.framing {
                fuzzCheck(message.bodyBytes == n, "\(setup)\n\(context): ended after \(message.bodyBytes) of \(n) body bytes")
            }
            if trailers.isEmpty {
                log.add("end")
            } else {
                fuzzCheck(message.framing == .chunked, "\(setup)\n\(context): trailers without chunked framing")
                checkFieldSection(trailers, maxFieldCount: configuration.maxFieldCount, what: "trailers")
                log.add("end trailers=\(render(trailers))")
                if retain { heldTrailers.append((trailers, render(trailers))) }
            }
            message = MessageState()
        case .needMoreData:
            fuzzFail("\(setup)\n\(context): needMoreData is not an event to record")
        }
    }

    do throws(HTTPParserError) {
        for (index, piece) in pieces.enumerated() {
            buffer.writeBytes(piece)
            fed += piece.count
            while true {
                let before = parser.bytesConsumed
                let event = try parser.next(&buffer)
                if case .needMoreData = event { break }
                checkCounters("piece \(index) next")
                record(event, consumedBefore: before, context: "piece \(index) next")
            }
            checkCounters("piece \(index) drained")
        }
        while true {
            let before = parser.bytesConsumed
            let event = try parser.finish(&buffer)
            if case .needMoreData = event { break }
            checkCounters("finish")
            record(event, consumedBefore: before, context: "finish")
        }
        checkCounters("finished")
        log.add(
            "finished consumed=\(parser.bytesConsumed) upgraded=\(parser.isUpgraded) boundary=\(parser.isAtMessageBoundary)")
    } catch {
        fuzzCheck(
            error.offset >= 0 && error.offset <= total,
            "\(setup)\nerror \(error) has an offset outside 0...\(total)")
        checkCounters("after error \(error)")
        log.add("error \(error.code)@\(error.offset)")
        // A failed parser stays failed, with the same error.
        var again: HTTPParserError?
        do throws(HTTPParserError) { _ = try parser.next(&buffer) } catch { again = error }
        fuzzCheck(again == error, "\(setup)\nnext() after \(error) gave \(String(describing: again))")
        again = nil
        do throws(HTTPParserError) { _ = try parser.finish(&buffer) } catch { again = error }
        fuzzCheck(again == error, "\(setup)\nfinish() after \(error) gave \(String(describing: again))")
    }
    // Nothing handed out may change afterwards, whatever the parser did with its buffer since.
    for (head, rendered) in heldHeads {
        fuzzCheck(renderHead(head) == rendered, "\(setup)\na head changed after it was returned:\n\(rendered)\nnow\n\(renderHead(head))")
    }
    for (body, bytes) in heldBodies {
        fuzzCheck(body.readableBytesArray() == bytes, "\(setup)\nbody bytes changed after they were returned: \(escaped(bytes)) now \(escaped(body))")
    }
    for (trailers, rendered) in heldTrailers {
        fuzzCheck(render(trailers) == rendered, "\(setup)\ntrailers changed after they were returned: \(rendered) now \(render(trailers))")
    }
    return log
}

private func renderHead(_ head: HTTPResponseHead) -> String {
    "\(head.version) \(head.status) reason=\(escaped(head.reason)) fields=\(render(head.headers)) "
        + "framing=\(head.framing) keepAlive=\(head.isKeepAlive) coding=\(ContentDecodingPlan(headers: head.headers))"
}

/// The properties of one head: the grammar of its parts, and framing that agrees with the
/// framing fields the head shows (RFC 9112 §6.3).
private func checkHead(_ head: HTTPResponseHead, method: HTTPMethod, configuration: HTTPParserConfiguration, setup: String) {
    let context = "\(setup)\nhead \(renderHead(head))"
    fuzzCheck(head.version == .http1_0 || head.version == .http1_1, "\(context): version \(head.version)")
    head.reason.withUnsafeBytes { reason in
        fuzzCheck(reason.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }, "\(context): reason has a control byte")
    }
    checkFieldSection(head.headers, maxFieldCount: configuration.maxFieldCount, what: context)
    fuzzCheck(
        head.isKeepAlive == expectedKeepAlive(version: head.version, fields: head.headers, framing: head.framing),
        "\(context): isKeepAlive disagrees with the Connection and framing fields")

    // The framing fields as the head shows them.
    var lengths: [UInt64?] = []
    var codings: [[UInt8]] = []
    var sawTransferEncoding = false
    for field in head.headers {
        if field.name.equalsCaseInsensitive("content-length") {
            lengths.append(field.value.withUnsafeBytes { decimal($0) })
        } else if field.name.equalsCaseInsensitive("transfer-encoding") {
            sawTransferEncoding = true
            field.value.withUnsafeBytes { value in
                for element in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
                    let token = element.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
                    if !token.isEmpty { codings.append(Array(token)) }
                }
            }
        }
    }
    let lastIsChunked = codings.last.map { $0.map(lower) == Array("chunked".utf8) } ?? false
    // RFC 9110 §9.3.6: any 2xx to CONNECT opens a tunnel, 204 included; that is decided first.
    let tunnel = method == .CONNECT && (200..<300).contains(head.status)
    let bodiless = !tunnel && (method == .HEAD || (100..<200).contains(head.status) || head.status == 204 || head.status == 304)

    switch head.framing {
    case .none:
        if !bodiless && !tunnel {
            fuzzCheck(!sawTransferEncoding, "\(context): framing none with Transfer-Encoding")
            fuzzCheck(!lengths.isEmpty && lengths.allSatisfy { $0 == 0 }, "\(context): framing none without Content-Length: 0")
        }
    case .tunnel:
        fuzzCheck(tunnel, "\(context): tunnel framing for \(method) \(head.status)")
    case .contentLength(let n):
        fuzzCheck(!bodiless && !tunnel, "\(context): a body for \(method) \(head.status)")
        fuzzCheck(!sawTransferEncoding, "\(context): Content-Length framing with Transfer-Encoding present")
        fuzzCheck(
            !lengths.isEmpty && lengths.allSatisfy { $0 == n },
            "\(context): framing Content-Length \(n) but the fields say \(lengths)")
        if let max = configuration.maxBodyBytes { fuzzCheck(n <= max, "\(context): Content-Length \(n) above limit \(max)") }
    case .chunked:
        fuzzCheck(!bodiless && !tunnel, "\(context): a body for \(method) \(head.status)")
        fuzzCheck(sawTransferEncoding && lastIsChunked, "\(context): chunked framing but the codings are \(codings.map { escaped($0) })")
        fuzzCheck(head.version == .http1_1, "\(context): chunked framing in \(head.version)")
        fuzzCheck(
            lengths.isEmpty || configuration.allowContentLengthWithTransferEncoding,
            "\(context): chunked with Content-Length accepted")
        fuzzCheck(!head.isKeepAlive || lengths.isEmpty, "\(context): keep-alive with both Content-Length and chunked")
    case .untilClose:
        fuzzCheck(!bodiless && !tunnel, "\(context): a body for \(method) \(head.status)")
        fuzzCheck(lengths.isEmpty && !sawTransferEncoding, "\(context): read-until-close with framing fields present")
        fuzzCheck(!head.isKeepAlive, "\(context): read-until-close marked keep-alive")
    }
}

private func lower(_ b: UInt8) -> UInt8 {
    (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) ? b | 0x20 : b
}

/// A non-empty run of decimal digits that fits in UInt64, or nil.
private func decimal(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
    guard !bytes.isEmpty else { return nil }
    var value: UInt64 = 0
    for b in bytes {
        guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
        let (m, o1) = value.multipliedReportingOverflow(by: 10)
        let (s, o2) = m.addingReportingOverflow(UInt64(b - UInt8(ascii: "0")))
        guard !o1, !o2 else { return nil }
        value = s
    }
    return value
}
