/// `courier bench`'s command line, as values (wrk's and wrk2's names; curl's for TLS and
/// proxies). ``BenchArgumentReader`` fills it in; ``BenchPlan`` checks what needs the network
/// stack (the URL, the headers, the body file).
struct BenchOptions: Equatable {
    var url = ""
    // Load
    var connections = 10
    var requests: Int?
    var duration: String?
    var rate: Double?
    var threads: Int?
    var noPin = false
    var batch: String?
    // Request
    var method = "GET"
    var headers: [String] = []
    var body: String?
    var noKeepAlive = false
    var timeout: String?
    // TLS and proxy
    var insecure = false
    var cacert: String?
    var proxy: String?
    var unixSocket: String?
    // Output
    var json = false
    var hdrLog: String?
    var hdrDigits = 3
    var interval = "1s"
}

/// One option of `courier bench`: its names, its value's name (nil for a flag), its help line,
/// and how it sets ``BenchOptions`` (an error message for a value it cannot take). The reader and
/// the help text are both made from ``groups``, so they cannot disagree. Closures, not key paths:
/// a table of `WritableKeyPath`s was tried and brings in the runtime's key-path machinery, 0.4 MiB
/// more resident for the whole run.
struct BenchOption: Sendable {
    let short: Character?
    let long: String
    let valueName: String?
    let help: String
    let defaultValue: String?
    let apply: @Sendable (inout BenchOptions, String) -> String?

    init(
        _ short: Character?, _ long: String, value valueName: String? = nil, _ help: String, default defaultValue: String? = nil,
        _ apply: @escaping @Sendable (inout BenchOptions, String) -> String?
    ) {
        self.short = short
        self.long = long
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.apply = apply
    }

    /// `-c <n>` (or `--no-pin`): how a message names the option.
    var label: String {
        let name = short.map { "-\($0)" } ?? "--\(long)"
        return valueName.map { "\(name) <\($0)>" } ?? name
    }

    /// The setter of an option whose value is a whole number (refused when it is not one).
    static func integer(_ set: @escaping @Sendable (inout BenchOptions, Int) -> Void) -> @Sendable (inout BenchOptions, String) -> String? {
        { options, value in
            guard let number = Int(value) else { return "" }
            set(&options, number)
            return nil
        }
    }

    /// The setter of a flag (`set` marks it).
    static func flag(_ set: @escaping @Sendable (inout BenchOptions) -> Void) -> @Sendable (inout BenchOptions, String) -> String? {
        { options, _ in
            set(&options)
            return nil
        }
    }

    /// The setter of an option whose value is kept as text.
    static func text(_ set: @escaping @Sendable (inout BenchOptions, String) -> Void) -> @Sendable (inout BenchOptions, String) -> String? {
        { options, value in
            set(&options, value)
            return nil
        }
    }

    /// The options, in the help's groups and order.
    static let groups: [(title: String, options: [BenchOption])] = [
        ("LOAD", [
            BenchOption("c", "connections", value: "n", "Connections to keep open (one request in flight on each).", default: "10", integer { $0.connections = $1 }),
            BenchOption("n", "requests", value: "n", "Send exactly this many requests, then stop.", integer { $0.requests = $1 }),
            BenchOption("d", "duration", value: "time", "Run for this long: 10s, 1m, 250ms (default 10s unless -n).", text { $0.duration = $1 }),
            BenchOption("R", "rate", value: "req/s", "Constant rate: requests per second, all connections together (wrk2).") { o, v in
                guard let rate = Double(v) else { return "" }
                o.rate = rate
                return nil
            },
            BenchOption("t", "threads", value: "n", "Event loop threads (default: the cores, at most one per connection).", integer { $0.threads = $1 }),
            BenchOption(nil, "no-pin", "Leave the loop threads unpinned (default: each loop bound to one CPU).", flag { $0.noPin = true }),
            BenchOption(nil, "batch", value: "time", "Let replies gather this long before a loop wakes for them, 0 for never (default 25us in a closed loop with 32 or more connections per thread, else 0).", text { $0.batch = $1 }),
        ]),
        ("REQUEST", [
            BenchOption("m", "method", value: "method", "The request method.", default: "GET", text { $0.method = $1 }),
            BenchOption("H", "header", value: "Name: value", "A request header (repeatable).", text { $0.headers.append($1) }),
            BenchOption(nil, "body", value: "@file|text", "The request body: @file for a file's bytes, else the text itself.", text { $0.body = $1 }),
            BenchOption(nil, "no-keepalive", "A new connection for every request (Connection: close).", flag { $0.noKeepAlive = true }),
            BenchOption(nil, "timeout", value: "time", "Fail a request that takes longer than this (e.g. 2s).", text { $0.timeout = $1 }),
        ]),
        ("TLS AND PROXY", [
            BenchOption("k", "insecure", "Do not verify the server's certificate.", flag { $0.insecure = true }),
            BenchOption(nil, "cacert", value: "file", "Trust the CA certificates in this PEM file.", text { $0.cacert = $1 }),
            BenchOption("x", "proxy", value: "[http://|socks5://][user:password@]host[:port]", "Use this proxy.", text { $0.proxy = $1 }),
            BenchOption(nil, "unix-socket", value: "path", "Connect to this Unix-domain socket (http URLs; Host stays the URL's).", text { $0.unixSocket = $1 }),
        ]),
        ("OUTPUT", [
            BenchOption(nil, "json", "Print the results as one JSON object.", flag { $0.json = true }),
            BenchOption(nil, "hdr-log", value: "file", "Write each interval's latency histogram to file (HdrHistogram interval log).", text { $0.hdrLog = $1 }),
            BenchOption(nil, "hdr-digits", value: "n", "Significant digits of the latency histogram, 1 to 5.", default: "3", integer { $0.hdrDigits = $1 }),
            BenchOption(nil, "interval", value: "time", "Interval of the live status line and the histogram log.", default: "1s", text { $0.interval = $1 }),
        ]),
    ]
}
