#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// Creates a temporary file holding `bytes` and returns its path (the caller removes it).
func makeTemporaryFile(_ bytes: [UInt8]) throws -> String {
    var template = Array((ScratchDirectory.base + "/courier-body-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw TestFailure("mkstemp failed: errno \(errno)") }
    defer { close(fd) }
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        guard n > 0 else { throw TestFailure("write failed: errno \(errno)") }
        offset += n
    }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A stream of `count` bytes of `pattern(i)` in pieces of `pieceSize`.
struct PatternStream: HTTPClientBodyStream {
    var remaining: Int
    var pieceSize: Int
    var produced = 0

    init(count: Int, pieceSize: Int = 16 * 1024) {
        self.remaining = count
        self.pieceSize = pieceSize
    }

    static func byte(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: i &* 31 &+ i >> 11) }
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map(byte) }

    mutating func next() throws -> ByteBuffer? {
        guard remaining > 0 else { return nil }
        let n = min(pieceSize, remaining)
        var buffer = ByteBuffer(capacity: n)
        buffer.writeBytes((produced..<produced + n).map(Self.byte))
        produced += n
        remaining -= n
        return buffer
    }
}

/// Request bodies of every kind (RFC 9112 §6), `Expect: 100-continue` (RFC 9110 §10.1.1) and
/// an early final response while the body is still going out (RFC 9112 §9.5).
@Suite(.serialized) struct RequestBodyIntegrationTests {
    static func echoServer() throws -> ScriptedServer {
        let server = try ScriptedServer()
        server.route("/upload") { request, connection in
            try connection.respond(body: "\(request.body.count)")
        }
        return server
    }

    static func post(_ url: String, _ body: HTTPClientRequestBody) throws -> HTTPClientRequest {
        try HTTPClientRequest(method: .POST, url: url, body: body)
    }

    @Test func bytesBodyWithContentLength() throws {
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let result = run(client, try Self.post("\(server.baseURL)/upload", .string("hello body")))
            #expect(result.bodyString == "10")
            let request = try #require(server.requests.first)
            #expect(request.header("Content-Length") == "10")
            #expect(!request.wasChunked)
            #expect(request.bodyString == "hello body")
            #expect(result.events.contains(.bodySent(10)))
        }
    }

    /// Far more than a socket takes in one send (`tcp_wmem` allows at most 4 MiB): the first
    /// write goes straight from the buffer, the socket takes part of it, and the rest is queued
    /// and written as the socket drains, every byte once and in order.
    @Test func aBodyLargerThanTheSocketTakesIsWrittenAsItDrains() throws {
        let content = PatternStream.bytes(24 << 20)
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let result = run(client, try Self.post("\(server.baseURL)/upload", .bytes(ByteBuffer(bytes: content))), seconds: 60)
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "\(content.count)")
            let request = try #require(server.requests.first)
            #expect(request.body == content)
            let lastSent = result.events.compactMap { if case .bodySent(let n) = $0 { n } else { nil } }.last
            #expect(lastSent == Int64(content.count))
        }
    }

    @Test func fileBody() throws {
        let content = PatternStream.bytes(3 << 20 + 123)
        let path = try makeTemporaryFile(content)
        defer { unlink(path) }
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let result = run(client, try Self.post("\(server.baseURL)/upload", .file(path: path)))
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.bodyString == "\(content.count)")
            let request = try #require(server.requests.first)
            #expect(request.header("Content-Length") == "\(content.count)")
            #expect(request.body == content)
            // The last progress report counts every body byte.
            let lastSent = result.events.compactMap { if case .bodySent(let n) = $0 { n } else { nil } }.last
            #expect(lastSent == Int64(content.count))
        }
    }

    @Test func missingFileFailsBeforeSending() throws {
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let path = ScratchDirectory.base + "/courier-no-such-file-\(getpid())"
            let result = run(client, try Self.post("\(server.baseURL)/upload", .file(path: path)))
            #expect(result.error?.code == .invalidRequest, "\(String(describing: result.error))")
            #expect(server.requests.isEmpty)
        }
    }

    @Test func streamWithKnownLength() throws {
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let count = 200_000
            let result = run(client, try Self.post("\(server.baseURL)/upload", .stream(length: Int64(count)) { PatternStream(count: count) }))
            #expect(result.bodyString == "\(count)")
            let request = try #require(server.requests.first)
            #expect(request.header("Content-Length") == "\(count)")
            #expect(!request.wasChunked)
            #expect(request.body == PatternStream.bytes(count))
        }
    }

    @Test func chunkedStream() throws {
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let count = 100_001
            let result = run(client, try Self.post("\(server.baseURL)/upload", .stream(length: nil) { PatternStream(count: count, pieceSize: 4096) }))
            #expect(result.bodyString == "\(count)")
            let request = try #require(server.requests.first)
            #expect(request.wasChunked)
            #expect(request.header("Content-Length") == nil)
            #expect(request.header("Transfer-Encoding") == "chunked")
            #expect(request.body == PatternStream.bytes(count))
            // Progress counts payload bytes, not chunk framing.
            let lastSent = result.events.compactMap { if case .bodySent(let n) = $0 { n } else { nil } }.last
            #expect(lastSent == Int64(count))
        }
    }

    @Test func streamShorterThanDeclaredLengthFails() throws {
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let result = run(client, try Self.post("\(server.baseURL)/upload", .stream(length: 1000) { PatternStream(count: 600) }))
            #expect(result.error?.code == .bodyLengthMismatch, "\(String(describing: result.error))")
            #expect(result.error?.phase == .send)
            #expect(result.head == nil)
            // The server never saw a complete request.
            #expect(server.waitForAllConnectionsClosed(timeout: .seconds(5)))
            #expect(server.requests.isEmpty)
        }
    }

    @Test func streamLongerThanDeclaredLengthFails() throws {
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let result = run(client, try Self.post("\(server.baseURL)/upload", .stream(length: 1000) { PatternStream(count: 1500, pieceSize: 700) }))
            #expect(result.error?.code == .bodyLengthMismatch, "\(String(describing: result.error))")
        }
    }

    // MARK: Expect: 100-continue

    static func expectingRequest(_ url: String, _ body: String = "continued body") throws -> HTTPClientRequest {
        var request = try post(url, .string(body))
        request.expectContinue = true
        return request
    }

    @Test func continueReleasesTheBody() throws {
        // The echo server reads bodies automatically, which sends 100 Continue.
        try withClientAndServer(serving: Self.echoServer()) { client, server in
            let result = run(client, try Self.expectingRequest("\(server.baseURL)/upload"))
            #expect(result.bodyString == "14")
            let request = try #require(server.requests.first)
            #expect(request.header("Expect") == "100-continue")
            #expect(request.bodyString == "continued body")
            #expect(result.events.first == .headSent)
            #expect(result.events.contains(.bodySent(14)))
            // The interim 100 is not a response for the delegate.
            #expect(result.events.filter { if case .head = $0 { true } else { false } } == [.head(200)])
        }
    }

    @Test func expectationFailedSkipsTheBody() throws {
        try withClientAndServer { client, server in
            server.route("/upload", body: .manual) { _, connection in
                // A final answer without reading the body; the server closes afterwards.
                try connection.respond(status: 417, body: "no thanks")
            }
            let start = ContinuousClock.now
            let result = run(client, try Self.expectingRequest("\(server.baseURL)/upload"))
            #expect(result.head?.status == 417)
            #expect(result.bodyString == "no thanks")
            #expect(!result.events.contains { if case .bodySent = $0 { true } else { false } })
            // Answered at once, not after the continue timeout.
            #expect(ContinuousClock.now - start < .milliseconds(900))
            // The body was never read, so the connection is not reused.
            let next = run(client, try Self.expectingRequest("\(server.baseURL)/upload"))
            #expect(next.head?.status == 417)
            #expect(next.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
        }
    }

    @Test func ignoredExpectationSendsTheBodyAfterTheTimeout() throws {
        try withClientAndServer { client, server in
            server.route("/upload", body: .manual) { _, connection in
                // No 100 Continue: just wait for the body (the client sends it after 1 s).
                let body = try connection.readRequestBody()
                try connection.respond(body: "got \(body.count)")
            }
            let start = ContinuousClock.now
            let result = run(client, try Self.expectingRequest("\(server.baseURL)/upload"))
            #expect(result.bodyString == "got 14", "\(String(describing: result.error))")
            #expect(ContinuousClock.now - start >= .milliseconds(900))
            #expect(server.requests.first?.bodyString == "continued body")
        }
    }

    // MARK: Early response

    @Test func earlyResponseWhileStreamingEndsTheBody() throws {
        try withClientAndServer { client, server in
            server.route("/upload", body: .manual) { _, connection in
                try connection.respond(status: 413, body: "too large")
            }
            server.route("/fine") { _, connection in try connection.respond(body: "fine") }
            // Far more than socket buffers hold: the body is still going out when the 413 comes.
            let count = 256 << 20
            let result = run(client, try Self.post("\(server.baseURL)/upload", .stream(length: Int64(count)) { PatternStream(count: count, pieceSize: 64 * 1024) }))
            #expect(result.head?.status == 413, "\(String(describing: result.error))")
            #expect(result.bodyString == "too large")
            #expect(result.error == nil)
            let sent: Int64 = result.events.compactMap { if case .bodySent(let n) = $0 { n } else { nil } }.last ?? 0
            #expect(sent < Int64(count))
            // The connection closed: the next request needs a new one.
            let next = run(client, try get("\(server.baseURL)/fine"))
            #expect(next.bodyString == "fine")
            #expect(next.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
        }
    }
}
