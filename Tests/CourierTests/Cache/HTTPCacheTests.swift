import Courier
import CourierCore
import CourierTestSupport
import FoundationEssentials
import Synchronization
import Testing

/// The session's HTTP cache (RFC 9111) end to end against a scripted server that counts the
/// requests it gets: fresh hits, revalidation with 304s, Vary, invalidation, the per-request
/// policies, the disk store across sessions, and what metrics and monitors say.
@Suite(.serialized) struct HTTPCacheTests {
    /// A number the server's routes read and the test changes.
    final class Shared: Sendable {
        private let number = Mutex(0)
        init(_ value: Int) { number.withLock { $0 = value } }
        var value: Int { number.withLock { $0 } }
        func set(_ value: Int) { number.withLock { $0 = value } }
        func next() -> Int { number.withLock { $0 += 1; return $0 } }
    }

    static let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    static func text(_ response: DataResponse<Data>) -> String? { response.value.map { String(decoding: $0, as: UTF8.self) } }

    /// `/s`: `max-age=0` with an ETag and Last-Modified; a conditional request for the current
    /// version gets a 304 with new headers; `version` says which version is current.
    static func validating(_ server: ScriptedServer, version: Shared, notModifiedStatus: Int = 304) {
        server.route("/s") { request, connection in
            let current = version.value
            if request.header("If-None-Match") == "\"v\(current)\"" {
                try connection.respond(status: notModifiedStatus, headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v\(current)\""), ("X-Checked", "yes")])
            } else {
                try connection.respond(
                    headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v\(current)\""), ("Last-Modified", lastModified), ("X-Checked", "no")],
                    body: "version \(current)")
            }
        }
    }

    @Test func aFreshHitSendsNothing() throws {
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            server.route("/f") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60")], body: "fresh") }
            let first = try runData(manager, Request(url: url(server, "/f")))
            let second = try runData(manager, Request(url: url(server, "/f")))
            #expect(server.requests.count == 1)
            #expect(Self.text(second) == "fresh")
            #expect(first.metrics?.responseSource == .network)
            #expect(second.metrics?.responseSource == .cache)
        }
    }

    @Test func aStaleEntryIsRevalidatedAndA304MergesIntoIt() throws {
        let version = Shared(1)
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            Self.validating(server, version: version)
            let first = try runData(manager, Request(url: url(server, "/s")))
            #expect(Self.text(first) == "version 1" && first.metrics?.responseSource == .network)
            let second = try runData(manager, Request(url: url(server, "/s")))
            #expect(server.requests.count == 2, "the stale entry was revalidated")
            let conditional = try #require(server.requests.last)
            #expect(conditional.header("If-None-Match") == "\"v1\"")
            #expect(conditional.header("If-Modified-Since") == Self.lastModified)
            #expect(second.response?.statusCode == 200, "the stored response answers, not the 304")
            #expect(Self.text(second) == "version 1", "the stored body is served")
            #expect(second.response?.value(forHTTPHeaderField: "X-Checked") == "yes", "the 304's fields updated the stored head")
            #expect(second.response?.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
            #expect(second.metrics?.responseSource == .revalidated)
            #expect(second.metrics?.transactionMetrics.count == 1)
            // The 304 made the entry fresh for a minute: the next request sends nothing.
            let third = try runData(manager, Request(url: url(server, "/s")))
            #expect(server.requests.count == 2)
            #expect(Self.text(third) == "version 1" && third.metrics?.responseSource == .cache)
            #expect(third.response?.value(forHTTPHeaderField: "X-Checked") == "yes")
        }
    }

    @Test func aChangedResourceReplacesTheEntry() throws {
        let version = Shared(1)
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            Self.validating(server, version: version)
            _ = try runData(manager, Request(url: url(server, "/s")))
            version.set(2)
            let changed = try runData(manager, Request(url: url(server, "/s")))
            #expect(server.requests.last?.header("If-None-Match") == "\"v1\"")
            #expect(Self.text(changed) == "version 2" && changed.metrics?.responseSource == .network)
            // The new entry's validator is the one sent next.
            let again = try runData(manager, Request(url: url(server, "/s")))
            #expect(server.requests.last?.header("If-None-Match") == "\"v2\"")
            #expect(Self.text(again) == "version 2" && again.metrics?.responseSource == .revalidated)
        }
    }

    @Test func anErrorOnRevalidationIsPassedThrough() throws {
        let version = Shared(1)
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            Self.validating(server, version: version, notModifiedStatus: 503)
            _ = try runData(manager, Request(url: url(server, "/s")))
            let failed = try runData(manager, Request(url: url(server, "/s")))
            #expect(failed.response?.statusCode == 503, "no stale entry is served in its place")
            #expect(failed.metrics?.responseSource == .network)
        }
    }

    @Test func varySeparatesEntries() throws {
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            server.route("/v") { request, connection in
                try connection.respond(headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")],
                                       body: "lang \(request.header("Accept-Language") ?? "none")")
            }
            let english = Request(url: url(server, "/v"), headers: ["Accept-Language": "en"])
            let french = Request(url: url(server, "/v"), headers: ["Accept-Language": "fr"])
            #expect(Self.text(try runData(manager, english)) == "lang en")
            #expect(Self.text(try runData(manager, french)) == "lang fr")
            #expect(server.requests.count == 2, "another Accept-Language is another entry")
            let englishAgain = try runData(manager, english)
            let frenchAgain = try runData(manager, french)
            #expect(Self.text(englishAgain) == "lang en" && Self.text(frenchAgain) == "lang fr")
            #expect(server.requests.count == 2)
            #expect(englishAgain.metrics?.responseSource == .cache && frenchAgain.metrics?.responseSource == .cache)
        }
    }

    @Test func anUnsafeMethodInvalidatesItsTargetAndLocation() throws {
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            let hits = Shared(0)
            server.route("/r") { request, connection in
                if request.method == "GET" {
                    let count = hits.next()
                    try connection.respond(headers: [("Cache-Control", "max-age=60")], body: "r \(count)")
                } else {
                    try connection.respond(status: 201, headers: [("Location", "/other")], body: "")
                }
            }
            server.route("/other") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60")], body: "other") }
            _ = try runData(manager, Request(url: url(server, "/r")))
            _ = try runData(manager, Request(url: url(server, "/other")))
            #expect(Self.text(try runData(manager, Request(url: url(server, "/r")))) == "r 1")
            #expect(server.requests.count == 2)
            let post = try runData(manager, Request(url: url(server, "/r"), method: .POST, body: .data(Data("x".utf8))))
            #expect(post.response?.statusCode == 201)
            let after = try runData(manager, Request(url: url(server, "/r")))
            #expect(Self.text(after) == "r 2" && after.metrics?.responseSource == .network, "the POST invalidated /r")
            let other = try runData(manager, Request(url: url(server, "/other")))
            #expect(other.metrics?.responseSource == .network, "and its same-origin Location")
            #expect(server.requests.count == 5)
            for method in [HTTPMethod.PUT, .DELETE, .PATCH] {
                _ = try runData(manager, Request(url: url(server, "/r")))  // stored again
                let before = server.requests.count
                _ = try runData(manager, Request(url: url(server, "/r"), method: method))
                let refetched = try runData(manager, Request(url: url(server, "/r")))
                #expect(refetched.metrics?.responseSource == .network, "\(method) invalidates")
                #expect(server.requests.count == before + 2)
            }
        }
    }

    @Test func eachCachePolicy() throws {
        try withSession(configure: { $0.responseCache = MemoryResponseCache() }) { manager, server in
            server.route("/p") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60")], body: "p") }
            server.route("/stale") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=0"), ("ETag", "\"e\"")], body: "stale") }
            var request = Request(url: url(server, "/p"))
            // Nothing stored, never load: a typed error, no request.
            request.cachePolicy = .returnCacheDataDontLoad
            let unavailable = try runData(manager, request)
            #expect(unavailable.error?.code == .resourceUnavailable)
            #expect(server.requests.isEmpty)
            // Nothing stored, else load: the network, and stored.
            request.cachePolicy = .returnCacheDataElseLoad
            #expect(try runData(manager, request).metrics?.responseSource == .network)
            #expect(try runData(manager, request).metrics?.responseSource == .cache)
            #expect(server.requests.count == 1)
            // Reload: the network even though the entry is fresh.
            request.cachePolicy = .reloadIgnoringCacheData
            #expect(try runData(manager, request).metrics?.responseSource == .network)
            #expect(server.requests.count == 2)
            // A stale entry: the protocol validates it, the two cache-data policies use it as is.
            var stale = Request(url: url(server, "/stale"))
            _ = try runData(manager, stale)
            stale.cachePolicy = .returnCacheDataElseLoad
            let elseLoad = try runData(manager, stale)
            stale.cachePolicy = .returnCacheDataDontLoad
            let dontLoad = try runData(manager, stale)
            #expect(Self.text(elseLoad) == "stale" && elseLoad.metrics?.responseSource == .cache)
            #expect(Self.text(dontLoad) == "stale" && dontLoad.metrics?.responseSource == .cache)
            #expect(server.requests.count == 3)
            stale.cachePolicy = .useProtocolCachePolicy
            _ = try runData(manager, stale)
            #expect(server.requests.count == 4 && server.requests.last?.header("If-None-Match") == "\"e\"")
        }
    }

    @Test func theDiskCacheAnswersANewSessionAfterARestart() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/courier-http-cache-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try DiskResponseCache(directory: directory)
        try withSession(configure: { $0.responseCache = cache }) { manager, server in
            server.route("/d") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60")], body: "on disk") }
            _ = try runData(manager, Request(url: url(server, "/d")))
            #expect(server.requests.count == 1)
            // A new session over a new cache instance on the same directory.
            var configuration = SessionConfiguration()
            configuration.client.eventLoopThreads = 1
            configuration.responseCache = try DiskResponseCache(directory: directory)
            let restarted = try SessionManager(configuration: configuration)
            defer { invalidateAndWait(restarted) }
            let answer = try runData(restarted, Request(url: url(server, "/d")))
            #expect(Self.text(answer) == "on disk" && answer.metrics?.responseSource == .cache)
            #expect(server.requests.count == 1)
        }
    }

    @Test func monitorsSeeWhereTheResponseCameFrom() throws {
        let sources = Recorder<ResponseSource>()
        var monitor = ClosureEventMonitor()
        monitor.onMetrics = { _, metrics in sources.append(metrics.responseSource) }
        let version = Shared(1)
        try withSession(configure: { $0.responseCache = MemoryResponseCache(); $0.eventMonitors = [monitor] }) { manager, server in
            Self.validating(server, version: version)
            server.route("/f") { _, connection in try connection.respond(headers: [("Cache-Control", "max-age=60")], body: "f") }
            _ = try runData(manager, Request(url: url(server, "/f")))
            _ = try runData(manager, Request(url: url(server, "/f")))
            _ = try runData(manager, Request(url: url(server, "/s")))
            _ = try runData(manager, Request(url: url(server, "/s")))
            #expect(waitUntil { sources.count == 4 })
            #expect(sources.all == [.network, .cache, .network, .revalidated])
        }
    }
}
