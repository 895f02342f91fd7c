import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Download progress: honest totals (Content-Length, or unknown for gzip and chunked bodies),
/// coalescing when the completion queue falls behind, and cancelling through the handle.
@Suite(.serialized) struct ProgressReportingTests {
    /// While running, a snapshot of an unknown-size body has total -1 and no fraction.
    static func expectIndeterminateWhileRunning(_ snapshots: [TaskProgress.Snapshot], finalCount: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let running = snapshots.filter { !$0.isFinished }
        #expect(!running.isEmpty, "there were snapshots while the body was arriving", sourceLocation: sourceLocation)
        #expect(running.contains { $0.completedUnitCount > 0 }, sourceLocation: sourceLocation)
        for snapshot in running {
            #expect(snapshot.totalUnitCount == -1, "no total while the size is unknown: \(snapshot)", sourceLocation: sourceLocation)
            #expect(snapshot.fractionCompleted == nil, sourceLocation: sourceLocation)
            #expect(snapshot.isIndeterminate, sourceLocation: sourceLocation)
        }
        let last = snapshots.last
        #expect(last?.isFinished == true, sourceLocation: sourceLocation)
        #expect(last?.completedUnitCount == Int64(finalCount), sourceLocation: sourceLocation)
        #expect(last?.totalUnitCount == Int64(finalCount), "at the end the total is what arrived", sourceLocation: sourceLocation)
        #expect(last?.fractionCompleted == 1, sourceLocation: sourceLocation)
    }

    @Test func theDownloadTotalIsContentLength() throws {
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            let body = noisyBytes(500_000)
            let halfSeen = TestEvent()
            server.route("/file") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(body.count)")])
                try connection.send(Array(body[0..<250_000]))
                try connection.stall(until: halfSeen, timeout: .seconds(20))
                try connection.send(Array(body[250_000...]))
            }
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let response = try runDownload(manager, Request(url: url(server, "/file")), progress: { snapshot in
                snapshots.append(snapshot)
                if snapshot.completedUnitCount > 0 { halfSeen.signal() }
            })
            let file = try #require(response.fileURL)
            defer { try? FileManager.default.removeItem(at: file) }
            let all = snapshots.all
            #expect(all.allSatisfy { $0.totalUnitCount == Int64(body.count) })
            #expect(all.contains { !$0.isFinished && ($0.fractionCompleted ?? 0) > 0 && ($0.fractionCompleted ?? 1) < 1 },
                    "a fraction between 0 and 1 was reported mid-body")
            for snapshot in all {
                #expect(snapshot.fractionCompleted == Double(snapshot.completedUnitCount) / Double(body.count))
            }
            #expect(all.last?.completedUnitCount == Int64(body.count))
            #expect(all.last?.isFinished == true)
        }
    }

    @Test func aGzipBodyHasNoTotalWhileRunning() throws {
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            let body = noisyBytes(400_000, seed: 2)
            let gzipped = zlibCompress(body)
            let progressed = TestEvent()
            server.route("/gz") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(gzipped.count)"), ("Content-Encoding", "gzip")])
                let half = gzipped.count / 2
                try connection.send(Array(gzipped[0..<half]))
                try connection.stall(until: progressed, timeout: .seconds(20))
                try connection.send(Array(gzipped[half...]))
            }
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/gz")), downloadProgress: { snapshot in
                snapshots.append(snapshot)
                if snapshot.completedUnitCount > 0 { progressed.signal() }
            }) { outcome.set($0) }
            task.resume()
            let response = try #require(outcome.wait())
            #expect(response.value.map(Array.init) == body, "the body was decoded")
            #expect(gzipped.count != body.count, "Content-Length (\(gzipped.count)) is not the decoded size")
            Self.expectIndeterminateWhileRunning(snapshots.all, finalCount: body.count)
        }
    }

    @Test func aGzipDownloadHasNoTotalWhileRunning() throws {
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            let body = noisyBytes(400_000, seed: 4)
            let gzipped = zlibCompress(body)
            let progressed = TestEvent()
            server.route("/gz") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(gzipped.count)"), ("Content-Encoding", "gzip"), ("ETag", "\"g\"")])
                let half = gzipped.count / 2
                try connection.send(Array(gzipped[0..<half]))
                try connection.stall(until: progressed, timeout: .seconds(20))
                try connection.send(Array(gzipped[half...]))
            }
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let response = try runDownload(manager, Request(url: url(server, "/gz")), progress: { snapshot in
                snapshots.append(snapshot)
                if snapshot.completedUnitCount > 0 { progressed.signal() }
            })
            let file = try #require(response.fileURL)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(fileBytes(file) == body)
            Self.expectIndeterminateWhileRunning(snapshots.all, finalCount: body.count)
        }
    }

    @Test func aChunkedBodyHasNoTotalWhileRunning() throws {
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            let body = patternBytes(300_000)
            let progressed = TestEvent()
            server.route("/chunked") { _, connection in
                try connection.sendChunkedHead()
                try connection.sendChunk(Array(body[0..<100_000]))
                try connection.stall(until: progressed, timeout: .seconds(20))
                try connection.sendChunk(Array(body[100_000...]))
                try connection.endChunks()
            }
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let outcome = Outcome<DataResponse<Data>>()
            manager.dataTask(with: Request(url: url(server, "/chunked")), downloadProgress: { snapshot in
                snapshots.append(snapshot)
                if snapshot.completedUnitCount > 0 { progressed.signal() }
            }) { outcome.set($0) }.resume()
            let response = try #require(outcome.wait())
            #expect(response.value.map(Array.init) == body)
            Self.expectIndeterminateWhileRunning(snapshots.all, finalCount: body.count)
        }
    }

    @Test func progressIsCoalescedWhileTheCompletionQueueIsBlocked() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            let total = 8 * 1024 * 1024
            let piece = patternBytes(64 * 1024)
            server.route("/big") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(total)")])
                for _ in 0..<(total / piece.count) { try connection.send(piece) }
            }
            let calls = Recorder<TaskProgress.Snapshot>()
            let completed = TestEvent()
            marker.queue.suspend()
            var resumed = false
            defer { if !resumed { marker.queue.resume() } }
            let task = manager.downloadTask(with: Request(url: url(server, "/big")), progress: { calls.append($0) }) { response in
                if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
                completed.signal()
            }
            task.resume()
            // The transfer ends with the queue still blocked: nothing was delivered yet.
            #expect(waitUntil { task.downloadProgress.snapshot.isFinished }, "the download finished")
            #expect(task.countOfBytesReceived == Int64(total))
            #expect(calls.count == 0, "nothing runs while the completion queue is suspended")
            resumed = true
            marker.queue.resume()
            #expect(completed.wait(timeout: .seconds(20)))
            let all = calls.all
            #expect(all.count >= 1 && all.count <= 3, "\(all.count) progress calls for \(total / piece.count) parts, not one per part")
            #expect(all.last?.completedUnitCount == Int64(total))
            #expect(all.last?.totalUnitCount == Int64(total))
            #expect(all.last?.isFinished == true)
        }
    }

    @Test func theProgressHandleCancelsItsTask() throws {
        try withSession { manager, server in
            let release = TestEvent()
            server.route("/slow") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "100000")])
                try connection.send(patternBytes(10_000))
                try connection.stall(until: release)
            }
            defer { release.signal() }
            let started = TestEvent()
            let outcome = Outcome<DownloadResponse>()
            // Cancelled once everything the server sent has been counted (the client may read the
            // 10,000 bytes in more than one part; a slower build, ASan's, shows it).
            let task = manager.downloadTask(with: Request(url: url(server, "/slow")), progress: { snapshot in
                if snapshot.completedUnitCount == 10_000 { started.signal() }
            }) { outcome.set($0) }
            task.resume()
            #expect(started.wait(timeout: .seconds(20)))
            task.downloadProgress.cancel()
            let response = try #require(outcome.wait())
            #expect(response.error?.code == .cancelled)
            #expect(response.error?.isCancelled == true)
            #expect(task.state == .completed)
            #expect(task.downloadProgress.snapshot.isFinished)
            #expect(task.downloadProgress.completedUnitCount == 10_000)
        }
    }
}
