@testable import CourierCLI
import Courier
import CourierTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `courier bench` run as a child process against a scripted loopback server: the request
/// count served and reported, the duration bound, the constant rate, status counts, errors by
/// kind, the request options, and the HdrHistogram interval logs of two runs merged by
/// HdrHistogram's Python package.
@Suite struct BenchRunTests {
    static func okServer() throws -> ScriptedServer {
        let server = try ScriptedServer()
        server.setDefaultHandler { _, connection in try connection.respond(status: 200, body: "hello, bench") }
        return server
    }

    @Test func exactRequestCountIsServedAndReported() throws {
        let server = try Self.okServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["bench", "-n", "250", "-c", "4", "-t", "2", "--json", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.err)")
        let json = try BenchJSON.parse(run)
        #expect(json.requests == 250)
        #expect(json.responses == 250)
        #expect(json.failures == 0)
        #expect(server.requests.count == 250)
        #expect(json.status == ["200": 250])
        #expect(json.latency.count == 250)
        #expect(json.latency.p50_ns > 0 && json.latency.p50_ns <= json.latency.p99_ns && json.latency.p99_ns <= json.latency.max_ns)
        // Keep-alive: at most one connection per worker. A request's metrics carry the connect
        // phase when it ran on a connection made for it (the pool may hand a request the
        // connection that was made for another one and became free first).
        #expect(server.connectionsAccepted <= 4)
        #expect((1...server.connectionsAccepted).contains(json.connections_opened))
        #expect(json.phases["connect"]?.count == json.connections_opened)
        #expect(json.phases["total"]?.count == 250)
        #expect(json.phases["first_byte"]?.count == 250)
        #expect(json.phases["tls"]?.count == 0)
        // Each response is 12 body bytes plus its head.
        #expect(json.bytes_received > 250 * 12)
        // The live status line is for a terminal only: stderr is a pipe here.
        #expect(!run.err.contains("\r"))
    }

    /// Above 64 connections per loop thread each request starts from a job its predecessor's
    /// last delegate call queues, in the execution that just ended (`BenchWorker`): every
    /// request is still sent once and counted, whether it succeeds, fails, or waits for its
    /// time at a constant rate.
    @Test func manyConnectionsPerLoopStartEachRequestFromAJob() throws {
        let server = try Self.okServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["bench", "-n", "1000", "-c", "80", "-t", "1", "--json", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.err)")
        let json = try BenchJSON.parse(run)
        #expect(json.requests == 1000 && json.responses == 1000 && json.failures == 0)
        #expect(server.requests.count == 1000)
        // 80 connections on one loop: its replies are gathered for 25 µs per wake-up.
        #expect(json.batch_window_ns == 25_000)
        #expect(json.status == ["200": 1000])
        #expect(json.latency.count == 1000)
        #expect(json.phases["total"]?.count == 1000)
        #expect(server.connectionsAccepted <= 80)

        let failing = try ScriptedServer()
        defer { failing.shutdown() }
        failing.setDefaultHandler { _, connection in connection.reset() }
        let failed = try CourierRun.run(["bench", "-n", "150", "-c", "70", "-t", "1", "--json", failing.baseURL + "/"])
        #expect(failed.status == 0, "\(failed.err)")
        let failures = try BenchJSON.parse(failed)
        #expect(failures.requests == 150 && failures.failures == 150 && failures.responses == 0)
        #expect(failures.errors.values.reduce(0, +) == 150)

        // 400 req/s over 80 connections for 1 s: 5 each, every one on its due time's timer.
        let paced = try CourierRun.run(["bench", "-R", "400", "-d", "1s", "-c", "80", "-t", "1", "--json", server.baseURL + "/"])
        #expect(paced.status == 0, "\(paced.err)")
        let rate = try BenchJSON.parse(paced)
        #expect(rate.mode == "constant-rate")
        #expect(rate.requests == 400 && rate.responses == 400)
    }

    /// `--unix-socket`, as the transfer's: the load goes over the socket, with the URL's Host.
    @Test func overAUnixSocket() throws {
        let directory = try CLI.scratchDirectory()
        let server = try ScriptedServer(address: .unix(directory + "/b.sock"))
        defer { server.shutdown() }
        server.setDefaultHandler { _, connection in try connection.respond(status: 200, body: "over unix") }
        let run = try CourierRun.run(["bench", "-n", "40", "-c", "2", "--unix-socket", directory + "/b.sock", "--json", "http://svc.internal/x"])
        #expect(run.status == 0, "\(run.err)")
        let json = try BenchJSON.parse(run)
        #expect(json.responses == 40)
        #expect(server.requests.count == 40)
        #expect(server.requests.allSatisfy { $0.header("Host") == "svc.internal" && $0.target == "/x" })

        // A Host of the user's own still wins, sent once.
        let own = try CourierRun.run(["bench", "-n", "4", "-c", "1", "-H", "Host: mine.example", "--unix-socket", directory + "/b.sock", "http://svc.internal/x"])
        #expect(own.status == 0, "\(own.err)")
        #expect(server.requests.count == 44)
        #expect(server.requests.suffix(4).allSatisfy { request in
            request.header("Host") == "mine.example" && request.headers.filter { $0.name.lowercased() == "host" }.count == 1
        })

        // TLS over the socket is not supported: refused, not sent in the clear.
        let refused = try CourierRun.run(["bench", "-n", "1", "--unix-socket", directory + "/b.sock", "https://svc.internal/x"])
        #expect(refused.status == 1)
        #expect(refused.err.contains("https over a Unix socket is not supported"))
        #expect(server.requests.count == 44)
    }

    @Test func durationBoundsTheRun() throws {
        let server = try Self.okServer()
        defer { server.shutdown() }
        let run = try CourierRun.run(["bench", "-d", "1s", "-c", "2", "--json", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.err)")
        let json = try BenchJSON.parse(run)
        #expect(json.seconds >= 1.0)
        #expect(json.seconds < 10.0)
        #expect(json.requests > 0)
        #expect(json.requests == server.requests.count)
        #expect(json.mode == "closed-loop")
        // Two connections: each reply is handled as it comes.
        #expect(json.batch_window_ns == nil)
    }

    @Test func constantRateSendsEveryRequestDueInTheDuration() throws {
        let server = try Self.okServer()
        defer { server.shutdown() }
        // 100 req/s over 2 connections: one request every 20 ms on each, for 2 s: 100 each.
        let run = try CourierRun.run(["bench", "-R", "100", "-d", "2s", "-c", "2", "--json", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.err)")
        let json = try BenchJSON.parse(run)
        #expect(json.mode == "constant-rate")
        #expect(json.requests == 200)
        #expect(server.requests.count == 200)
        #expect(json.seconds >= 1.9)
    }

    @Test func statusCodesAreCounted() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        let served = Atomic<Int>(0)
        server.setDefaultHandler { _, connection in
            let index = served.add(1, ordering: .relaxed).oldValue
            try connection.respond(status: index % 4 == 0 ? 503 : 200, body: "x")
        }
        let run = try CourierRun.run(["bench", "-n", "40", "-c", "2", "--json", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.err)")
        let json = try BenchJSON.parse(run)
        #expect(json.status == ["200": 30, "503": 10])
        #expect(json.failures == 0)
    }

    @Test func resetsAreErrorsByKind() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.setDefaultHandler { _, connection in connection.reset() }
        let run = try CourierRun.run(["bench", "-n", "12", "-c", "2", "--json", server.baseURL + "/"])
        #expect(run.status == 0, "\(run.err)")
        let json = try BenchJSON.parse(run)
        #expect(json.requests == 12)
        #expect(json.responses == 0)
        #expect(json.failures == 12)
        #expect(json.status.isEmpty)
        #expect(json.errors.values.reduce(0, +) == 12)
        #expect(!json.errors.isEmpty)
        #expect(json.latency.count == 0)
        // The human report names the kinds too.
        let text = try CourierRun.run(["bench", "-n", "4", "-c", "1", server.baseURL + "/"])
        #expect(text.out.contains("Errors: "))
        #expect(json.errors.keys.allSatisfy { text.out.contains($0) })
    }

    @Test func requestOptionsShapeEveryRequest() throws {
        let server = try Self.okServer()
        defer { server.shutdown() }
        let directory = try Self.scratchDirectory()
        let bodyPath = directory + "/body.bin"
        defer { Self.remove(directory, ["body.bin"]) }
        let body: [UInt8] = Array(0..<200)
        try Self.write(body, to: bodyPath)
        let run = try CourierRun.run([
            "bench", "-n", "6", "-c", "2", "-m", "PUT", "-H", "X-Bench: one", "-H", "X-Other:two",
            "--body", "@" + bodyPath, "--no-keepalive", "--timeout", "5s", "--json", server.baseURL + "/upload",
        ])
        #expect(run.status == 0, "\(run.err)")
        let requests = server.requests
        #expect(requests.count == 6)
        for request in requests {
            #expect(request.method == "PUT")
            #expect(request.target == "/upload")
            #expect(request.body == body)
            #expect(request.headers.contains { $0.name == "X-Bench" && $0.value == "one" })
            #expect(request.headers.contains { $0.name == "X-Other" && $0.value == "two" })
            #expect(request.headers.contains { $0.name.lowercased() == "connection" && $0.value == "close" })
        }
        // No keep-alive: a connection per request.
        #expect(server.connectionsAccepted == 6)
        let json = try BenchJSON.parse(run)
        #expect((1...6).contains(json.connections_opened))
    }

    @Test func tlsWithCACertOrInsecureMeasuresTheHandshake() throws {
        let server = try ScriptedServer(tls: ServerTLS(certificateChain: "valid-chain.pem", privateKey: "valid.key"))
        defer { server.shutdown() }
        server.setDefaultHandler { _, connection in try connection.respond(status: 200, body: "secure") }
        let trusted = try CourierRun.run(["bench", "-n", "20", "-c", "2", "--cacert", TestCertificates.path("ca.pem"), "--json", server.baseURL + "/"])
        #expect(trusted.status == 0, "\(trusted.err)")
        let json = try BenchJSON.parse(trusted)
        #expect(json.status == ["200": 20])
        // As for connect: each handshake a request waited for, at most the server's count.
        #expect((1...max(1, server.tlsHandshakesCompleted)).contains(json.phases["tls"]?.count ?? 0))
        #expect(json.phases["tls"]?.count == json.connections_opened)
        let insecure = try CourierRun.run(["bench", "-n", "4", "-c", "1", "-k", "--json", server.baseURL + "/"])
        #expect(try BenchJSON.parse(insecure).status == ["200": 4])
        // Without either, the test CA is not trusted: every request fails in the TLS phase.
        let untrusted = try CourierRun.run(["bench", "-n", "3", "-c", "1", "--json", server.baseURL + "/"])
        let failed = try BenchJSON.parse(untrusted)
        #expect(failed.failures == 3)
        #expect(failed.errors.keys.allSatisfy { $0 == "tls" || $0 == "serverTrustRejected" })
    }

    @Test func proxyCarriesEveryRequest() throws {
        // The scripted server plays an HTTP forward proxy: it gets the absolute-form targets
        // (RFC 9112 §3.2.2), so the origin's name is never resolved.
        let proxy = try Self.okServer()
        defer { proxy.shutdown() }
        let run = try CourierRun.run(["bench", "-n", "8", "-c", "2", "-x", "http://" + proxy.authority, "--json", "http://origin.invalid/through"])
        #expect(run.status == 0, "\(run.err)")
        #expect(try BenchJSON.parse(run).status == ["200": 8])
        #expect(proxy.requests.count == 8)
        #expect(proxy.requests.allSatisfy { $0.target == "http://origin.invalid/through" })
    }

    @Test func badOptionsAreUsageErrors() throws {
        for arguments in [["-n", "0"], ["-n", "5", "-d", "1s"], ["-d", "soon"], ["-R", "-3"], ["-m", "BAD METHOD"], ["--hdr-digits", "9"]] {
            let run = try CourierRun.run(["bench"] + arguments + ["http://127.0.0.1:9/"])
            #expect(run.status == 2, "\(arguments)")
        }
        let header = try CourierRun.run(["bench", "-n", "1", "-H", "no colon", "http://127.0.0.1:9/"])
        #expect(header.status == 1)
        #expect(header.err.contains("-H"))
        let help = try CourierRun.run(["bench", "--help"])
        #expect(help.out.contains("-R") && help.out.contains("--hdr-log") && help.out.contains("wrk"))
    }

    // MARK: HdrHistogram logs merged by HdrHistogram's Python package

    static let pythonHasHdrh: Bool = {
        guard let process = try? ChildProcess(["python3", "-c", "import hdrh.log"]) else { return false }
        return process.waitForExit(until: .now + .seconds(30)) == 0
    }()

    static let mergeScript = """
        import json, sys
        from hdrh.histogram import HdrHistogram
        from hdrh.log import HistogramLogReader
        HIGHEST = 3600000000000
        merged = HdrHistogram(1, HIGHEST, 3)
        runs = []
        for path in sys.argv[1:]:
            run = HdrHistogram(1, HIGHEST, 3)
            reader = HistogramLogReader(path, run)
            intervals = 0
            while reader.add_next_interval_histogram(run) is not None:
                intervals += 1
            reader.close()
            runs.append({"total": run.get_total_count(), "intervals": intervals})
            merged.add(run)
        percentiles = [50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0]
        counts = [[merged.get_value_from_index(i), merged.get_count_at_index(i)]
                  for i in range(merged.counts_len) if merged.get_count_at_index(i)]
        print(json.dumps({"runs": runs, "total": merged.get_total_count(),
                          "percentiles": [merged.get_value_at_percentile(p) for p in percentiles],
                          "counts": counts}))
        """

    struct Merged: Decodable {
        struct Run: Decodable { let total: Int; let intervals: Int }
        let runs: [Run]
        let total: Int
        let percentiles: [Int64]
        let counts: [[Int64]]
    }

    @Test(.enabled(if: pythonHasHdrh, "needs the hdrhistogram package from PyPI (make deps)"))
    func twoRunsLogsMergeWithHdrHistogramsPythonPackage() throws {
        let server = try Self.okServer()
        defer { server.shutdown() }
        let directory = try Self.scratchDirectory()
        let logs = [directory + "/one.hlog", directory + "/two.hlog"]
        defer { Self.remove(directory, ["one.hlog", "two.hlog", "merge.py"]) }
        let first = try CourierRun.run(["bench", "-n", "300", "-c", "3", "--interval", "100ms", "--hdr-log", logs[0], "--json", server.baseURL + "/"])
        let second = try CourierRun.run(["bench", "-R", "400", "-d", "1s", "-c", "2", "--interval", "250ms", "--hdr-log", logs[1], "--json", server.baseURL + "/"])
        #expect(first.status == 0, "\(first.err)")
        #expect(second.status == 0, "\(second.err)")
        let runs = [try BenchJSON.parse(first), try BenchJSON.parse(second)]
        #expect(runs[0].latency.count == 300)

        let scriptPath = directory + "/merge.py"
        try Self.write(Array(Self.mergeScript.utf8), to: scriptPath)
        let python = try ChildProcess(["python3", scriptPath] + logs)
        let status = python.waitForExit(until: .now + .seconds(120))
        #expect(status == 0, "\(python.outputText)")
        let lastLine = python.outputText.split(separator: "\n").last.map(String.init) ?? ""
        let merged = try JSONDecoder().decode(Merged.self, from: Data(lastLine.utf8))

        // Counts: each run's log holds every latency it reported, and the merge is their sum.
        #expect(merged.runs.map(\.total) == runs.map(\.latency.count))
        #expect(merged.runs.allSatisfy { $0.intervals >= 1 })
        #expect(merged.total == runs[0].latency.count + runs[1].latency.count)

        // Bucket for bucket and percentile for percentile, the same as the sum of the runs'
        // histograms decoded and added here.
        var sum = HDRHistogram(highestTrackableValue: BenchRecord.highest, significantDigits: 3)
        for path in logs {
            let text = try #require(TestFiles.text(at: path))
            #expect(text.contains("#[StartTime: ") && text.contains("#[BaseTime: "))
            #expect(text.contains("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""))
            for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("\"") {
                let fields = line.split(separator: ",")
                #expect(fields.count == 4)
                sum.add(try HDRHistogramCodec.decode(fields[3]))
            }
        }
        #expect(Int(sum.totalCount) == merged.total)
        var expected: [[Int64]] = []
        for index in 0..<sum.countsLength where sum.count(at: index) != 0 { expected.append([sum.value(at: index), sum.count(at: index)]) }
        #expect(merged.counts == expected)
        let percentiles = [50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0].map { sum.value(atPercentile: $0) }
        #expect(merged.percentiles == percentiles)
    }

    // MARK: Helpers

    static func scratchDirectory() throws -> String {
        try ScratchDirectory("bench").path
    }

    static func remove(_ directory: String, _ names: [String]) {
        for name in names { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
    }
}
