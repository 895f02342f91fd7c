import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// The remaining hooks: response disposition, data received, will-cache (RFC 9111 freshness),
/// metrics, completion and invalidation. Each runs on the completion queue.
@Suite(.serialized) struct SessionHookTests {
    // MARK: Response disposition

    @Test func aDispositionOfCancelCancelsTheTask() throws {
        try withSession { manager, server in
            server.route("/r") { _, connection in try connection.respond(body: "unwanted") }
            let responses = Recorder<Int>()
            manager.updateHooks { $0.dataTaskDidReceiveResponse = { _, response in responses.append(response.statusCode); return .cancel } }
            let response = try runData(manager, Request(url: url(server, "/r")))
            #expect(responses.all == [200])
            #expect(response.error?.code == .cancelled)
            #expect(response.value == nil)
        }
    }

    @Test func theBodyIsHeldWhileTheDispositionIsDecided() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            let body = patternBytes(20_000)
            let bodySent = TestEvent()
            server.route("/r") { _, connection in
                try connection.respond(body: body)
                bodySent.signal()
            }
            let duringHook = Recorder<(Int64, Int, Bool)>()
            let dataCalls = Counter()
            manager.updateHooks { hooks in
                hooks.dataTaskDidReceiveData = { _, _ in dataCalls.add(1) }
                hooks.dataTaskDidReceiveResponse = { task, _ in
                    // The whole body is on its way; none of it may be delivered before we answer.
                    _ = bodySent.wait(timeout: .seconds(20))
                    duringHook.append((task.countOfBytesReceived, dataCalls.value, marker.isCurrent))
                    return .allow
                }
            }
            let response = try runData(manager, Request(url: url(server, "/r")))
            let (received, dataSeen, onQueue) = try #require(duringHook.all.first)
            #expect(onQueue)
            #expect(received == 0, "no body bytes were taken in while the hook decided")
            #expect(dataSeen == 0)
            #expect(response.value.map(Array.init) == body, "after .allow the whole body arrives")
            #expect(dataCalls.value >= 1)
        }
    }

    // MARK: Data received

    @Test func dataReceivedCallsConcatenateToTheBody() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            let body = patternBytes(200_000, seed: 9)
            let firstSeen = TestEvent()
            server.route("/chunks") { _, connection in
                try connection.sendChunkedHead()
                try connection.sendChunk(Array(body[0..<50_000]))
                try connection.stall(until: firstSeen, timeout: .seconds(20))
                for start in stride(from: 50_000, to: body.count, by: 30_000) {
                    try connection.sendChunk(Array(body[start..<min(start + 30_000, body.count)]))
                }
                try connection.endChunks()
            }
            let pieces = Recorder<Data>()
            let onQueue = Recorder<Bool>()
            manager.updateHooks { hooks in
                hooks.dataTaskDidReceiveData = { _, data in
                    pieces.append(data)
                    onQueue.append(marker.isCurrent)
                    firstSeen.signal()
                }
            }
            let response = try runData(manager, Request(url: url(server, "/chunks")))
            #expect(response.value.map(Array.init) == body)
            #expect(pieces.count >= 2, "the body arrived in several calls")
            #expect(pieces.all.reduce(Data(), +) == Data(body), "the pieces, in order, are the body")
            #expect(onQueue.all.allSatisfy { $0 })
        }
    }

    // MARK: Will-cache

    static func cacheable(_ server: ScriptedServer, cacheControl: String = "max-age=60", body: String = "cached body") {
        server.route("/c") { _, connection in
            try connection.respond(headers: [("Cache-Control", cacheControl)], body: body)
        }
    }

    @Test func aFreshResponseIsServedFromTheCache() throws {
        let marker = QueueMarker()
        let cache = MemoryResponseCache()
        try withSession(configure: { $0.responseCache = cache }, completionQueue: marker.queue) { manager, server in
            Self.cacheable(server)
            let proposals = Recorder<(Int, String, Bool)>()
            manager.updateHooks { hooks in
                hooks.dataTaskWillCacheResponse = { _, proposal in
                    proposals.append((proposal.response.statusCode, String(decoding: proposal.data, as: UTF8.self), marker.isCurrent))
                    return proposal
                }
            }
            let first = try runData(manager, Request(url: url(server, "/c")))
            let second = try runData(manager, Request(url: url(server, "/c")))
            #expect(first.value.map { String(decoding: $0, as: UTF8.self) } == "cached body")
            #expect(second.value.map { String(decoding: $0, as: UTF8.self) } == "cached body")
            #expect(second.response?.statusCode == 200)
            #expect(server.requests.count == 1, "the second GET never reached the server")
            #expect(second.metrics?.transactionMetrics.isEmpty == true, "no transaction for a cache hit")
            #expect(proposals.count == 1, "only the network response is offered to the cache")
            #expect(proposals.all.first.map { $0.0 == 200 && $0.1 == "cached body" && $0.2 } == true)
            #expect(cache.currentBytes == "cached body".utf8.count)
        }
    }

    @Test func theWillCacheHookCanChangeWhatIsStored() throws {
        let cache = MemoryResponseCache()
        try withSession(configure: { $0.responseCache = cache }) { manager, server in
            Self.cacheable(server)
            manager.updateHooks { hooks in
                hooks.dataTaskWillCacheResponse = { _, proposal in
                    var changed = proposal
                    changed.data = Data("from the hook".utf8)
                    return changed
                }
            }
            _ = try runData(manager, Request(url: url(server, "/c")))
            let second = try runData(manager, Request(url: url(server, "/c")))
            #expect(second.value.map { String(decoding: $0, as: UTF8.self) } == "from the hook")
            #expect(server.requests.count == 1)
        }
    }

    @Test func aNilFromTheWillCacheHookStoresNothing() throws {
        let cache = MemoryResponseCache()
        try withSession(configure: { $0.responseCache = cache }) { manager, server in
            Self.cacheable(server)
            let calls = Counter()
            manager.updateHooks { $0.dataTaskWillCacheResponse = { _, _ in calls.add(1); return nil } }
            _ = try runData(manager, Request(url: url(server, "/c")))
            _ = try runData(manager, Request(url: url(server, "/c")))
            #expect(server.requests.count == 2)
            #expect(calls.value == 2)
            #expect(cache.currentBytes == 0)
        }
    }

    @Test func noStoreIsNotCached() throws {
        let cache = MemoryResponseCache()
        try withSession(configure: { $0.responseCache = cache }) { manager, server in
            Self.cacheable(server, cacheControl: "no-store, max-age=60")
            let calls = Counter()
            manager.updateHooks { $0.dataTaskWillCacheResponse = { _, proposal in calls.add(1); return proposal } }
            _ = try runData(manager, Request(url: url(server, "/c")))
            _ = try runData(manager, Request(url: url(server, "/c")))
            #expect(server.requests.count == 2)
            #expect(calls.value == 0, "a response that may not be stored is not offered")
            #expect(cache.currentBytes == 0)
        }
    }

    @Test func anExpiredEntryGoesToTheNetwork() throws {
        let cache = MemoryResponseCache()
        try withSession(configure: { $0.responseCache = cache }) { manager, server in
            Self.cacheable(server, body: "fresh from the network")
            let request = Request(url: url(server, "/c"))
            let stale = CachedResponse(
                response: Response(url: request.url, statusCode: 200, headers: ["Cache-Control": "max-age=60"]),
                data: Data("stale".utf8), storedAt: Date(timeIntervalSinceNow: -120))
            cache.storeCachedResponse(stale, for: request)
            let response = try runData(manager, request)
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "fresh from the network")
            #expect(server.requests.count == 1)
            // The network response replaced the stale one and is fresh.
            let again = try runData(manager, request)
            #expect(again.value.map { String(decoding: $0, as: UTF8.self) } == "fresh from the network")
            #expect(server.requests.count == 1)
        }
    }

    @Test func maxAgeZeroIsStoredButNeverFresh() throws {
        let cache = MemoryResponseCache()
        try withSession(configure: { $0.responseCache = cache }) { manager, server in
            Self.cacheable(server, cacheControl: "max-age=0")
            _ = try runData(manager, Request(url: url(server, "/c")))
            _ = try runData(manager, Request(url: url(server, "/c")))
            #expect(server.requests.count == 2)
        }
    }

    // MARK: Metrics and completion

    @Test func metricsAreCollectedWithOrderedTimestamps() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            RedirectAndAuthHookTests.redirecting(server)
            let collected = Outcome<(TaskMetrics, Bool)>()
            let order = Recorder<String>()
            manager.updateHooks { hooks in
                hooks.taskDidFinishCollectingMetrics = { _, metrics in
                    order.append("metrics")
                    collected.set((metrics, marker.isCurrent))
                }
                hooks.taskDidComplete = { _, _ in order.append("complete") }
            }
            let outcome = Outcome<DataResponse<Data>>()
            manager.dataTask(with: Request(url: url(server, "/from"))) { response in
                order.append("handler")
                outcome.set(response)
            }.resume()
            let response = try #require(outcome.wait())
            let (metrics, onQueue) = try #require(collected.wait())
            #expect(onQueue)
            #expect(order.all == ["metrics", "complete", "handler"])
            #expect(metrics.transactionMetrics.count == 2, "one transaction per request made")
            #expect(metrics.redirectCount == 1)
            #expect(metrics.taskStart <= metrics.taskEnd)
            #expect(metrics.duration >= 0)
            #expect(response.metrics?.transactionMetrics.count == 2)
            for transaction in metrics.transactionMetrics {
                let requestStart = try #require(transaction.requestStart)
                let responseStart = try #require(transaction.responseStart)
                let responseEnd = try #require(transaction.responseEnd)
                #expect(transaction.fetchStart <= requestStart)
                #expect(requestStart <= responseStart)
                #expect(responseStart <= responseEnd)
                // Also for a bodyless request written in one go (a CourierClient bug this found).
                let requestEnd = try #require(transaction.requestEnd)
                #expect(requestStart <= requestEnd)
                #expect(requestEnd <= responseStart)
                if let connectStart = transaction.connectStart, let connectEnd = transaction.connectEnd {
                    #expect(transaction.fetchStart <= connectStart)
                    #expect(connectStart <= connectEnd)
                    #expect(connectEnd <= requestStart)
                }
                #expect(transaction.bytesSent > 0)
                #expect(transaction.bytesReceived > 0)
            }
            let first = metrics.transactionMetrics[0], second = metrics.transactionMetrics[1]
            #expect(first.connectStart != nil, "the first request opened a connection")
            #expect(try #require(first.responseEnd) <= second.fetchStart, "the redirect was made after the first response")
            #expect(second.reusedConnection, "the redirect reused the connection")
        }
    }

    @Test func didCompleteSeesTheErrorOrNil() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            server.route("/ok") { _, connection in try connection.respond(body: "ok") }
            server.route("/drop") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "10")])
                connection.close()
            }
            let completions = Recorder<(Int, CourierError?, Bool)>()
            manager.updateHooks { $0.taskDidComplete = { task, error in completions.append((task.taskIdentifier, error, marker.isCurrent)) } }
            let cancelledDone = Outcome<DataResponse<Data>>()
            let cancelled = manager.dataTask(with: Request(url: url(server, "/ok"))) { cancelledDone.set($0) }
            cancelled.cancel()
            #expect(try #require(cancelledDone.wait()).error?.code == .cancelled)
            let okDone = try runData(manager, Request(url: url(server, "/ok")))
            let dropped = try runData(manager, Request(url: url(server, "/drop")))
            #expect(okDone.error == nil)
            #expect(dropped.error?.code == .transport)
            let all = completions.all
            #expect(all.count == 3)
            #expect(all.allSatisfy { $0.2 })
            #expect(all.first?.0 == cancelled.taskIdentifier)
            let errors = all.map { $0.1?.code }
            #expect(errors == [.cancelled, nil, .transport], "the hook runs before each completion handler, with the error")
        }
    }

    // MARK: Invalidation

    @Test func invalidationRunsTheHookAndEndsTheEventStreamWithIt() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let streamEvents = Recorder<String>()
            let streamEnded = readEvents(manager.events()) { event in
                switch event {
                case .taskResumed: streamEvents.append("resumed")
                case .taskSuspended: streamEvents.append("suspended")
                case .taskCompleted: streamEvents.append("completed")
                case .sessionInvalidated(let error): streamEvents.append(error == nil ? "invalidated" : "invalidated with error")
                }
                return true
            }
            let hook = Outcome<(Bool, Bool)>()
            manager.updateHooks { $0.sessionDidBecomeInvalid = { error in hook.set((error == nil, marker.isCurrent)) } }
            _ = try runData(manager, Request(url: url(server, "/x")))
            manager.invalidate(cancelingTasks: false)
            let (noError, onQueue) = try #require(hook.wait())
            #expect(noError && onQueue)
            #expect(streamEnded.wait(timeout: .seconds(20)), "the stream finishes after the invalidation event")
            #expect(streamEvents.all == ["resumed", "completed", "invalidated"])
            // A stream asked for afterwards ends at once.
            let late = readEvents(manager.events()) { _ in true }
            #expect(late.wait(timeout: .seconds(20)))
            // New tasks fail.
            let after = try runData(manager, Request(url: url(server, "/x")))
            #expect(after.error?.code == .sessionInvalidated)
            #expect(server.requests.count == 1)
        }
    }
}
