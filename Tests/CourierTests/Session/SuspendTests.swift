import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Suspend stops reading from the socket: the server is held back by TCP flow control and
/// nothing piles up in the client.
@Suite(.serialized) struct SuspendTests {
    /// A server route that streams `total` bytes in 64 KiB pieces and counts what it has sent.
    static func streaming(_ server: ScriptedServer, total: Int, sent: Counter) {
        let piece = patternBytes(64 * 1024)
        server.route("/stream") { _, connection in
            try connection.sendHead(headers: [("Content-Length", "\(total)")])
            var remaining = total
            while remaining > 0 {
                let count = min(piece.count, remaining)
                try connection.send(Array(piece[0..<count]))
                remaining -= count
                sent.add(count)
            }
        }
    }

    /// Waits until `read()` has not changed for `quiet` (the sender is blocked by flow control).
    static func waitUntilStable(_ read: () -> Int, quiet: Duration = .milliseconds(300), timeout: Duration = .seconds(20)) -> Int {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        var last = read()
        var since = clock.now
        while clock.now < end {
            _ = TestEvent().wait(timeout: .milliseconds(20))
            let now = read()
            if now != last { last = now; since = clock.now } else if clock.now - since >= quiet { return now }
        }
        return last
    }

    @Test func aSuspendedDownloadStopsReadingAndResumesToAnIdenticalFile() throws {
        let total = 64 * 1024 * 1024
        try withSession { manager, server in
            let sent = Counter()
            Self.streaming(server, total: total, sent: sent)
            let firstBytes = TestEvent()
            let outcome = Outcome<DownloadResponse>()
            let task = manager.downloadTask(with: Request(url: url(server, "/stream")), progress: { snapshot in
                if snapshot.completedUnitCount > 0 { firstBytes.signal() }
            }) { outcome.set($0) }
            task.resume()
            #expect(firstBytes.wait())
            task.suspend()
            #expect(task.state == .suspended)
            #if !COURIER_SANITIZED
            let residentAtSuspend = ProcessMemory.resident
            #endif
            let serverStalledAt = Self.waitUntilStable { sent.value }
            let receivedWhileSuspended = task.countOfBytesReceived
            #expect(serverStalledAt < total, "the server is held back while the task is suspended")
            // What the client took in is what the server sent minus what sits in the socket
            // buffers; nothing grows while suspended.
            let later = Self.waitUntilStable { Int(task.countOfBytesReceived) }
            #expect(Int64(later) == receivedWhileSuspended, "no bytes are read while suspended")
            // The server still has most of the 64 MiB to send; none of it piles up here.
            #if !COURIER_SANITIZED  // a sanitizer's shadow memory grows on its own (see ManyTasksTests)
            let growth = ProcessMemory.resident - residentAtSuspend
            #expect(growth < 4 * 1024 * 1024, "RSS grew by \(growth / 1024) KiB while suspended")
            #endif
            task.resume()
            let response = try #require(outcome.wait(seconds: 60))
            let fileURL = try #require(response.fileURL)
            defer { try? FileManager.default.removeItem(at: fileURL) }
            #expect(FileSize(fileURL) == Int64(total))
            #expect(sent.value == total)
        }
    }

    @Test func suspendAndResumeArePublishedAsEvents() throws {
        try withSession { manager, server in
            let sent = Counter()
            Self.streaming(server, total: 8 * 1024 * 1024, sent: sent)
            let events = Recorder<String>()
            let completed = TestEvent()
            manager.addObserver { event in
                switch event {
                case .taskResumed: events.append("resumed")
                case .taskSuspended: events.append("suspended")
                case .taskCompleted: events.append("completed"); completed.signal()
                case .sessionInvalidated: events.append("invalidated")
                }
            }
            let firstBytes = TestEvent()
            let task = manager.downloadTask(with: Request(url: url(server, "/stream")), progress: { snapshot in
                if snapshot.completedUnitCount > 0 { firstBytes.signal() }
            }) { response in
                if let file = response.fileURL { try? FileManager.default.removeItem(at: file) }
            }
            task.resume()
            #expect(firstBytes.wait())
            task.downloadProgress.pause()
            #expect(task.state == .suspended)
            task.downloadProgress.resume()
            #expect(completed.wait(timeout: .seconds(30)))
            #expect(events.all == ["resumed", "suspended", "resumed", "completed"])
        }
    }
}

/// The size of a regular file, or nil.
func FileSize(_ url: URL) -> Int64? {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size]).flatMap { value -> Int64? in
        if let int = value as? Int { return Int64(int) }
        if let int = value as? Int64 { return int }
        if let int = value as? UInt64 { return Int64(int) }
        return nil
    }
}
