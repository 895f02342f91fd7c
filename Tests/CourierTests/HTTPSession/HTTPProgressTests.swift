import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// Progress closures of the closure API: download progress for GET, upload progress for POST,
/// with totals that are the real sizes (or -1 while unknown), never made up.
@Suite(.serialized) struct HTTPProgressTests {
    /// Checks a sequence of snapshots: counts never go back, never pass a known total, every
    /// known total is `total`, and the last one is finished at `total`.
    static func expectHonest(
        _ snapshots: [TaskProgress.Snapshot], total: Int64, totalKnownEarly: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let last = snapshots.last else {
            Issue.record("no progress was reported", sourceLocation: sourceLocation)
            return
        }
        #expect(last.completedUnitCount == total, sourceLocation: sourceLocation)
        #expect(last.totalUnitCount == total, sourceLocation: sourceLocation)
        #expect(last.fractionCompleted == 1, sourceLocation: sourceLocation)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            #expect(next.completedUnitCount >= previous.completedUnitCount, "\(snapshots)", sourceLocation: sourceLocation)
        }
        for snapshot in snapshots {
            #expect(snapshot.totalUnitCount == total || snapshot.totalUnitCount == -1, "\(snapshot)", sourceLocation: sourceLocation)
            if snapshot.totalUnitCount >= 0 {
                #expect(snapshot.completedUnitCount <= snapshot.totalUnitCount, "\(snapshot)", sourceLocation: sourceLocation)
            }
        }
        if totalKnownEarly {
            // Once bytes move, the total is known.
            let moving = snapshots.filter { $0.completedUnitCount > 0 }
            #expect(moving.allSatisfy { $0.totalUnitCount == total }, "\(moving)", sourceLocation: sourceLocation)
            #expect(moving.count >= 1, sourceLocation: sourceLocation)
        } else {
            let partial = snapshots.filter { !$0.isFinished }
            #expect(partial.allSatisfy { $0.totalUnitCount == -1 }, "an unknown total is reported as -1: \(partial)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func getReportsDownloadProgressWithTheContentLength() throws {
        let marker = QueueMarker()
        let body = patternBytes(300_000)
        try withHTTPSession(configure: { $0.progressInterval = 0 }, completionQueue: marker.queue) { manager, server in
            server.route("/file") { _, connection in
                try connection.sendHead(headers: [("Content-Type", "application/octet-stream"), ("Content-Length", String(body.count))])
                // In pieces, so the client sees the body arrive in several reads.
                for start in stride(from: 0, to: body.count, by: 50_000) {
                    try connection.send(Array(body[start..<min(body.count, start + 50_000)]))
                }
            }
            manager.responseSerializer = HTTPResponseSerializer().erased
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let offQueue = Counter()
            let outcome = Outcome<CourierError?>()
            manager.GET("file", progress: { snapshot in
                if !marker.isCurrent { offQueue.add(1) }
                snapshots.append(snapshot)
            }, success: { _, value in
                #expect((value as? Data).map(Array.init) == body)
                outcome.set(nil)
            }, failure: { _, error in outcome.set(error) })
            let error = try #require(outcome.wait())
            #expect(error == nil, "\(String(describing: error))")
            #expect(offQueue.value == 0, "progress runs on the completion queue")
            Self.expectHonest(snapshots.all, total: Int64(body.count), totalKnownEarly: true)
        }
    }

    @Test func aChunkedDownloadHasNoTotalUntilItEnds() throws {
        let marker = QueueMarker()
        let body = patternBytes(120_000, seed: 3)
        try withHTTPSession(configure: { $0.progressInterval = 0 }, completionQueue: marker.queue) { manager, server in
            server.route("/chunked") { _, connection in
                try connection.sendChunkedHead(headers: [("Content-Type", "application/octet-stream")])
                for start in stride(from: 0, to: body.count, by: 30_000) {
                    try connection.sendChunk(Array(body[start..<min(body.count, start + 30_000)]))
                }
                try connection.endChunks()
            }
            manager.responseSerializer = HTTPResponseSerializer().erased
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let outcome = Outcome<CourierError?>()
            manager.GET("chunked", progress: { snapshots.append($0) }, success: { _, _ in outcome.set(nil) }, failure: { _, error in outcome.set(error) })
            let error = try #require(outcome.wait())
            #expect(error == nil, "\(String(describing: error))")
            Self.expectHonest(snapshots.all, total: Int64(body.count), totalKnownEarly: false)
        }
    }

    @Test func postReportsUploadProgressWithTheBodyLength() throws {
        let marker = QueueMarker()
        let blob = String(repeating: "x", count: 400_000)
        try withHTTPSession(configure: { $0.progressInterval = 0 }, completionQueue: marker.queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/upload")
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let offQueue = Counter()
            let outcome = Outcome<CourierError?>()
            let task = manager.POST("upload", parameters: ["blob": blob], progress: { snapshot in
                if !marker.isCurrent { offQueue.add(1) }
                snapshots.append(snapshot)
            }, success: { _, _ in outcome.set(nil) }, failure: { _, error in outcome.set(error) })
            let error = try #require(outcome.wait())
            #expect(error == nil, "\(String(describing: error))")
            let seen = try #require(server.requests.first)
            #expect(seen.body.count == "blob=".utf8.count + blob.utf8.count)
            #expect(offQueue.value == 0)
            Self.expectHonest(snapshots.all, total: Int64(seen.body.count), totalKnownEarly: true)
            #expect(task?.countOfBytesSent == Int64(seen.body.count))
        }
    }
}
