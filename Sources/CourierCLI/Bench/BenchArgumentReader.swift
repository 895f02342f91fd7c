import Courier

/// Reads `courier bench`'s arguments into ``BenchOptions``, the options as ``BenchOption/groups``
/// lists them: `-c 32`, `--connections 32` or `--connections=32`, flags alone, `-H` repeatable,
/// `--` before a URL that starts with `-`, one URL.
///
/// Written here rather than with swift-argument-parser, which the command line used before:
/// reading the command types by reflection kept 1.15 MiB of the runtime's code and metadata
/// resident for the whole load run, a quarter of what wrk uses in all (Benchmarks/RESULTS.md,
/// the fifth pass).
enum BenchArgumentReader {
    enum Outcome: Equatable {
        case run(BenchOptions)
        case help
        case version
    }

    /// A command line `courier bench` cannot run: exit status 2, as for any usage error.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let message: String

        var description: String {
            "Error: \(message)\nUsage: \(BenchHelp.usage)\n  See 'courier bench --help' for more information.\n"
        }
    }

    static func read(_ arguments: [String]) throws(UsageError) -> Outcome {
        var options = BenchOptions()
        var url: String?
        var index = 0
        var positionalOnly = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if positionalOnly || !argument.hasPrefix("-") || argument == "-" {
                guard url == nil else { throw UsageError(message: "Unexpected argument '\(argument)'") }
                url = argument
                continue
            }
            if argument == "--" {
                positionalOnly = true
                continue
            }
            if argument == "-h" || argument == "--help" { return .help }
            if argument == "--version" { return .version }
            var name = Substring(argument)
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = argument[..<equals]
                attached = String(argument[argument.index(after: equals)...])
            }
            guard let option = option(named: name) else { throw UsageError(message: "Unknown option '\(name)'") }
            guard option.valueName != nil else {
                if attached != nil { throw UsageError(message: "The option '--\(option.long)' takes no value") }
                _ = option.apply(&options, "")
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else {
                guard index < arguments.count else { throw UsageError(message: "Missing value for '\(option.label)'") }
                value = arguments[index]
                index += 1
            }
            if option.apply(&options, value) != nil {
                throw UsageError(message: "The value '\(value)' is invalid for '\(option.label)'")
            }
        }
        guard let url else { throw UsageError(message: "Missing expected argument '<url>'") }
        options.url = url
        try check(options)
        return .run(options)
    }

    /// The option `name` (`-c` or `--connections`) names, if any.
    static func option(named name: Substring) -> BenchOption? {
        for group in BenchOption.groups {
            for option in group.options {
                if name.hasPrefix("--") ? name.dropFirst(2) == option.long : name.count == 2 && option.short == name.last {
                    return option
                }
            }
        }
        return nil
    }

    /// The checks across options, and of values the options take as text.
    static func check(_ options: BenchOptions) throws(UsageError) {
        func fail(_ message: String) -> UsageError { UsageError(message: message) }
        guard options.connections >= 1 else { throw fail("-c must be at least 1") }
        if let requests = options.requests, requests < 1 { throw fail("-n must be at least 1") }
        if options.requests != nil && options.duration != nil { throw fail("give -n or -d, not both") }
        if let duration = options.duration, BenchDuration.parse(duration) == nil { throw fail("-d: not a duration: \(duration)") }
        if let timeout = options.timeout, BenchDuration.parse(timeout) == nil { throw fail("--timeout: not a duration: \(timeout)") }
        if let batch = options.batch {
            guard let window = BenchDuration.parseAllowingZero(batch) else { throw fail("--batch: not a duration: \(batch)") }
            if window > BenchPlan.longestBatchWindow {
                throw fail("--batch: at most \(TextFormat.duration(nanoseconds: Double(BenchPlan.longestBatchWindow))) (every reply may wait this long)")
            }
        }
        if BenchDuration.parse(options.interval) == nil { throw fail("--interval: not a duration: \(options.interval)") }
        if let rate = options.rate, !(rate > 0 && rate.isFinite) { throw fail("-R must be a positive rate") }
        if let threads = options.threads, threads < 1 { throw fail("-t must be at least 1") }
        guard (1...5).contains(options.hdrDigits) else { throw fail("--hdr-digits must be 1 to 5") }
        if HTTPMethod(options.method) == nil { throw fail("-m: not a method: \(options.method)") }
    }
}
