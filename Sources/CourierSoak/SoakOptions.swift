#if canImport(Glibc)
import Glibc
#endif

/// The driver's settings: `--name value` arguments, else the `SOAK_NAME` environment variable,
/// else the default. Soak/run.sh passes the ports and log paths of the servers it started.
struct SoakOptions {
    /// Requests through `HTTPClient`.
    var requests = 1_000_000
    /// Requests through `SessionManager`.
    var sessionRequests = 200_000
    /// Requests in flight at once (each worker keeps one).
    var concurrency = 64
    /// Idle-close probes running beside the workers, each waiting about the server's
    /// keep-alive timeout between its requests.
    var probes = 8
    /// Seeds the plan (which target and fault each request gets) and the relay's decisions.
    var seed: UInt64 = 1
    /// Every request's total deadline.
    var deadlineMilliseconds = 2_000
    /// How far past its deadline a request may end before it counts as outliving it
    /// (timer granularity and scheduling on a loaded machine).
    var slackMilliseconds = 250
    /// RSS may grow by at most this much after warm-up (the first fifth of a phase).
    var rssGrowthLimitMiB = 64
    var ports = Ports()
    var upstreamLog = ""
    var relayLog = ""

    struct Ports {
        var keepAlive1 = 0
        var keepAlive7 = 0
        var keepAlive100 = 0
        var idle = 0
        var proxy = 0
        var relay = 0
    }

    static func parse(_ arguments: [String]) -> SoakOptions {
        var values: [String: String] = [:]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), index + 1 < arguments.count else {
                fail("unexpected argument \(argument) (expected --name value)")
            }
            values[String(argument.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
        func value(_ name: String) -> String? {
            if let given = values.removeValue(forKey: name) { return given }
            let variable = "SOAK_" + name.uppercased().replacing("-", with: "_")
            return getenv(variable).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        func integer(_ name: String, _ current: Int) -> Int {
            guard let text = value(name) else { return current }
            guard let number = Int(text), number >= 0 else { fail("--\(name) \(text) is not a count") }
            return number
        }
        var options = SoakOptions()
        options.requests = integer("requests", options.requests)
        options.sessionRequests = integer("session-requests", options.sessionRequests)
        options.concurrency = max(1, integer("concurrency", options.concurrency))
        options.probes = integer("probes", options.probes)
        options.seed = UInt64(integer("seed", Int(options.seed)))
        options.deadlineMilliseconds = max(1, integer("deadline-ms", options.deadlineMilliseconds))
        options.slackMilliseconds = integer("slack-ms", options.slackMilliseconds)
        options.rssGrowthLimitMiB = integer("rss-growth-mib", options.rssGrowthLimitMiB)
        options.ports.keepAlive1 = integer("port-ka1", 0)
        options.ports.keepAlive7 = integer("port-ka7", 0)
        options.ports.keepAlive100 = integer("port-ka100", 0)
        options.ports.idle = integer("port-idle", 0)
        options.ports.proxy = integer("port-proxy", 0)
        options.ports.relay = integer("port-relay", 0)
        options.upstreamLog = value("upstream-log") ?? ""
        options.relayLog = value("relay-log") ?? ""
        if let unknown = values.keys.sorted().first { fail("unknown option --\(unknown)") }
        let ports = options.ports
        if [ports.keepAlive1, ports.keepAlive7, ports.keepAlive100, ports.idle, ports.proxy, ports.relay].contains(0)
            || options.upstreamLog.isEmpty || options.relayLog.isEmpty {
            fail("the server ports and logs are required: run it with `make soak` (Soak/run.sh)")
        }
        return options
    }

    static func fail(_ message: String) -> Never {
        let line = Array("CourierSoak: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // Safe: the bytes live for the call.
        exit(2)
    }
}
