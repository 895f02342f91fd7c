import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Upload tasks from memory, a file and a stream: the bytes the server receives, the framing,
/// and what upload progress and the `taskDidSendBodyData` hook report.
@Suite(.serialized) struct UploadTaskTests {
    /// Routes `/upload` to answer with the number of body bytes received.
    static func echoLength(_ server: ScriptedServer) {
        server.route("/upload") { request, connection in
            try connection.respond(status: 201, body: "\(request.body.count)")
        }
    }

    /// Records every `taskDidSendBodyData` call: (bytes this time, sent so far, expected).
    static func recordSends(_ manager: SessionManager) -> Recorder<(Int64, Int64, Int64)> {
        let sends = Recorder<(Int64, Int64, Int64)>()
        manager.updateHooks { $0.taskDidSendBodyData = { _, delta, sent, expected in sends.append((delta, sent, expected)) } }
        return sends
    }

    /// Checks what progress and the hook saw for a body of `length` bytes, `expected` total.
    static func checkReports(
        progress: [TaskProgress.Snapshot], sends: [(Int64, Int64, Int64)], length: Int64, expected: Int64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!progress.isEmpty, "upload progress was reported", sourceLocation: sourceLocation)
        #expect(progress.allSatisfy { $0.totalUnitCount == expected }, "every snapshot has total \(expected)", sourceLocation: sourceLocation)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedUnitCount <= $1.completedUnitCount },
                "progress never goes back", sourceLocation: sourceLocation)
        let last = progress.last
        #expect(last?.completedUnitCount == length, sourceLocation: sourceLocation)
        #expect(last?.isFinished == true, sourceLocation: sourceLocation)
        if expected >= 0 { #expect(last?.fractionCompleted == 1, sourceLocation: sourceLocation) } else {
            #expect(progress.allSatisfy { $0.fractionCompleted == nil }, "no fraction for an unknown total", sourceLocation: sourceLocation)
        }
        #expect(!sends.isEmpty, "taskDidSendBodyData was called", sourceLocation: sourceLocation)
        #expect(sends.reduce(Int64(0)) { $0 + $1.0 } == length, "the deltas add up to the body", sourceLocation: sourceLocation)
        #expect(sends.last?.1 == length, sourceLocation: sourceLocation)
        #expect(sends.allSatisfy { $0.2 == expected }, "the hook sees the same total", sourceLocation: sourceLocation)
        #expect(sends.allSatisfy { $0.0 > 0 }, sourceLocation: sourceLocation)
    }

    @Test func uploadFromDataSendsTheBytesWithContentLength() throws {
        let marker = QueueMarker()
        try withSession(configure: { $0.progressInterval = 0 }, completionQueue: marker.queue) { manager, server in
            Self.echoLength(server)
            let sends = Self.recordSends(manager)
            let onQueue = Recorder<Bool>()
            manager.updateHooks { hooks in
                let record = hooks.taskDidSendBodyData
                hooks.taskDidSendBodyData = { task, a, b, c in onQueue.append(marker.isCurrent); record?(task, a, b, c) }
            }
            let body = Data(patternBytes(256 * 1024))
            let progress = Recorder<TaskProgress.Snapshot>()
            let response: DataResponse<String> = try run { done in
                manager.uploadTask(with: Request(url: url(server, "/upload"), method: .POST), fromData: body,
                                   serializer: StringResponseSerializer(), progress: { progress.append($0) }, completionHandler: done)
            }
            #expect(response.value == "\(body.count)")
            #expect(response.response?.statusCode == 201)
            let seen = try #require(server.requests.first)
            #expect(seen.method == "POST")
            #expect(Data(seen.body) == body)
            #expect(seen.header("Content-Length") == "\(body.count)")
            #expect(!seen.wasChunked)
            Self.checkReports(progress: progress.all, sends: sends.all, length: Int64(body.count), expected: Int64(body.count))
            #expect(onQueue.all.allSatisfy { $0 } && !onQueue.all.isEmpty, "the hook ran on the completion queue")
        }
    }

    @Test func uploadFromAFileStreamsItWithItsLength() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let bytes = noisyBytes(3 * 1024 * 1024)
        let file = URL(fileURLWithPath: try directory.write("upload.bin", bytes))
        try withSession { manager, server in
            Self.echoLength(server)
            let sends = Self.recordSends(manager)
            let progress = Recorder<TaskProgress.Snapshot>()
            let task = manager.uploadTask(with: Request(url: url(server, "/upload"), method: .PUT), fromFile: file,
                                          progress: { progress.append($0) }) { _ in }
            #expect(task.uploadProgress.totalUnitCount == Int64(bytes.count), "the total is known before the task starts")
            #expect(manager.uploadTasks.map(\.taskIdentifier) == [task.taskIdentifier])
            let done = TestEvent()
            manager.updateHooks { $0.taskDidComplete = { _, _ in done.signal() } }
            task.resume()
            #expect(done.wait(timeout: .seconds(30)))
            #expect(task.error == nil)
            #expect(task.response?.statusCode == 201)
            let seen = try #require(server.requests.first)
            #expect(seen.header("Content-Length") == "\(bytes.count)")
            #expect(seen.body.count == bytes.count)
            #expect(seen.body == bytes, "the server received the file byte for byte")
            #expect(task.countOfBytesSent == Int64(bytes.count))
            // Progress deliveries are queued before the completion hooks: all have run.
            Self.checkReports(progress: progress.all, sends: sends.all, length: Int64(bytes.count), expected: Int64(bytes.count))
        }
    }

    @Test func aStreamOfKnownLengthIsSentWithContentLength() throws {
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            Self.echoLength(server)
            let sends = Self.recordSends(manager)
            let bytes = patternBytes(100_000)
            let progress = Recorder<TaskProgress.Snapshot>()
            let request = Request(url: url(server, "/upload"), method: .POST,
                                  body: .stream(length: Int64(bytes.count)) { BytesStream(bytes, pieceSize: 7_000) })
            let response: DataResponse<Data> = try run { done in
                manager.uploadTask(withStreamedRequest: request, progress: { progress.append($0) }, completionHandler: done)
            }
            #expect(response.error == nil)
            let seen = try #require(server.requests.first)
            #expect(seen.body == bytes)
            #expect(seen.header("Content-Length") == "\(bytes.count)")
            #expect(!seen.wasChunked)
            Self.checkReports(progress: progress.all, sends: sends.all, length: Int64(bytes.count), expected: Int64(bytes.count))
        }
    }

    @Test func aStreamOfUnknownLengthIsSentChunked() throws {
        try withSession(configure: { $0.progressInterval = 0 }) { manager, server in
            Self.echoLength(server)
            let sends = Self.recordSends(manager)
            let bytes = patternBytes(100_000, seed: 3)
            let progress = Recorder<TaskProgress.Snapshot>()
            let request = Request(url: url(server, "/upload"), method: .POST,
                                  body: .stream(length: nil) { BytesStream(bytes, pieceSize: 9_000) })
            let unstarted = manager.uploadTask(withStreamedRequest: request) { _ in }
            #expect(unstarted.uploadProgress.totalUnitCount == -1)
            #expect(unstarted.uploadProgress.fractionCompleted == nil)
            unstarted.cancel()
            let response: DataResponse<Data> = try run { done in
                manager.uploadTask(withStreamedRequest: request, progress: { progress.append($0) }, completionHandler: done)
            }
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "\(bytes.count)")
            let seen = try #require(server.requests.first)
            #expect(seen.wasChunked, "a body of unknown length goes chunked")
            #expect(seen.header("Content-Length") == nil)
            #expect(seen.header("Transfer-Encoding")?.lowercased() == "chunked")
            #expect(seen.body == bytes)
            Self.checkReports(progress: progress.all, sends: sends.all, length: Int64(bytes.count), expected: -1)
        }
    }
}
