// Fuzzes the SOCKS5 client handshake (CourierClient's SOCKS5Handshake, RFC 1928 with RFC 1929
// username/password) against hostile proxy bytes: the method selection, the authentication
// reply, the CONNECT reply and whatever follows it.
//
// Properties checked on every input:
// - nothing traps;
// - fed whole and cut into pieces it gives the same messages, the same outcome and the same
//   bytes handed on after the reply (joined across pieces);
// - the outcome is what a plain reading of RFC 1928 §3, §6 and RFC 1929 §2 over the whole input
//   gives (every byte checked when it arrives; ATYP 1, 3, 4; REP 0 only; methods 0, and 2 only
//   when offered; X'FF'; the end of the input before the reply is complete);
// - what it sends is the authentication request (only after method 2, only with credentials)
//   and then the CONNECT request, each once, in that order;
// - `done` hands on exactly the input after the reply; a finished handshake stays finished:
//   more bytes after `done` come back as leftover, after `fail` the same failure.
//
// Input layout (read in order; past the end every byte reads as 0):
//   byte c   configuration: bit 0 credentials, bits 1–2 destination (IPv4, IPv6, name, name),
//            bit 3 the input ends with the proxy closing
//   bytes    feeding: mode byte and three 16-bit cut selectors (FuzzSupport.Feeding)
//   the rest the proxy's bytes
import CourierClient
import FuzzSupport

struct Run: Equatable, CustomStringConvertible {
    var sent: [[UInt8]] = []
    var outcome = "needMoreData"
    var leftover: [UInt8] = []
    var description: String { "sent \(sent)\n  outcome \(outcome)\n  leftover \(leftover)" }
}

func drive(_ handshake: SOCKS5Handshake, _ pieces: [ArraySlice<UInt8>], eof: Bool) -> (Run, SOCKS5Handshake) {
    var handshake = handshake
    var run = Run()
    func apply(_ actions: [SOCKS5Handshake.Action]) {
        for (index, action) in actions.enumerated() {
            switch action {
            case .send(let bytes):
                run.sent.append(bytes)
                fuzzCheck(index < actions.count - 1, "send was the last action")
            case .needMoreData:
                fuzzCheck(index == actions.count - 1, "needMoreData was not the last action")
                run.outcome = "needMoreData"
            case .done(let bound, let port, let leftover):
                fuzzCheck(index == actions.count - 1, "done was not the last action")
                run.outcome = "done \(bound):\(port)"
                run.leftover += leftover
            case .fail(let error):
                fuzzCheck(index == actions.count - 1, "fail was not the last action")
                run.outcome = "fail \(error)"
            }
        }
    }
    for piece in pieces { apply(handshake.receive(piece)) }
    if eof { apply([handshake.receiveEOF()]) }
    return (run, handshake)
}

/// RFC 1928 §3, §6 and RFC 1929 §2 read plainly over the whole input.
func reference(_ input: [UInt8], credentials: Bool, authentication: [UInt8], request: [UInt8], eof: Bool) -> Run {
    var run = Run()
    var i = 0
    func byte(_ offset: Int) -> UInt8? { i + offset < input.count ? input[i + offset] : nil }
    func incomplete() -> Run {
        if eof { run.outcome = "fail \(SOCKSError.closedDuringHandshake)" }
        return run
    }
    func fail(_ error: SOCKSError) -> Run {
        run.outcome = "fail \(error)"
        return run
    }
    guard let version = byte(0) else { return incomplete() }
    guard version == 5 else { return fail(.unsupportedVersion(version)) }
    guard let method = byte(1) else { return incomplete() }
    i += 2
    switch method {
    case 0:
        break
    case 2 where credentials:
        run.sent.append(authentication)
        guard let authVersion = byte(0) else { return incomplete() }
        guard authVersion == 1 else { return fail(.unsupportedAuthenticationVersion(authVersion)) }
        guard let status = byte(1) else { return incomplete() }
        guard status == 0 else { return fail(.authenticationFailed(status: status)) }
        i += 2
    case 0xFF:
        return fail(.noAcceptableMethods)
    default:
        return fail(.unexpectedMethod(method))
    }
    run.sent.append(request)
    guard let replyVersion = byte(0) else { return incomplete() }
    guard replyVersion == 5 else { return fail(.unsupportedVersion(replyVersion)) }
    guard let reply = byte(1) else { return incomplete() }
    guard reply == 0 else { return fail(.requestFailed(SOCKS5Reply(code: reply))) }
    guard byte(2) != nil, let addressType = byte(3) else { return incomplete() }
    var length: Int
    var start = 4
    switch addressType {
    case 1: length = 4
    case 4: length = 16
    case 3:
        guard let n = byte(4) else { return incomplete() }
        length = Int(n)
        start = 5
    default: return fail(.unsupportedAddressType(addressType))
    }
    let end = i + start + length + 2
    guard end <= input.count else { return incomplete() }
    let address = Array(input[(i + start)..<(i + start + length)])
    let bound: SOCKS5Address = addressType == 1 ? .ipv4(address) : addressType == 4 ? .ipv6(address) : .domain(address)
    let port = UInt16(input[end - 2]) << 8 | UInt16(input[end - 1])
    run.outcome = "done \(bound):\(port)"
    run.leftover = Array(input[end...])
    return run
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSOCKSReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let configuration = reader.u8()
    let credentials = configuration & 1 != 0 ? ProxyCredentials(username: "user", password: "p@ss") : nil
    let destination: SOCKS5Address
    switch (configuration >> 1) & 3 {
    case 0: destination = .ipv4([192, 0, 2, 1])
    case 1: destination = .ipv6([0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1])
    default: destination = .domain(Array("example.com".utf8))
    }
    let eof = configuration & 8 != 0
    let streamLength = Swift.max(0, size - 8)
    let (feeding, _) = Feeding.read(from: &reader, count: streamLength)
    let input = reader.rest()

    let handshake: SOCKS5Handshake
    do {
        handshake = try SOCKS5Handshake(destination: destination, port: 443, credentials: credentials)
    } catch {
        fuzzFail("a valid handshake was refused: \(error)")
    }
    let offered: [UInt8] = credentials == nil ? [5, 1, 0] : [5, 2, 0, 2]
    fuzzCheck(handshake.greeting == offered, "greeting \(handshake.greeting)")
    let authentication: [UInt8] = [1, 4] + Array("user".utf8) + [4] + Array("p@ss".utf8)
    let request: [UInt8] = [5, 1, 0] + {
        switch destination {
        case .ipv4(let bytes): return [1] + bytes
        case .ipv6(let bytes): return [4] + bytes
        case .domain(let name): return [3, UInt8(name.count)] + name
        }
    }() + [0x01, 0xBB]

    let (whole, finished) = drive(handshake, [input[...]], eof: eof)
    let (cut, _) = drive(handshake, feeding.pieces(input), eof: eof)
    fuzzCheck(cut == whole, "\(feeding) gave a different run\n whole: \(whole)\n cut:   \(cut)")
    let expected = reference(input, credentials: credentials != nil, authentication: authentication, request: request, eof: eof)
    fuzzCheck(whole == expected, "not what RFC 1928 says\n got:      \(whole)\n expected: \(expected)")

    // A finished handshake stays finished.
    var after = finished
    switch whole.outcome {
    case let outcome where outcome.hasPrefix("done"):
        let more = after.receive([9, 8, 7])
        guard case .done(_, _, let leftover)? = more.first, more.count == 1, leftover == [9, 8, 7] else {
            fuzzFail("bytes after done were not handed on: \(more)")
        }
    case let outcome where outcome.hasPrefix("fail"):
        let more = after.receive([5, 0])
        guard case .fail(let error)? = more.first, more.count == 1, "fail \(error)" == outcome else {
            fuzzFail("a failed handshake did not stay failed: \(more)")
        }
    default:
        fuzzCheck(!eof, "the input ended without an outcome")
    }
    return 0
}
