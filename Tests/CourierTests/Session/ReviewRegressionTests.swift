import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// Regressions for the defects a review of the session layer found.
@Suite(.serialized) struct ReviewRegressionTests {
    typealias Resume = ResumeDownloadTests

    /// A resumed download answered with something other than 206 or 200 fails with
    /// `invalidResumeData` and keeps its partial file for another try (it used to be truncated
    /// and replaced by the error body, reported as a successful download).
    @Test func aResumeAnsweredWith416FailsAndKeepsThePartialFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            let cut = 300_000
            server.route("/file") { request, connection in
                if request.header("Range") != nil {
                    try connection.respond(status: 416, headers: [("Content-Range", "bytes */\(Resume.original.count)")], body: "nope")
                    return
                }
                try connection.sendHead(headers: [("Content-Length", "\(Resume.original.count)"), ("ETag", Resume.etag)])
                try connection.send(Array(Resume.original[0..<cut]))
                connection.close()
            }
            let first = try Resume.interrupted(manager, server)
            let resumeData = try #require(first.resumeData)
            let second = try Resume.resume(manager, resumeData)
            #expect(second.error?.code == .invalidResumeData)
            #expect(second.error?.response?.statusCode == 416, "the error carries the answer")
            let partial = try #require(directoryEntries(scratch).first)
            #expect(fileBytes(scratch.url.appendingPathComponent(partial)) == Array(Resume.original[0..<cut]), "the partial file is intact")
        }
    }

    /// A 206 with an absurd Content-Length on a resumed download must not trap computing the
    /// total (offset + length overflowed).
    @Test func aResumedRangeWithAHugeLengthDoesNotTrap() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            let cut = 1_000
            server.route("/file") { request, connection in
                if let range = request.header("Range") {
                    let start = range.dropFirst("bytes=".count).dropLast()
                    try connection.sendHead(status: 206, headers: [
                        ("Content-Range", "bytes \(start)-\(Int64.max - 1)/*"), ("Content-Length", "\(Int64.max)"),
                    ])
                    try connection.send("abc")
                    connection.close()
                    return
                }
                try connection.sendHead(headers: [("Content-Length", "\(Resume.original.count)"), ("ETag", Resume.etag)])
                try connection.send(Array(Resume.original[0..<cut]))
                connection.close()
            }
            let first = try Resume.interrupted(manager, server)
            let second = try Resume.resume(manager, try #require(first.resumeData))
            #expect(second.error != nil, "the server closed early: the download fails, nothing traps")
        }
    }

    /// Authorization from the session's headers is not sent to another origin after a redirect.
    @Test func sessionCredentialsStayWithTheirOrigin() throws {
        try withSession(configure: { $0.httpAdditionalHeaders = ["Authorization": "Bearer secret", "X-Trace": "t"] }) { manager, server in
            let other = try ScriptedServer()
            defer { other.shutdown() }
            other.route("/landing") { _, connection in try connection.respond(body: "landed") }
            server.route("/start") { _, connection in
                try connection.respond(status: 302, headers: [("Location", "\(other.baseURL)/landing")])
            }
            server.route("/same") { _, connection in try connection.respond(status: 302, headers: [("Location", "/landing")]) }
            server.route("/landing") { _, connection in try connection.respond(body: "here") }
            let response = try runData(manager, Request(url: url(server, "/start")))
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "landed")
            #expect(server.requests.first?.header("Authorization") == "Bearer secret")
            let landed = try #require(other.requests.first)
            #expect(landed.header("Authorization") == nil, "credentials are not carried to another origin")
            #expect(landed.header("X-Trace") == "t", "other session headers are")
            _ = try runData(manager, Request(url: url(server, "/same")))
            #expect(server.requests.last?.header("Authorization") == "Bearer secret", "the same origin keeps them")
        }
    }

    /// timeoutIntervalForResource covers the whole task, redirects included (each request used to
    /// get the full time again).
    @Test func theResourceTimeoutCoversEveryRedirect() throws {
        try withSession(configure: { $0.timeoutIntervalForResource = 0.5 }) { manager, server in
            for hop in 0..<5 {
                server.route("/hop\(hop)") { _, connection in
                    try connection.stall(forMilliseconds: 150)
                    try connection.respond(status: 302, headers: [("Location", "/hop\(hop + 1)")])
                }
            }
            server.route("/hop5") { _, connection in try connection.respond(body: "end") }
            let response = try runData(manager, Request(url: url(server, "/hop0")))
            let error = try #require(response.error, "5 × 150 ms of redirects cannot fit in 0.5 s")
            #expect(error.code == .resourceTimeout || (error.underlying as? ClientError)?.code == .totalTimeout, "\(error)")
            #expect(server.requests.count < 5)
        }
    }

    /// A response served from the cache reports its size as progress.
    @Test func aCacheHitReportsItsProgress() throws {
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            server.route("/c") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60")], body: "cached body") }
            _ = try runData(manager, Request(url: url(server, "/c")))
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/c"))) { outcome.set($0) }
            task.resume()
            _ = try #require(outcome.wait())
            #expect(server.requests.count == 1, "the second answer came from the cache")
            let snapshot = task.downloadProgress.snapshot
            #expect(snapshot.completedUnitCount == 11 && snapshot.totalUnitCount == 11 && snapshot.isFinished)
        }
    }

    /// Cache-Control items that are only "=" and years past 9999 in Expires used to trap.
    @Test func hostileCacheHeadersDoNotTrap() throws {
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            server.route("/a") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60, =, ==")], body: "a") }
            server.route("/b") { _, connection in
                try connection.respond(headers: [("Expires", "Sun, 06 Nov 999999999999 08:49:37 GMT"), ("Date", "Sun, 06 Nov 999999999999 08:49:37 GMT")], body: "b")
            }
            // `Vary: *` never matches (RFC 9111 §4.1): never stored. (A named Vary field is a
            // secondary key now: HTTPCacheTests.varySeparatesEntries.)
            server.route("/v") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60"), ("Vary", "*")], body: "v") }
            for path in ["/a", "/b", "/v", "/v"] {
                let response = try runData(manager, Request(url: url(server, path)))
                #expect(response.error == nil, "\(path)")
            }
            #expect(server.requests.filter { $0.path == "/v" }.count == 2, "a response with Vary is not stored")
        }
    }
}
