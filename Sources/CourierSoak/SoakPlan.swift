import CourierTestSupport

/// Where a request goes. Each target is one nginx server block (or the relay in front of one), so
/// each is its own pool key in the client.
enum SoakTarget: String, CaseIterable, Sendable {
    /// nginx, `keepalive_requests 1`: every connection carries one request.
    case keepAlive1 = "nginx ka=1"
    /// nginx, `keepalive_requests 7`, 1 s keep-alive timeout.
    case keepAlive7 = "nginx ka=7"
    /// nginx, `keepalive_requests 100`, 1 s keep-alive timeout.
    case keepAlive100 = "nginx ka=100"
    /// nginx, 1 s keep-alive timeout, one port per idle-close probe; each probe asks about once
    /// a second.
    case idle = "nginx idle probes"
    /// nginx in front of the upstream that resets, closes, truncates and stalls on request.
    case proxy = "nginx -> faulty upstream"
    /// The fault-injecting relay in front of nginx (`keepalive_requests 20`).
    case relay = "relay -> nginx"

    /// The only fault on this target is the server closing connections (after a response, or
    /// idle ones): every request must succeed, thanks to the one safe retry.
    var onlyIdleCloses: Bool {
        switch self {
        case .keepAlive1, .keepAlive7, .keepAlive100, .idle: true
        case .proxy, .relay: false
        }
    }
}

/// What the upstream behind nginx is asked to do (`fault=` in the query; Soak/upstream.py).
enum UpstreamFault: String, Sendable {
    case none, chunked, slow, reset, close, truncate, stall
}

/// One planned request: its URL, what a correct response holds, and the fault it asks for.
struct PlannedRequest: Sendable {
    var id: String
    var target: SoakTarget
    var url: String
    /// The body length a complete response has (decoded, for the gzip file).
    var expectedLength: Int
    var upstreamFault: UpstreamFault?
}

/// Decides, from the seed and the request's number alone, where each request goes and which
/// fault it asks for, so a run can be replayed exactly.
struct SoakPlan: Sendable {
    let seed: UInt64
    let ports: SoakOptions.Ports

    /// Files nginx serves (Soak/run.sh makes them): path, decoded length, weight in 100.
    static let files: [(path: String, length: Int, weight: Int)] = [
        ("/s/empty", 0, 10), ("/s/1k", 1024, 40), ("/s/8k", 8192, 30), ("/s/64k", 65536, 5),
        ("/z/32k.txt", 32768, 15),  // gzip-compressed and chunked by nginx
    ]

    func request(_ number: Int, prefix: String) -> PlannedRequest {
        var random = SplitMix64(seed: seed ^ (UInt64(number) &* 0x9E37_79B9_7F4A_7C15) ^ (prefix == "s" ? 0x5E55_1011 : 0))
        let id = "\(prefix)\(number)"
        let draw = Int(random.next() % 1000)
        let target: SoakTarget =
            draw < 150 ? .keepAlive1 : draw < 400 ? .keepAlive7 : draw < 700 ? .keepAlive100 : draw < 850 ? .proxy : .relay
        if target == .proxy {
            let length = 1000 + Int(random.next() % 15_000)
            let fault = Self.upstreamFault(Int(random.next() % 1000))
            return PlannedRequest(
                id: id, target: target,
                url: "http://127.0.0.1:\(ports.proxy)/up/x?id=\(id)&fault=\(fault.rawValue)&len=\(length)",
                expectedLength: length, upstreamFault: fault)
        }
        return staticRequest(id: id, target: target, random: &random)
    }

    /// An idle-close probe's request. Probe `slot` has a port of its own (the idle server listens
    /// on one port per probe), so each probe has its own pool key and its own connection, idle
    /// for exactly the probe's pause.
    func probe(_ number: Int, slot: Int, prefix: String) -> PlannedRequest {
        var random = SplitMix64(seed: seed ^ UInt64(number))
        return staticRequest(id: "\(prefix)p\(number)", target: .idle, random: &random, port: ports.idle + slot)
    }

    private func staticRequest(id: String, target: SoakTarget, random: inout SplitMix64, port: Int? = nil) -> PlannedRequest {
        var pick = Int(random.next() % 100)
        var file = Self.files[0]
        for candidate in Self.files {
            if pick < candidate.weight { file = candidate; break }
            pick -= candidate.weight
        }
        return PlannedRequest(
            id: id, target: target, url: "http://127.0.0.1:\(port ?? self.port(target))\(file.path)?id=\(id)",
            expectedLength: file.length, upstreamFault: nil)
    }

    private func port(_ target: SoakTarget) -> Int {
        switch target {
        case .keepAlive1: ports.keepAlive1
        case .keepAlive7: ports.keepAlive7
        case .keepAlive100: ports.keepAlive100
        case .idle: ports.idle
        case .proxy: ports.proxy
        case .relay: ports.relay
        }
    }

    /// Per mille: reset 20, close 20, truncate 20, stall 2, slow 50, chunked 200, none the rest.
    private static func upstreamFault(_ draw: Int) -> UpstreamFault {
        switch draw {
        case ..<20: .reset
        case ..<40: .close
        case ..<60: .truncate
        case ..<62: .stall
        case ..<112: .slow
        case ..<312: .chunked
        default: .none
        }
    }
}
