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

            Examples (and the wrk/wrk2 lines they replace):
              courier bench -c 32 -d 10s URL              wrk -c 32 -d 10s URL
              courier bench -c 64 -R 20000 -d 30s URL     wrk2 -c 64 -R 20000 -d 30s URL
              courier bench -n 100000 --json URL > run.json
              courier bench -R 5000 -d 1m --hdr-log a.hlog URL  (HdrHistogram log)
            """
    )

    @Argument(help: "The URL to load (http or https).")
    var url: String

    @OptionGroup(title: "Load")
    var load: BenchLoadOptions

    @OptionGroup(title: "Request")
    var request: BenchRequestOptions

    @OptionGroup(title: "TLS and proxy")
    var security: BenchTLSOptions

    @OptionGroup(title: "Output")
    var output: BenchOutputOptions

    func validate() throws {
        guard load.connections >= 1 else { throw ValidationError("-c must be at least 1") }
        if let requests = load.requests, requests < 1 { throw ValidationError("-n must be at least 1") }
        if load.requests != nil && load.duration != nil { throw ValidationError("give -n or -d, not both") }
        if let duration = load.duration, BenchDuration.parse(duration) == nil { throw ValidationError("-d: not a duration: \(duration)") }
        if let timeout = request.timeout, BenchDuration.parse(timeout) == nil { throw ValidationError("--timeout: not a duration: \(timeout)") }
        if BenchDuration.parse(output.interval) == nil { throw ValidationError("--interval: not a duration: \(output.interval)") }
        if let rate = load.rate, !(rate > 0 && rate.isFinite) { throw ValidationError("-R must be a positive rate") }
        if let threads = load.threads, threads < 1 { throw ValidationError("-t must be at least 1") }
        guard (1...5).contains(output.hdrDigits) else { throw ValidationError("--hdr-digits must be 1 to 5") }
        if HTTPMethod(request.method) == nil { throw ValidationError("-m: not a method: \(request.method)") }
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
        if output.json {
            Output.out(BenchReport.json(plan: plan, result: result))
        } else {
            Output.out(BenchReport.text(plan: plan, result: result))
        }
    }
}
