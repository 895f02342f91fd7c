import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Resuming downloads (RFC 9110 §14.2 Range, §13.1.5 If-Range, §14.4 Content-Range).
@Suite(.serialized) struct ResumeDownloadTests {
    static let original = noisyBytes(1_000_000, seed: 21)
    static let etag = "\"v1-strong\""

    /// `/file`: without Range, a 200 with Content-Length and the ETag that sends `cut` bytes and
    /// closes; with `Range: bytes=K-` and a matching If-Range, a 206 with the rest.
    static func droppingServer(_ server: ScriptedServer, cut: Int, wrongStart: Bool = false) {
        server.route("/file") { request, connection in
            if let range = request.header("Range"), request.header("If-Range") == etag,
               let start = Int(range.dropFirst("bytes=".count).dropLast()) {
                let first = wrongStart ? start + 1 : start
                try connection.respond(status: 206, headers: [
                    ("ETag", etag), ("Content-Range", "bytes \(first)-\(original.count - 1)/\(original.count)"),
                ], body: Array(original[first...]))
                return
            }
            try connection.sendHead(headers: [("Content-Length", "\(original.count)"), ("ETag", etag)])
            try connection.send(Array(original[0..<cut]))
            connection.close()
        }
    }

    /// Runs the first, interrupted download and returns its response.
    static func interrupted(_ manager: SessionManager, _ server: ScriptedServer) throws -> DownloadResponse {
        try runDownload(manager, Request(url: url(server, "/file")))
    }

    static func resume(
        _ manager: SessionManager, _ data: Data, destination: (@Sendable (URL, Response) -> URL)? = nil,
        progress: ProgressHandler? = nil
    ) throws -> DownloadResponse {
        try run { done in
            manager.downloadTask(withResumeData: data, progress: progress, destination: destination, completionHandler: done)
        }
    }

    @Test func aDroppedDownloadResumesToAByteIdenticalFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            let cut = 400_000
            Self.droppingServer(server, cut: cut)
            let first = try Self.interrupted(manager, server)
            let error = try #require(first.error)
            #expect(error.code == .transport)
            #expect(first.response?.statusCode == 200)
            let resumeData = try #require(first.resumeData, "a response with a strong ETag can be resumed")
            #expect(directoryEntries(scratch).count == 1, "the partial file is kept for the resume")

            let target = scratch.url.appendingPathComponent("done/file.bin")
            let progress = Recorder<TaskProgress.Snapshot>()
            let second = try Self.resume(manager, resumeData, destination: { _, _ in target }, progress: { progress.append($0) })
            #expect(second.error == nil)
            #expect(second.response?.statusCode == 206)
            #expect(second.fileURL?.path == target.path)
            let requests = server.requests
            #expect(requests.count == 2)
            let resumed = try #require(requests.last)
            #expect(resumed.header("Range") == "bytes=\(cut)-")
            #expect(resumed.header("If-Range") == Self.etag)
            #expect(resumed.header("Accept-Encoding") == "identity", "the offset counts identity bytes")
            let bytes = try #require(fileBytes(target))
            #expect(bytes.count == Self.original.count)
            #expect(bytes == Self.original, "the resumed file is byte-identical to the original")
            let last = try #require(progress.all.last)
            #expect(last.totalUnitCount == Int64(Self.original.count), "the total is the whole file")
            #expect(last.completedUnitCount == Int64(Self.original.count))
            #expect(progress.all.allSatisfy { $0.completedUnitCount >= Int64(cut) }, "progress starts at the resumed offset")
            #expect(directoryEntries(scratch) == ["done"], "the partial file was moved")
        }
    }

    @Test func aChangedRepresentationRestartsWithTheNewBody() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            Self.droppingServer(server, cut: 300_000)
            let first = try Self.interrupted(manager, server)
            let resumeData = try #require(first.resumeData)
            let replacement = noisyBytes(123_457, seed: 99)
            // The validator changed: the server ignores If-Range's range and sends everything.
            server.route("/file") { _, connection in
                try connection.respond(headers: [("ETag", "\"v2\"")], body: replacement)
            }
            let second = try Self.resume(manager, resumeData)
            #expect(second.error == nil)
            #expect(second.response?.statusCode == 200)
            #expect(server.requests.last?.header("Range") == "bytes=300000-")
            let file = try #require(second.fileURL)
            #expect(fileBytes(file) == replacement, "the file is the new body, not the old prefix plus it")
        }
    }

    @Test func cancellingByProducingResumeDataMidBody() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            let cut = 250_000
            let release = TestEvent()
            server.route("/file") { request, connection in
                if let range = request.header("Range"), request.header("If-Range") == Self.etag {
                    let start = Int(range.dropFirst("bytes=".count).dropLast())!
                    try connection.respond(status: 206, headers: [
                        ("Content-Range", "bytes \(start)-\(Self.original.count - 1)/\(Self.original.count)"),
                    ], body: Array(Self.original[start...]))
                    return
                }
                try connection.sendHead(headers: [("Content-Length", "\(Self.original.count)"), ("ETag", Self.etag)])
                try connection.send(Array(Self.original[0..<cut]))
                try connection.stall(until: release)
            }
            defer { release.signal() }
            let received = TestEvent()
            let outcome = Outcome<DownloadResponse>()
            let task = manager.downloadTask(with: Request(url: url(server, "/file")), progress: { snapshot in
                if snapshot.completedUnitCount >= Int64(cut) { received.signal() }
            }) { outcome.set($0) }
            task.resume()
            #expect(received.wait(timeout: .seconds(20)))
            let produced = Outcome<Data?>()
            task.cancel(byProducingResumeData: { produced.set($0) })
            let handed = try #require(produced.wait(), "the resume data handler was called")
            let resumeData = try #require(handed, "cancelling mid-body produces resume data")
            let first = try #require(outcome.wait())
            #expect(first.error?.code == .cancelled)
            #expect(first.resumeData == resumeData)
            #expect(task.resumeData == resumeData)

            let second = try Self.resume(manager, resumeData)
            #expect(second.error == nil)
            #expect(server.requests.last?.header("Range") == "bytes=\(cut)-")
            let file = try #require(second.fileURL)
            #expect(fileBytes(file) == Self.original)
        }
    }

    @Test func cancellingACompletedTaskForResumeDataGivesNil() throws {
        try withSession { manager, server in
            server.route("/small") { _, connection in try connection.respond(headers: [("ETag", "\"e\"")], body: "tiny") }
            let outcome = Outcome<DownloadResponse>()
            let task = manager.downloadTask(with: Request(url: url(server, "/small"))) { outcome.set($0) }
            task.resume()
            let response = try #require(outcome.wait())
            defer { response.fileURL.map { try? FileManager.default.removeItem(at: $0) } }
            let produced = Outcome<Data?>()
            task.cancel(byProducingResumeData: { produced.set($0) })
            let data = try #require(produced.wait(), "the handler is called even after completion")
            #expect(data == nil)
            #expect(task.error == nil, "cancelling a completed task changes nothing")
        }
    }

    @Test func aResponseWithoutAValidatorGivesNoResumeData() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            server.route("/file") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(Self.original.count)")])
                try connection.send(Array(Self.original[0..<100_000]))
                connection.close()
            }
            let response = try runDownload(manager, Request(url: url(server, "/file")))
            #expect(response.error?.code == .transport)
            #expect(response.resumeData == nil)
            #expect(directoryEntries(scratch).isEmpty, "the partial file is removed")
        }
    }

    @Test func aWeakETagGivesNoResumeData() throws {
        try withSession { manager, server in
            server.route("/file") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(Self.original.count)"), ("ETag", "W/\"weak\"")])
                try connection.send(Array(Self.original[0..<100_000]))
                connection.close()
            }
            let response = try runDownload(manager, Request(url: url(server, "/file")))
            #expect(response.error != nil)
            #expect(response.resumeData == nil, "a weak validator must not be used in If-Range")
        }
    }

    @Test func corruptResumeDataFailsWhenResumed() throws {
        try withSession { manager, server in
            let garbage = try Self.resume(manager, Data("not resume data".utf8))
            #expect(garbage.error?.code == .invalidResumeData)
            #expect(garbage.error?.phase == .file)
            #expect(server.requests.isEmpty, "nothing was sent")
        }
    }

    @Test func resumeDataWhosePartialFileIsGoneIsInvalid() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            Self.droppingServer(server, cut: 200_000)
            let first = try Self.interrupted(manager, server)
            let resumeData = try #require(first.resumeData)
            for name in directoryEntries(scratch) { try FileManager.default.removeItem(atPath: scratch.path + "/" + name) }
            let second = try Self.resume(manager, resumeData)
            #expect(second.error?.code == .invalidResumeData)
            #expect(server.requests.count == 1, "the resumed task sent nothing")
        }
    }

    @Test func aPartialResponseAtTheWrongOffsetIsInvalidResumeData() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            Self.droppingServer(server, cut: 200_000, wrongStart: true)
            let first = try Self.interrupted(manager, server)
            let resumeData = try #require(first.resumeData)
            let second = try Self.resume(manager, resumeData)
            let error = try #require(second.error)
            #expect(error.code == .invalidResumeData)
            #expect(error.response?.statusCode == 206)
            #expect(second.fileURL == nil)
            #expect(server.requests.count == 2)
        }
    }
}
