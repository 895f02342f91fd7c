import Testing

@testable import CourierCLI

/// `courier bench`'s own argument reader (``BenchArgumentReader``): every option in each form,
/// the defaults, the usage errors with their messages, and the help text made from the same
/// option table.
@Suite struct BenchArgumentReaderTests {
    static func options(_ arguments: [String]) throws -> BenchOptions {
        guard case .run(let options) = try BenchArgumentReader.read(arguments) else {
            Issue.record("not a run: \(arguments)")
            return BenchOptions()
        }
        return options
    }

    static func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try BenchArgumentReader.read(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func theDefaultsAreWrksAndTheDocumentedOnes() throws {
        let options = try Self.options(["http://h/"])
        var expected = BenchOptions()
        expected.url = "http://h/"
        #expect(options == expected)
        #expect(options.connections == 10 && options.method == "GET" && options.hdrDigits == 3 && options.interval == "1s")
        #expect(options.requests == nil && options.duration == nil && options.rate == nil && options.threads == nil)
        #expect(!options.json && !options.insecure && !options.noPin && !options.noKeepAlive && options.batch == nil)
    }

    /// The batch window (``BenchPlan/batchWindow(_:threads:)``): 25 µs by default in a closed
    /// loop with at least 32 connections per loop thread; none with fewer, none at a constant
    /// rate; `--batch` sets it, `--batch 0` turns it off. The client's loops get the same.
    static let batchCases: [(arguments: [String], window: UInt64?)] = [
        (["-c", "256", "-t", "1"], 25_000),
        (["-c", "32", "-t", "1"], 25_000),
        (["-c", "31", "-t", "1"], nil),
        (["-c", "64", "-t", "2"], 25_000),
        (["-c", "63", "-t", "2"], nil),
        (["-c", "256", "-t", "1", "-R", "1000"], nil),
        (["-c", "256", "-t", "1", "--batch", "0"], nil),
        (["-c", "256", "-t", "1", "--batch", "0us"], nil),
        (["-c", "256", "-t", "1", "--batch", "0.0001us"], nil),
        (["-c", "4", "-t", "1", "--batch", "100us"], 100_000),
        (["-c", "256", "-t", "1", "-R", "1000", "--batch", "1ms"], 1_000_000),
        (["-c", "8", "--batch", "10ms"], 10_000_000),
    ]

    @Test(arguments: batchCases)
    func theBatchWindow(_ arguments: [String], _ window: UInt64?) throws {
        let plan = try BenchPlan(Self.options(arguments + ["http://127.0.0.1:1/"]))
        #expect(plan.batchWindow == window, "\(arguments)")
        #expect(plan.configuration.batchWindow == window.map { .nanoseconds(Int64($0)) }, "\(arguments)")
    }

    @Test func everyOptionInItsShortAndLongForms() throws {
        let short = try Self.options([
            "-c", "32", "-n", "100", "-t", "2", "-m", "PUT", "-H", "A: 1", "-H", "B: 2", "-k", "-x", "http://p:8080",
            "http://h/",
        ])
        #expect(short.connections == 32 && short.requests == 100 && short.threads == 2 && short.method == "PUT")
        #expect(short.headers == ["A: 1", "B: 2"] && short.insecure && short.proxy == "http://p:8080" && short.url == "http://h/")

        let long = try Self.options([
            "--connections", "8", "--duration", "250ms", "--rate", "1500.5", "--threads=3", "--no-pin", "--method=POST",
            "--header", "X: y", "--body", "@file.json", "--no-keepalive", "--timeout", "2s", "--insecure", "--cacert",
            "ca.pem", "--proxy=socks5://p", "--json", "--hdr-log", "run.hlog", "--hdr-digits", "2", "--interval", "100ms",
            "--batch", "50us", "https://h/x",
        ])
        var expected = BenchOptions()
        expected.url = "https://h/x"
        expected.connections = 8
        expected.duration = "250ms"
        expected.rate = 1500.5
        expected.threads = 3
        expected.noPin = true
        expected.method = "POST"
        expected.headers = ["X: y"]
        expected.body = "@file.json"
        expected.noKeepAlive = true
        expected.timeout = "2s"
        expected.insecure = true
        expected.cacert = "ca.pem"
        expected.proxy = "socks5://p"
        expected.json = true
        expected.hdrLog = "run.hlog"
        expected.hdrDigits = 2
        expected.interval = "100ms"
        expected.batch = "50us"
        #expect(long == expected)
    }

    @Test func optionsMayFollowTheURLAndDashDashEndsThem() throws {
        #expect(try Self.options(["http://h/", "-c", "4"]).connections == 4)
        let dashed = try Self.options(["-n", "1", "--", "-not-an-option"])
        #expect(dashed.url == "-not-an-option" && dashed.requests == 1)
        // A value that starts with a dash is still the option's value.
        #expect(try Self.options(["-H", "-X: y", "http://h/"]).headers == ["-X: y"])
    }

    @Test func helpAndVersion() throws {
        #expect(try BenchArgumentReader.read(["--help"]) == .help)
        #expect(try BenchArgumentReader.read(["-c", "2", "-h", "http://h/"]) == .help)
        #expect(try BenchArgumentReader.read(["--version"]) == .version)
    }

    @Test(arguments: [
        ([], "Missing expected argument '<url>'"),
        (["-c"], "Missing value for '-c <n>'"),
        (["--bogus", "http://h/"], "Unknown option '--bogus'"),
        (["-Z", "http://h/"], "Unknown option '-Z'"),
        (["-kc", "3", "http://h/"], "Unknown option '-kc'"),
        (["--json=yes", "http://h/"], "The option '--json' takes no value"),
        (["-c", "many", "http://h/"], "The value 'many' is invalid for '-c <n>'"),
        (["-R", "fast", "http://h/"], "The value 'fast' is invalid for '-R <req/s>'"),
        (["--hdr-digits=x", "http://h/"], "The value 'x' is invalid for '--hdr-digits <n>'"),
        (["http://a/", "http://b/"], "Unexpected argument 'http://b/'"),
        (["-c", "0", "http://h/"], "-c must be at least 1"),
        (["-n", "0", "http://h/"], "-n must be at least 1"),
        (["-n", "5", "-d", "1s", "http://h/"], "give -n or -d, not both"),
        (["-d", "soon", "http://h/"], "-d: not a duration: soon"),
        (["--timeout", "never", "http://h/"], "--timeout: not a duration: never"),
        (["--interval", "later", "http://h/"], "--interval: not a duration: later"),
        (["-R", "-3", "http://h/"], "-R must be a positive rate"),
        (["-R", "inf", "http://h/"], "-R must be a positive rate"),
        (["-t", "0", "http://h/"], "-t must be at least 1"),
        (["--hdr-digits", "9", "http://h/"], "--hdr-digits must be 1 to 5"),
        (["-m", "BAD METHOD", "http://h/"], "-m: not a method: BAD METHOD"),
        (["--batch", "soon", "http://h/"], "--batch: not a duration: soon"),
        (["--batch", "11ms", "http://h/"], "--batch: at most 10.00ms (every reply may wait this long)"),
        (["--batch", "-1us", "http://h/"], "--batch: not a duration: -1us"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) {
        #expect(Self.usageError(arguments) == message, "\(arguments)")
    }

    @Test func aUsageErrorPrintsTheUsageLine() {
        let error = BenchArgumentReader.UsageError(message: "Unknown option '--x'")
        #expect(error.description == "Error: Unknown option '--x'\nUsage: courier bench [<options>] <url>\n  See 'courier bench --help' for more information.\n")
    }

    /// The help is made from the option table: every option is in it under its group, with its
    /// value name and default, in lines of at most 80 columns.
    @Test func theHelpListsEveryOptionGroupedWithExamples() {
        let text = BenchHelp.text
        #expect(text.hasPrefix("OVERVIEW: Load-test an HTTP/1.1 server"))
        #expect(text.contains("wrk2 -c 64 -R 20000 -d 30s URL") && text.contains("USAGE: courier bench [<options>] <url>"))
        for title in ["ARGUMENTS:", "LOAD:", "REQUEST:", "TLS AND PROXY:", "OUTPUT:", "OPTIONS:"] { #expect(text.contains("\n\(title)\n"), "\(title)") }
        for group in BenchOption.groups {
            for option in group.options {
                #expect(text.contains("--\(option.long)"), "\(option.long)")
                if let value = option.valueName { #expect(text.contains("--\(option.long) <\(value)>")) }
                if let value = option.defaultValue { #expect(text.contains("(default: \(value))"), "\(option.long)") }
            }
        }
        #expect(text.contains("  -c, --connections <n>   Connections to keep open (one request in flight on\n                          each). (default: 10)\n"))
        #expect(text.contains("  -x, --proxy <[http://|socks5://][user:password@]host[:port]>\n                          Use this proxy.\n"))
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).allSatisfy { $0.count <= 80 })
    }
}
