import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// The multipart POST (`constructingBodyWith`): parameters first as form fields, then the parts
/// the closure appends, sent with an exact Content-Length.
@Suite(.serialized) struct HTTPMultipartTests {
    /// The boundary of a `multipart/form-data; boundary=…` Content-Type (quotes removed).
    static func boundary(of contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data;"),
              let range = contentType.firstRange(of: "boundary=") else { return nil }
        var value = String(contentType[range.upperBound...])
        if let semicolon = value.firstIndex(of: ";") { value = String(value[..<semicolon]) }
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        return value
    }

    /// A multipart body written out by hand from RFC 2046 §5.1.1 and RFC 7578: each part is
    /// `--boundary CRLF`, its header lines, an empty line and the content, then CRLF; the body
    /// ends with `--boundary-- CRLF`.
    static func expectedBody(boundary: String, parts: [(headers: [String], content: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for part in parts {
            body += Array("--\(boundary)\r\n".utf8)
            for header in part.headers { body += Array("\(header)\r\n".utf8) }
            body += Array("\r\n".utf8)
            body += part.content
            body += Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return body
    }

    /// A temporary file holding `bytes`; removed by the caller.
    static func temporaryFile(_ bytes: [UInt8], name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-http-\(UUID().uuidString)-\(name)")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func parametersThenTheFileArriveExactly() throws {
        let marker = QueueMarker()
        let content = patternBytes(150_000, seed: 11)
        let file = try Self.temporaryFile(content, name: "photo.bin")
        defer { try? FileManager.default.removeItem(at: file) }
        try withHTTPSession(baseURLPath: "/v2", configure: { $0.progressInterval = 0 }, completionQueue: marker.queue) { manager, server in
            HTTPSessionFixtures.echo(server, "/v2/upload")
            let snapshots = Recorder<TaskProgress.Snapshot>()
            let outcome = Outcome<(UploadTask?, (any Sendable)?, CourierError?, Bool)>()
            let returned = manager.POST(
                "upload", parameters: ["title": "Hello world", "count": 3] as [String: any Sendable], headers: ["X-Extra": "1"],
                constructingBodyWith: { (form) throws(CourierError) in
                    try form.appendPart(fileURL: file, name: "file", fileName: "photo.bin", mimeType: "image/x-test")
                },
                progress: { snapshots.append($0) },
                success: { task, value in outcome.set((task, value, nil, marker.isCurrent)) },
                failure: { task, error in outcome.set((task, nil, error, marker.isCurrent)) })
            let (task, value, error, onQueue) = try #require(outcome.wait())
            #expect(error == nil, "\(String(describing: error))")
            #expect(onQueue)
            #expect(returned != nil && task === returned)
            let seen = try #require(server.requests.first)
            #expect(seen.method == "POST" && seen.target == "/v2/upload")
            #expect(seen.header("X-Extra") == "1")
            #expect(seen.header("User-Agent") == CourierLibrary.userAgent)
            let contentType = seen.header("Content-Type")
            let boundary = try #require(Self.boundary(of: contentType), "Content-Type: \(String(describing: contentType))")
            #expect(!boundary.isEmpty)
            let expected = Self.expectedBody(boundary: boundary, parts: [
                // Parameters first, keys sorted as AFNetworking's query pairs are.
                (["Content-Disposition: form-data; name=\"count\""], Array("3".utf8)),
                (["Content-Disposition: form-data; name=\"title\""], Array("Hello world".utf8)),
                (["Content-Disposition: form-data; name=\"file\"; filename=\"photo.bin\"", "Content-Type: image/x-test"], content),
            ])
            #expect(seen.body.count == expected.count)
            #expect(seen.body == expected, "the body differs from the hand-built one")
            #expect(!seen.wasChunked, "an exact length, not chunked")
            #expect(seen.header("Transfer-Encoding") == nil)
            #expect(seen.header("Content-Length") == String(expected.count))
            #expect(value as? JSONValue == HTTPSessionFixtures.echoed("POST", "/v2/upload", bodyLength: expected.count))
            let last = try #require(snapshots.all.last)
            #expect(last.totalUnitCount == Int64(expected.count), "upload progress total is the body length")
            #expect(last.completedUnitCount == Int64(expected.count))
            #expect(snapshots.all.allSatisfy { $0.totalUnitCount == Int64(expected.count) || $0.completedUnitCount == 0 })
        }
    }

    @Test func anErrorInTheConstructingClosureFailsWithoutATask() throws {
        let marker = QueueMarker()
        try withHTTPSession(completionQueue: marker.queue) { manager, server in
            let missing = URL(fileURLWithPath: FileManager.default.temporaryDirectory.path + "/courier-http-missing-\(UUID().uuidString)")
            let outcome = Outcome<(UploadTask?, CourierError, Bool)>()
            let returned = manager.POST("upload", parameters: nil, constructingBodyWith: { (form) throws(CourierError) in
                try form.appendPart(fileURL: missing, name: "file")
            }, success: { _, _ in Issue.record("succeeded") }, failure: { task, error in outcome.set((task, error, marker.isCurrent)) })
            #expect(returned == nil)
            let (task, error, onQueue) = try #require(outcome.wait())
            #expect(task == nil && onQueue)
            #expect(error.code == .bodyFileUnreadable)
            #expect(server.requests.isEmpty)
        }
    }
}
