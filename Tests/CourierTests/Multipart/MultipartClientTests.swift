@testable import Courier
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Glibc
import Testing

typealias MultipartUploadDelegate = TransportRecorder

/// Multipart bodies sent with CourierClient's `HTTPClient` to a loopback `ScriptedServer`:
/// what the server reads is exactly the expected body, framed by Content-Length.
@Suite(.serialized) struct MultipartClientTests {
    /// A client and a server echoing the body length; no descriptor may be left open afterwards.
    static func withClientAndServer(_ body: (HTTPClient, ScriptedServer) throws -> Void) throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                var configuration = HTTPClientConfiguration()
                configuration.eventLoopThreads = 1
                let client = try HTTPClient(configuration: configuration)
                defer { client.shutdown() }
                let server = try ScriptedServer()
                defer { server.shutdown() }
                server.route("/upload") { request, connection in try connection.respond(body: "\(request.body.count)") }
                try body(client, server)
            }
        }
    }

    static func upload(_ client: HTTPClient, _ server: ScriptedServer, _ form: MultipartFormData) throws -> MultipartUploadDelegate {
        guard case .stream(let length, let makeStream) = form.makeBody() else { throw CourierError(.requestSerializationFailed) }
        let request = try HTTPClientRequest(
            method: .POST, url: "\(server.baseURL)/upload", headers: ["Content-Type": form.contentType],
            body: .stream(length: length, makeStream: makeStream))
        let delegate = MultipartUploadDelegate()
        client.execute(request, delegate: delegate)
        #expect(delegate.wait(), "the upload did not end")
        return delegate
    }

    static func expectReceived(_ server: ScriptedServer, _ expected: [UInt8], contentType: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let request = try #require(server.requests.first, sourceLocation: sourceLocation)
        #expect(request.body == expected, "the server received different bytes", sourceLocation: sourceLocation)
        #expect(request.header("Content-Length") == "\(expected.count)", sourceLocation: sourceLocation)
        #expect(!request.wasChunked, sourceLocation: sourceLocation)
        #expect(request.header("Transfer-Encoding") == nil, sourceLocation: sourceLocation)
        #expect(request.header("Content-Type") == contentType, sourceLocation: sourceLocation)
    }

    @Test func mixedFormArrivesExactlyAsTheFixture() throws {
        let expected = try MultipartFixtures.bytes("multipart-mixed.bin")
        try Self.withClientAndServer { client, server in
            let form = try MultipartFixtureTests.form(for: "multipart-mixed.bin")
            let result = try Self.upload(client, server, form)
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.status == 200)
            #expect(result.bodyString == "\(expected.count)")
            try Self.expectReceived(server, expected, contentType: "multipart/form-data; boundary=\(MultipartFixtures.boundary)")
        }
    }

    @Test func largeFilePartArrivesWhole() throws {
        let content = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let path = try makeMultipartTemporaryFile(content, suffix: "photo.jpg")
        defer { unlink(path) }
        try Self.withClientAndServer { client, server in
            let form = MultipartFormData()
            try form.appendPart(data: Data("42".utf8), name: "id")
            try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "photo")
            let fileName = URL(fileURLWithPath: path).lastPathComponent
            let b = form.boundary
            let expected = [UInt8]("--\(b)\r\nContent-Disposition: form-data; name=\"id\"\r\n\r\n42\r\n--\(b)\r\n".utf8)
                + [UInt8]("Content-Disposition: form-data; name=\"photo\"; filename=\"\(fileName)\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                + content + [UInt8]("\r\n--\(b)--\r\n".utf8)
            #expect(form.contentLength == Int64(expected.count))
            let result = try Self.upload(client, server, form)
            #expect(result.error == nil, "\(String(describing: result.error))")
            try Self.expectReceived(server, expected, contentType: form.contentType)
        }
    }

    @Test func fileThatChangedSizeFailsTheRequestInTheSendPhase() throws {
        let path = try makeMultipartTemporaryFile([UInt8](repeating: 0x61, count: 100_000))
        defer { unlink(path) }
        try Self.withClientAndServer { client, server in
            let form = try MultipartFixtures.form()
            try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "f")
            truncate(path, 50_000)
            let result = try Self.upload(client, server, form)
            let error = try #require(result.error)
            #expect(error.phase == .send)
            #expect(result.status == nil)
            // No complete request reached the server: the wrong length was never sent as a body.
            #expect(server.waitForAllConnectionsClosed(timeout: .seconds(5)))
            #expect(server.requests.isEmpty)
        }
    }

    @Test func throttledUploadHonoursTheRate() throws {
        let count = 100_000
        let rate = 200_000
        try Self.withClientAndServer { client, server in
            let form = try MultipartFixtures.form()
            try form.appendPart(data: Data((0..<count).map { UInt8(truncatingIfNeeded: $0) }), name: "blob", fileName: "b.bin", mimeType: "application/octet-stream")
            form.throttle(bytesPerSecond: rate)
            let expected = try drain(form.makeBody())
            let clock = ContinuousClock()
            let start = clock.now
            let result = try Self.upload(client, server, form)
            let elapsed = clock.now - start
            #expect(result.error == nil, "\(String(describing: result.error))")
            try Self.expectReceived(server, expected, contentType: form.contentType)
            // The bucket starts full (a quarter of a second's worth); the rest must take at least
            // (total - burst) / rate. Lower bound only, with slack for timer rounding.
            let burst = rate / 4
            let minimum = Double(expected.count - burst) / Double(rate) * 0.9
            #expect(elapsed >= .milliseconds(Int64(minimum * 1000)), "took \(elapsed), expected at least \(minimum) s")
        }
    }
}
