import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Glibc
import Testing

/// A 1 GiB download task streams to disk with bounded memory: the body never sits in memory,
/// and the write queue stops the socket reads when the disk falls behind.
@Suite(.serialized) struct LargeDownloadTests {
    static let gibibyte = 1024 * 1024 * 1024

    @Test func aOneGiBDownloadKeepsThePeakRSSGrowthUnder64MiB() throws {
        try withSession { manager, server in
            let piece = patternBytes(1024 * 1024)
            server.route("/gib") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "\(Self.gibibyte)"), ("Content-Type", "application/octet-stream")])
                for _ in 0..<(Self.gibibyte / piece.count) { try connection.send(piece) }
            }
            let outcome = Outcome<DownloadResponse>()
            #expect(ProcessMemory.resetPeak(), "the peak RSS can be reset")
            let before = ProcessMemory.resident
            manager.downloadTask(with: Request(url: url(server, "/gib"))) { outcome.set($0) }.resume()
            let response = try #require(outcome.wait(seconds: 300))
            let growth = ProcessMemory.peak - before
            let file = try #require(response.fileURL, "\(String(describing: response.error))")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(FileSize(file) == Int64(Self.gibibyte))
            // Spot-check the content: the first and the last MiB are the pattern.
            let handle = try #require(fopen(file.path, "r"))
            defer { fclose(handle) }
            var buffer = [UInt8](repeating: 0, count: piece.count)
            #expect(fread(&buffer, 1, buffer.count, handle) == buffer.count && buffer == piece)
            #expect(fseek(handle, -Int(piece.count), SEEK_END) == 0)
            #expect(fread(&buffer, 1, buffer.count, handle) == buffer.count && buffer == piece)
            print("1 GiB download: peak RSS grew by \(growth / 1024) KiB (before: \(before / 1024) KiB)")
            #if !COURIER_SANITIZED  // a sanitizer's shadow memory and quarantine grow on their own
            #expect(growth < 64 * 1024 * 1024, "peak RSS grew by \(growth / 1_048_576) MiB")
            #endif
        }
    }
}
