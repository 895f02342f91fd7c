import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Download tasks: where the file ends up (destination closure, options, the hook), what is
/// left behind, and the write hook's totals.
@Suite(.serialized) struct DownloadTaskTests {
    static let body = noisyBytes(300_000, seed: 11)

    static func serveFile(_ server: ScriptedServer) {
        server.route("/file") { _, connection in try connection.respond(headers: [("Content-Type", "application/octet-stream")], body: body) }
    }

    @Test func theDestinationClosureMovesTheFileCreatingDirectories() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url.appendingPathComponent("staging") }) { manager, server in
            try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("staging"), withIntermediateDirectories: true)
            Self.serveFile(server)
            let target = scratch.url.appendingPathComponent("a/b/c/file.bin")
            let seenTemporary = Outcome<(URL, Int)>()
            let response = try runDownload(manager, Request(url: url(server, "/file"))) { temporary, response in
                seenTemporary.set((temporary, response.statusCode))
                return target
            }
            #expect(response.error == nil)
            #expect(response.fileURL?.standardizedFileURL == target.standardizedFileURL)
            #expect(fileBytes(target) == Self.body, "the file holds the body")
            let (temporary, status) = try #require(seenTemporary.wait(seconds: 1))
            #expect(status == 200)
            #expect(temporary.deletingLastPathComponent().standardizedFileURL.path == scratch.url.appendingPathComponent("staging").standardizedFileURL.path,
                    "the body was written in the configured temporary directory")
            #expect(!fileExists(temporary), "the temporary file was moved")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/staging")) == [], "nothing is left behind")
        }
    }

    @Test func removePreviousFileReplacesAnExistingFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession { manager, server in
            Self.serveFile(server)
            let target = URL(fileURLWithPath: try scratch.write("existing.bin", Array("old contents".utf8)))
            let response = try runDownload(manager, Request(url: url(server, "/file")), options: [.removePreviousFile]) { _, _ in target }
            #expect(response.error == nil)
            #expect(response.fileURL?.path == target.path)
            #expect(fileBytes(target) == Self.body)
        }
    }

    @Test func movingOntoAnExistingFileWithoutRemovePreviousFileFails() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            Self.serveFile(server)
            let old = Array("old contents".utf8)
            let target = URL(fileURLWithPath: try scratch.write("existing.bin", old))
            let response = try runDownload(manager, Request(url: url(server, "/file")), options: [.createIntermediateDirectories]) { _, _ in target }
            let error = try #require(response.error)
            #expect(error.code == .fileMoveFailed)
            #expect(error.phase == .file)
            #expect(error.response?.statusCode == 200, "the error carries the response")
            #expect(response.fileURL == nil)
            #expect(fileBytes(target) == old, "the existing file is untouched")
        }
    }

    @Test func withoutADestinationTheFileStaysAtItsTemporaryLocation() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try withSession(configure: { $0.temporaryDirectory = scratch.url }) { manager, server in
            Self.serveFile(server)
            let response = try runDownload(manager, Request(url: url(server, "/file")))
            let file = try #require(response.fileURL)
            #expect(file.deletingLastPathComponent().standardizedFileURL.path == scratch.url.standardizedFileURL.path)
            #expect(fileBytes(file) == Self.body)
        }
    }

    @Test func theFinishHookOverridesTheDestinationOnTheCompletionQueue() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            Self.serveFile(server)
            let fromHook = scratch.url.appendingPathComponent("hook/chosen.bin")
            let fromClosure = scratch.url.appendingPathComponent("closure.bin")
            let hookCalls = Recorder<(URL, Bool)>()
            manager.updateHooks { hooks in
                hooks.downloadTaskDidFinishDownloading = { task, temporary in
                    hookCalls.append((temporary, marker.isCurrent && task.response?.statusCode == 200))
                    return fromHook
                }
            }
            let response = try runDownload(manager, Request(url: url(server, "/file"))) { _, _ in fromClosure }
            #expect(response.error == nil)
            #expect(response.fileURL?.path == fromHook.path)
            #expect(fileBytes(fromHook) == Self.body)
            #expect(!fileExists(fromClosure), "the hook's location wins over the closure's")
            #expect(hookCalls.count == 1)
            #expect(hookCalls.all.first?.1 == true, "the hook ran on the completion queue with the response in place")
            if let temporary = hookCalls.all.first?.0 { #expect(!fileExists(temporary)) }
        }
    }

    @Test func theWriteHookSeesTheTotals() throws {
        let marker = QueueMarker()
        try withSession(configure: { $0.progressInterval = 0 }, completionQueue: marker.queue) { manager, server in
            let big = noisyBytes(2 * 1024 * 1024, seed: 5)
            server.route("/big") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(big.count)")])
                for start in stride(from: 0, to: big.count, by: 64 * 1024) {
                    try connection.send(Array(big[start..<min(start + 64 * 1024, big.count)]))
                }
            }
            let writes = Recorder<(Int64, Int64, Int64, Bool)>()
            manager.updateHooks { hooks in
                hooks.downloadTaskDidWriteData = { _, delta, written, expected in writes.append((delta, written, expected, marker.isCurrent)) }
            }
            let progress = Recorder<TaskProgress.Snapshot>()
            let response = try runDownload(manager, Request(url: url(server, "/big")), progress: { progress.append($0) })
            let file = try #require(response.fileURL)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(fileBytes(file) == big)
            let calls = writes.all
            #expect(!calls.isEmpty)
            #expect(calls.reduce(Int64(0)) { $0 + $1.0 } == Int64(big.count), "the deltas add up to the file")
            #expect(calls.last?.1 == Int64(big.count))
            #expect(calls.allSatisfy { $0.2 == Int64(big.count) }, "the expected total is Content-Length throughout")
            #expect(calls.allSatisfy { $0.3 }, "on the completion queue")
            #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.1 < $1.1 }, "written only grows")
            #expect(progress.all.last?.completedUnitCount == Int64(big.count))
            #expect(progress.all.last?.isFinished == true)
        }
    }
}
