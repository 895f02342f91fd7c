// The command line every client driver of the loopback comparison (`Client/run.py`) accepts:
//
//   <Driver> --url URL --requests N --concurrency C [--decode-gzip] [--insecure] [--ca FILE]
//
// N GETs in total with C in flight at once (C = 1: strictly sequential on one keep-alive
// connection). Bodies are streamed and discarded, never buffered. The driver prints one JSON line,
// `DriverReport`, on stdout and nothing else there. Kept free of Foundation so any driver can use it.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The parsed command line of a client driver.
public struct DriverOptions: Sendable {
    /// The URL to GET, `http://` or `https://`.
    public var url: String
    /// GETs in total, spread over `concurrency` workers.
    public var requests: Int
    /// Requests in flight at once; 1 means sequential on one connection.
    public var concurrency: Int
    /// Send `Accept-Encoding: gzip` and count the decoded bytes.
    public var decodeGzip: Bool
    /// Accept any server certificate (the run-time self-signed one).
    public var insecure: Bool
    /// A PEM file of trusted roots, preferred over `insecure` by clients that support it.
    public var caFile: String?

    public static let usage =
        "usage: <driver> --url URL --requests N --concurrency C [--decode-gzip] [--insecure] [--ca FILE]"

    /// Parses `arguments` (without the program name); on a bad command line prints the usage to
    /// stderr and exits with status 2.
    public static func parseOrExit(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> DriverOptions {
        switch parse(arguments) {
        case .success(let options): return options
        case .failure(let problem):
            writeStandardError("\(problem.message)\n\(usage)\n")
            exit(2)
        }
    }

    /// A command line the driver cannot run.
    public struct Problem: Error, Sendable {
        public var message: String
    }

    public static func parse(_ arguments: [String]) -> Result<DriverOptions, Problem> {
        var url: String?
        var requests = 1
        var concurrency = 1
        var decodeGzip = false
        var insecure = false
        var caFile: String?
        var index = 0
        func value(_ flag: String) -> Result<String, Problem> {
            index += 1
            guard index < arguments.count else { return .failure(Problem(message: "\(flag) needs a value")) }
            return .success(arguments[index])
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--url":
                guard case .success(let v) = value(flag) else { return .failure(Problem(message: "--url needs a value")) }
                url = v
            case "--requests", "--concurrency":
                guard case .success(let v) = value(flag), let n = Int(v), n > 0 else {
                    return .failure(Problem(message: "\(flag) needs a positive integer"))
                }
                if flag == "--requests" { requests = n } else { concurrency = n }
            case "--ca":
                guard case .success(let v) = value(flag) else { return .failure(Problem(message: "--ca needs a file")) }
                caFile = v
            case "--decode-gzip": decodeGzip = true
            case "--insecure": insecure = true
            default: return .failure(Problem(message: "unknown argument \(flag)"))
            }
            index += 1
        }
        guard let url else { return .failure(Problem(message: "--url is required")) }
        return .success(
            DriverOptions(
                url: url, requests: requests, concurrency: min(concurrency, requests),
                decodeGzip: decodeGzip, insecure: insecure, caFile: caFile))
    }

    /// How many requests worker `worker` (0-based) of `concurrency` performs: `requests` split as
    /// evenly as possible, the first `requests % concurrency` workers doing one more.
    public func share(ofWorker worker: Int) -> Int {
        requests / concurrency + (worker < requests % concurrency ? 1 : 0)
    }
}

/// Writes `text` to fd 2 unbuffered (`stderr` is not concurrency-safe to name in Swift 6 mode).
public func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        // The buffer is valid for the closure's duration; a short write of a diagnostic is acceptable.
        _ = write(2, bytes.baseAddress, bytes.count)
    }
}
