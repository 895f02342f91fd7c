import CourierCore
import CourierTestSupport
import Synchronization
import Testing

/// -C -, --limit-rate, --retry-all-errors, --connect-timeout, and no progress bar when piped.
@Suite struct LimitsAndResumeTests {
    @Test func continueAtResumesWhereTheFileEnds() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/file") { request, connection in
            #expect(request.header("Range") == "bytes=3-")
            try connection.respond(status: 206, headers: [("Content-Range", "bytes 3-4/5")], body: "lo")
        }
        let directory = try CLI.scratchDirectory()
        try CLI.write("hel", to: directory + "/part")
        let run = try CourierRun.run(["-C", "-", "-o", directory + "/part", server.baseURL + "/file"])
        #expect(run.status == 0, "\(run.err)")
        #expect(CLI.read(directory + "/part") == "hello")
    }

    @Test func limitRateSlowsTheDownload() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let body = [UInt8](repeating: 0x61, count: 8192)
        server.route("/big") { _, connection in try connection.respond(body: body) }
        let started = ContinuousClock.now
        let run = try CourierRun.run(["-o", "/dev/null", "--limit-rate", "8k", "-w", "%{size_download}", server.baseURL + "/big"])
        let elapsed = ContinuousClock.now - started
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "8192")
        // 8 KiB at 8 KiB/s: about a second (measured, not waited for).
        #expect(elapsed >= .milliseconds(800))
    }

    @Test func limitRateSlowsAnUploadToo() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let received = Mutex(0)
        server.route("/size") { request, connection in
            received.withLock { $0 = request.body.count }
            try connection.respond(body: "ok")
        }
        let directory = try CLI.scratchDirectory()
        let body = String(repeating: "u", count: 8192)
        try CLI.write(body, to: directory + "/upload")
        let started = ContinuousClock.now
        let run = try CourierRun.run(["--limit-rate", "8k", "--data-binary", "@" + directory + "/upload", "-w", " %{size_upload}", server.baseURL + "/size"])
        let elapsed = ContinuousClock.now - started
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "ok 8192")
        #expect(received.withLock { $0 } == 8192)
        // 8 KiB at 8 KiB/s, the response two bytes: about a second (measured, not waited for).
        #expect(elapsed >= .milliseconds(700))
    }

    @Test func retryAllErrorsRetriesAPost() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let attempts = Mutex(0)
        server.route("/post") { _, connection in
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            try connection.respond(status: attempt == 1 ? 500 : 200, body: attempt == 1 ? "fail" : "done")
        }
        let plain = try CourierRun.run(["-d", "x", "--retry", "2", "--retry-delay", "0", server.baseURL + "/post"])
        #expect(plain.out == "fail", "a POST is not retried without --retry-all-errors")
        attempts.withLock { $0 = 0 }
        let all = try CourierRun.run(["-d", "x", "--retry", "2", "--retry-delay", "0", "--retry-all-errors", server.baseURL + "/post"])
        #expect(all.status == 0)
        #expect(all.out == "done")
    }

    @Test func noProgressBarWhenPiped() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-#", "-o", "/dev/null", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(run.err.isEmpty)
    }

    @Test func sendFailureIs55() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/upload", body: .manual) { _, connection in connection.reset() }
        let directory = try CLI.scratchDirectory()
        try CLI.write(String(repeating: "x", count: 32 << 20), to: directory + "/big")
        let run = try CourierRun.run(["--data-binary", "@" + directory + "/big", server.baseURL + "/upload"])
        // The reset reaches the client while it writes (55) or, if the kernel took the whole body
        // first, while it waits for the response (56); either way the phase is named.
        #expect(run.status == 55 || run.status == 56, "\(run.err)")
        #expect(run.err.contains("phase send") || run.err.contains("phase receive"))
    }

    @Test(.enabled(if: CLI.installed("script"), "script(1) gives the run a terminal"))
    func aProgressBarOnATerminalOnly() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let body = [UInt8](repeating: 0x61, count: 100_000)
        server.route("/big") { _, connection in try connection.respond(body: body) }
        server.route("/chunked") { _, connection in try connection.sendChunked(chunks: [Array("abc".utf8)]) }
        func onTerminal(_ arguments: String) throws -> CourierRun {
            try CourierRun.run(["-qec", "'\(CourierRun.executable)' " + arguments, "/dev/null"], program: "/usr/bin/script")
        }
        let bar = try onTerminal("-o /dev/null \(server.baseURL)/big")
        #expect(bar.status == 0)
        #expect(bar.out.contains("100%"))
        let unknown = try onTerminal("-o /dev/null \(server.baseURL)/chunked")
        #expect(unknown.out.contains("size unknown: chunked"))
        let silent = try onTerminal("-s -o /dev/null \(server.baseURL)/big")
        #expect(!silent.out.contains("%"))
    }

    @Test func retryConnrefusedRetriesARefusedConnection() throws {
        let server = try CLI.server()
        let url = server.baseURL + "/hello"
        server.shutdown()
        let plain = try CourierRun.run(["-s", "--retry", "1", "--retry-delay", "0", "-w", "%{num_retries}", url])
        #expect(plain.status == 7)
        #expect(plain.out == "0")
        let refused = try CourierRun.run(["-s", "--retry", "1", "--retry-delay", "0", "--retry-connrefused", "-w", "%{num_retries}", url])
        #expect(refused.status == 7)
        #expect(refused.out == "1")
    }
}
