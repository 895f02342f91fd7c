import CourierCore
import CourierHTTP1
@testable import CourierClient

typealias ConnAction = HTTP1ConnectionStateMachine.Action

/// Drives an ``HTTP1ConnectionStateMachine`` the way the I/O driver will: one read buffer, bytes
/// appended in the pieces given, `nextInboundAction` looped until the machine waits or finishes.
struct ConnectionHarness {
    var machine: HTTP1ConnectionStateMachine
    var buffer = ByteBuffer()
    /// Every byte the machine asked to write, in order.
    var written: [UInt8] = []

    init(maximumUses: Int? = nil) {
        machine = HTTP1ConnectionStateMachine(maximumUses: maximumUses)
    }

    static func get(_ path: String = "/", method: HTTPMethod = .GET, headers: HTTPFields = HTTPFields()) -> HTTPRequestHead {
        HTTPRequestHead(method: method, target: .origin(path), headers: headers)
    }

    mutating func record(_ action: ConnAction) -> ConnAction {
        if case .write(let bytes, _) = action { written += bytes.readableBytesArray() }
        return action
    }

    mutating func start(
        _ head: HTTPRequestHead = get(), body: HTTP1ConnectionStateMachine.RequestBodyKind = .none,
        expectContinue: Bool = false, bodyReplayable: Bool = true, source: (any AnyObject & Sendable)? = nil,
        sourceIsKeepable: Bool = true
    ) -> ConnAction {
        record(machine.startRequest(
            head: head, host: "example.com", body: body, expectContinue: expectContinue, bodyReplayable: bodyReplayable,
            source: source, sourceIsKeepable: sourceIsKeepable))
    }

    mutating func part(_ s: String) -> ConnAction { record(machine.requestBodyPart(ByteBuffer(string: s))) }
    mutating func end(trailers: HTTPFields = HTTPFields()) -> ConnAction { record(machine.requestBodyEnd(trailers: trailers)) }

    /// Appends `bytes` and loops the inbound side until it stops.
    mutating func receive(_ bytes: [UInt8]) -> [ConnAction] {
        buffer.writeBytes(bytes)
        return drain(machine.nextInboundAction(&buffer))
    }

    mutating func receive(_ s: String) -> [ConnAction] { receive(Array(s.utf8)) }

    /// Feeds `s` in the given pieces (lengths), collecting every action.
    mutating func receive(_ s: String, pieces: [Int]) -> [ConnAction] {
        let bytes = Array(s.utf8)
        var at = 0
        var out: [ConnAction] = []
        for n in pieces {
            // A driver stops reading once the connection is closed.
            if machine.isClosed { break }
            out += receive(Array(bytes[at..<at + n]))
            at += n
        }
        return out
    }

    mutating func eof() -> [ConnAction] { drain(machine.readEOF(&buffer)) }

    mutating func drain(_ first: ConnAction) -> [ConnAction] {
        var out: [ConnAction] = []
        var action = first
        while true {
            out.append(record(action))
            switch action {
            case .forwardHead, .forwardBody, .sendRequestBody, .resumeInbound:
                action = machine.nextInboundAction(&buffer)
            default:
                return out
            }
        }
    }
}

/// The actions with `.wait(.read)` removed and adjacent body parts joined, so the same response
/// split differently compares equal.
func normalized(_ actions: [ConnAction]) -> [ConnAction] {
    var out: [ConnAction] = []
    for action in actions {
        if action == .wait(.read) { continue }
        if case .forwardBody(let b) = action, case .forwardBody(var a)? = out.last {
            a.writeBuffer(b)
            out[out.count - 1] = .forwardBody(a)
            continue
        }
        out.append(action)
    }
    return out
}

/// The response heads, bodies and endings in a list of actions, as text for readable expectations.
func summary(_ actions: [ConnAction]) -> [String] {
    normalized(actions).map { action in
        switch action {
        case .write(let b, let then): return "write(\(String(decoding: b.readableBytesArray(), as: UTF8.self)), \(then))"
        case .sendRequestBody: return "sendRequestBody"
        case .forwardHead(let h, let stop): return stop ? "head \(h.status) stop" : "head \(h.status)"
        case .forwardBody(let b): return "body \(String(decoding: b.readableBytesArray(), as: UTF8.self))"
        case .succeedRequest(let t, let then):
            return t.isEmpty ? "end \(then)" : "end \(t.map { "\($0.name)=\($0.value)" }.joined(separator: ",")) \(then)"
        case .failRequest(let e, let then): return "fail \(e.code)\(e.isSafeToRetry ? " retryable" : "") \(then)"
        case .wait(let hint): return "wait \(hint)"
        case .resumeInbound: return "resume"
        case .close: return "close"
        case .none: return "none"
        }
    }
}
