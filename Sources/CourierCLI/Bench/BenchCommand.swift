import ArgumentParser
import Courier

/// `courier bench [options] URL`: a load generator in the manner of wrk and wrk2.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Load-test an HTTP/1.1 server (wrk's and wrk2's options).",
        discussion: """
            Closed loop by default (as wrk): each connection sends its next request when the \
            previous one ends. With -R (as wrk2), requests are due at fixed intervals on each \
            connection and latency counts from when each was due, so a stall is charged to the \
            requests queued behind it (coordinated omission corrected).

            Examples:
              courier bench -c 32 -d 10s http://127.0.0.1:8080/      (wrk -c 32 -d 10s URL)
              courier bench -c 64 -R 20000 -d 30s URL                 (wrk2 -c 64 -R 20000 -d 30s URL)
              courier bench -n 100000 --json URL > run.json
              courier bench -d 1m -R 5000 --hdr-log run.hlog URL      (merge logs with HdrHistogram's tools)
            """
    )

    @Argument(help: "The URL to load (http or https).")
    var url: String

    // Load.
    @Option(name: [.customShort("c"), .long], help: "Connections to keep open (one request in flight on each).")
    var connections: Int = 10

    @Option(name: [.customShort("n"), .long], help: "Send exactly this many requests, then stop.")
    var requests: Int?

    @Option(name: [.customShort("d"), .long], help: "Run for this long: 10s, 1m, 250ms (default 10s unless -n).")
    var duration: String?

    @Option(name: [.customShort("R"), .long], help: "Constant rate: requests per second, all connections together (wrk2).")
    var rate: Double?

    @Option(name: [.customShort("t"), .long], help: "Event loop threads (default: the cores, at most one per connection).")
    var threads: Int?

    @Flag(name: .customLong("no-pin"), help: "Leave the loop threads unpinned (default: each loop bound to one CPU).")
    var noPin = false

    // The request.
    @Option(name: [.customShort("m"), .long], help: "The request method (default GET).")
    var method: String = "GET"

    @Option(name: [.customShort("H"), .customLong("header")], help: "A request header, 'Name: value' (repeatable).")
    var headers: [String] = []

    @Option(name: .long, help: "The request body: @FILE for a file's bytes, else the text itself.")
    var body: String?

    @Flag(name: .customLong("no-keepalive"), help: "A new connection for every request (Connection: close).")
    var noKeepAlive = false

    @Option(name: .long, help: "Fail a request that takes longer than this (e.g. 2s).")
    var timeout: String?

    // TLS and proxy.
    @Flag(name: [.customShort("k"), .long], help: "Do not verify the server's certificate.")
    var insecure = false

    @Option(name: .long, help: "Trust the CA certificates in this PEM file.")
    var cacert: String?

    @Option(name: [.customShort("x"), .long], help: "Use this proxy: [http://|socks5://][user:password@]host[:port].")
    var proxy: String?

    // Output.
    @Flag(name: .long, help: "Print the results as one JSON object.")
    var json = false

    @Option(name: .customLong("hdr-log"), help: "Write the latency histogram of each interval to FILE (HdrHistogram interval log).")
    var hdrLog: String?

    @Option(name: .customLong("hdr-digits"), help: "Significant digits of the latency histogram, 1 to 5 (default 3).")
    var hdrDigits: Int = 3

    @Option(name: .long, help: "Interval of the live status line and the histogram log (default 1s).")
    var interval: String = "1s"

    func validate() throws {
        guard connections >= 1 else { throw ValidationError("-c must be at least 1") }
        if let requests, requests < 1 { throw ValidationError("-n must be at least 1") }
        if requests != nil && duration != nil { throw ValidationError("give -n or -d, not both") }
        if let duration, BenchDuration.parse(duration) == nil { throw ValidationError("-d: not a duration: \(duration)") }
        if let timeout, BenchDuration.parse(timeout) == nil { throw ValidationError("--timeout: not a duration: \(timeout)") }
        if BenchDuration.parse(interval) == nil { throw ValidationError("--interval: not a duration: \(interval)") }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("-R must be a positive rate") }
        if let threads, threads < 1 { throw ValidationError("-t must be at least 1") }
        guard (1...5).contains(hdrDigits) else { throw ValidationError("--hdr-digits must be 1 to 5") }
        if HTTPMethod(method) == nil { throw ValidationError("-m: not a method: \(method)") }
    }

    func run() throws {
        let plan: BenchPlan
        do {
            plan = try BenchPlan(self)
        } catch {
            Output.err(error.description + "\n")
            throw ExitCode(1)
        }
        let result: BenchResult
        do {
            result = try BenchDriver.run(plan)
        } catch {
            Output.err(error.description + "\n")
            throw ExitCode(1)
        }
        if json {
            Output.out(BenchReport.json(plan: plan, result: result))
        } else {
            Output.out(BenchReport.text(plan: plan, result: result))
        }
    }
}
