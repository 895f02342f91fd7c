import ArgumentParser

/// `courier bench`: how much load, and on how many threads (wrk's and wrk2's names).
struct BenchLoadOptions: ParsableArguments {
    @Option(name: [.customShort("c"), .long], help: ArgumentHelp("Connections to keep open (one request in flight on each).", valueName: "n"))
    var connections: Int = 10

    @Option(name: [.customShort("n"), .long], help: ArgumentHelp("Send exactly this many requests, then stop.", valueName: "n"))
    var requests: Int?

    @Option(name: [.customShort("d"), .long], help: ArgumentHelp("Run for this long: 10s, 1m, 250ms (default 10s unless -n).", valueName: "time"))
    var duration: String?

    @Option(name: [.customShort("R"), .long], help: ArgumentHelp("Constant rate: requests per second, all connections together (wrk2).", valueName: "req/s"))
    var rate: Double?

    @Option(name: [.customShort("t"), .long], help: ArgumentHelp("Event loop threads (default: the cores, at most one per connection).", valueName: "n"))
    var threads: Int?

    @Flag(name: .customLong("no-pin"), help: "Leave the loop threads unpinned (default: each loop bound to one CPU).")
    var noPin = false
}

/// `courier bench`: the request every connection repeats.
struct BenchRequestOptions: ParsableArguments {
    @Option(name: [.customShort("m"), .long], help: ArgumentHelp("The request method.", valueName: "method"))
    var method: String = "GET"

    @Option(name: [.customShort("H"), .customLong("header")], help: ArgumentHelp("A request header (repeatable).", valueName: "Name: value"))
    var headers: [String] = []

    @Option(name: .long, help: ArgumentHelp("The request body: @file for a file's bytes, else the text itself.", valueName: "@file|text"))
    var body: String?

    @Flag(name: .customLong("no-keepalive"), help: "A new connection for every request (Connection: close).")
    var noKeepAlive = false

    @Option(name: .long, help: ArgumentHelp("Fail a request that takes longer than this (e.g. 2s).", valueName: "time"))
    var timeout: String?
}

/// `courier bench`: TLS and proxy (curl's names).
struct BenchTLSOptions: ParsableArguments {
    @Flag(name: [.customShort("k"), .long], help: "Do not verify the server's certificate.")
    var insecure = false

    @Option(name: .long, help: ArgumentHelp("Trust the CA certificates in this PEM file.", valueName: "file"))
    var cacert: String?

    @Option(name: [.customShort("x"), .long], help: ArgumentHelp("Use this proxy.", valueName: "[http://|socks5://][user:password@]host[:port]"))
    var proxy: String?
}

/// `courier bench`: what is reported, and how.
struct BenchOutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the results as one JSON object.")
    var json = false

    @Option(name: .customLong("hdr-log"), help: ArgumentHelp("Write each interval's latency histogram to file (HdrHistogram interval log).", valueName: "file"))
    var hdrLog: String?

    @Option(name: .customLong("hdr-digits"), help: ArgumentHelp("Significant digits of the latency histogram, 1 to 5.", valueName: "n"))
    var hdrDigits: Int = 3

    @Option(name: .long, help: ArgumentHelp("Interval of the live status line and the histogram log.", valueName: "time"))
    var interval: String = "1s"
}
