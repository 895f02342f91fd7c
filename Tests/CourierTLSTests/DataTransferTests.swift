import CourierCore
import CourierTLS
import Testing

@Suite("Application data and closing")
struct DataTransferTests {
    /// A completed link between the test root-trusting client and the valid server.
    static func connected(feeding: Feeding = .whole, serverMaximum: TLSVersion? = nil) throws -> Link {
        let link = try Link(client: Contexts.client(), hostname: "localhost",
                            server: Contexts.server { $0.maximumVersion = serverMaximum }, feeding: feeding)
        link.handshake()
        guard link.bothComplete else {
            throw TLSError(.handshakeFailed, message: "setup: \(String(describing: link.clientError)) \(String(describing: link.serverError))")
        }
        return link
    }

    @Test("5 MiB round trip in both directions", arguments: [
        Feeding.whole, .random(seed: 1, maxPiece: 70_000), .random(seed: 2, maxPiece: 1_000), .random(seed: 3, maxPiece: 17),
    ])
    func largeRoundTrip(feeding: Feeding) throws {
        let link = try Self.connected(feeding: feeding)
        let request = payload(count: 5 * 1024 * 1024, seed: 11)
        let response = payload(count: 5 * 1024 * 1024 + 3, seed: 12)
        let atServer = try link.send(request, from: link.client, to: link.server)
        #expect(atServer.count == request.count)
        #expect(atServer == request)
        let atClient = try link.send(response, from: link.server, to: link.client)
        #expect(atClient.count == response.count)
        #expect(atClient == response)
    }

    @Test("handshake fed one byte at a time, then data in random pieces", arguments: [TLSVersion.tls1_2, .tls1_3])
    func bytewiseHandshakeThenRandomData(version: TLSVersion) throws {
        let link = try Self.connected(feeding: .bytewise, serverMaximum: version)
        #expect(link.client.connectionInfo?.negotiatedVersion == version)
        // Small messages bytewise, then a larger one in random pieces.
        for message in ["GET / HTTP/1.1\r\n\r\n", "x", ""] {
            #expect(try link.send(Array(message.utf8), from: link.client, to: link.server) == Array(message.utf8))
        }
        let body = payload(count: 300_000, seed: 5)
        let randomLink = try Self.connected(feeding: .random(seed: 99, maxPiece: 4096), serverMaximum: version)
        #expect(try randomLink.send(body, from: randomLink.server, to: randomLink.client) == body)
    }

    @Test("a read decrypts many records into one call, bounded by maxBytes")
    func readsInLargePieces() throws {
        let link = try Self.connected()
        let body = payload(count: 1 << 20)
        try link.server.writePlaintext(ByteBuffer(bytes: body))
        var ciphertext = ByteBuffer()
        link.server.drainCiphertext(into: &ciphertext)
        link.client.feedCiphertext(ciphertext)
        var plaintext = ByteBuffer()
        // A TLS record carries at most 16 KiB: 64 KiB in one call means several records per read.
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 64 * 1024) == .bytes(64 * 1024))
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 1000) == .bytes(1000))
        try readAvailable(link.client, into: &plaintext)
        #expect(plaintext.readableBytesArray() == body)
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 10) == .wantMoreCiphertext)
    }

    @Test("an idle read returns wantMoreCiphertext without growing the buffer")
    func idleRead() throws {
        let link = try Self.connected()
        var buffer = ByteBuffer()
        try readAvailable(link.client, into: &buffer)  // session tickets, if any
        let empty = ByteBuffer()
        buffer = empty
        #expect(try link.client.readPlaintext(into: &buffer, maxBytes: 1 << 20) == .wantMoreCiphertext)
        #expect(buffer.capacity == 0)
    }

    @Test("close_notify ends the stream cleanly: bytes first, then .closed, on every later read")
    func cleanClose() throws {
        let link = try Self.connected()
        try link.server.writePlaintext(ByteBuffer(string: "last words"))
        link.server.close()
        #expect(throws: TLSError.self) { try link.server.writePlaintext(ByteBuffer(string: "more")) }
        var ciphertext = ByteBuffer()
        link.server.drainCiphertext(into: &ciphertext)
        link.client.feedCiphertext(ciphertext)
        link.client.feedEOF()  // the FIN after close_notify does not turn a clean close into truncation
        var plaintext = ByteBuffer()
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) == .bytes(10))
        #expect(plaintext == ByteBuffer(string: "last words"))
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) == .closed)
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) == .closed)
        #expect(link.client.isClosedByPeer)
        // The client answers with its own close_notify.
        link.client.close()
        #expect(link.client.hasPendingCiphertext)
        link.move(from: link.client, to: link.server)
        #expect(try readAvailable(link.server, into: &plaintext) == .closed)
    }

    @Test("EOF without close_notify after the handshake is unexpectedEOF, after the bytes that did arrive")
    func truncation() throws {
        let link = try Self.connected()
        try link.server.writePlaintext(ByteBuffer(string: "partial"))
        link.move(from: link.server, to: link.client)
        link.client.feedEOF()
        var plaintext = ByteBuffer()
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) == .bytes(7))
        let error = #expect(throws: TLSError.self) { try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) }
        #expect(error?.reason == .unexpectedEOF, "\(String(describing: error))")
        // The engine stays failed with the same error.
        #expect(throws: error!) { try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) }
        #expect(throws: error!) { try link.client.writePlaintext(ByteBuffer(string: "x")) }
    }

    @Test("EOF in the middle of a record is unexpectedEOF")
    func truncatedRecord() throws {
        let link = try Self.connected()
        var plaintext = ByteBuffer()
        try readAvailable(link.client, into: &plaintext)  // consume session tickets
        try link.server.writePlaintext(ByteBuffer(string: "a record that will be cut"))
        var ciphertext = ByteBuffer()
        link.server.drainCiphertext(into: &ciphertext)
        link.client.feedCiphertext(ciphertext.slice(count: ciphertext.readableBytes - 5))
        #expect(try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) == .wantMoreCiphertext)
        link.client.feedEOF()
        let error = #expect(throws: TLSError.self) { try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) }
        #expect(error?.reason == .unexpectedEOF)
    }

    @Test("EOF during the handshake is peerClosedDuringHandshake, on either side")
    func eofDuringHandshake() throws {
        let client = try TLSEngine(context: Contexts.client(), serverHostname: "localhost")
        #expect(try client.handshake() == .inProgress)
        client.feedEOF()
        let error = #expect(throws: TLSError.self) { try client.handshake() }
        #expect(error?.reason == .peerClosedDuringHandshake, "\(String(describing: error))")

        // A server that got half a ClientHello.
        let client2 = try TLSEngine(context: Contexts.client(), serverHostname: "localhost")
        _ = try client2.handshake()
        var hello = ByteBuffer()
        client2.drainCiphertext(into: &hello)
        let server = try TLSEngine(serverContext: Contexts.server())
        server.feedCiphertext(hello.slice(count: hello.readableBytes / 2))
        #expect(try server.handshake() == .inProgress)
        server.feedEOF()
        let serverError = #expect(throws: TLSError.self) { try server.handshake() }
        #expect(serverError?.reason == .peerClosedDuringHandshake, "\(String(describing: serverError))")
    }

    @Test("a tampered record is a protocol error")
    func tamperedRecord() throws {
        let link = try Self.connected()
        var plaintext = ByteBuffer()
        try readAvailable(link.client, into: &plaintext)
        try link.server.writePlaintext(ByteBuffer(string: "integrity"))
        var ciphertext = ByteBuffer()
        link.server.drainCiphertext(into: &ciphertext)
        var bytes = ciphertext.readableBytesArray()
        bytes[bytes.count - 1] ^= 0x01  // flips a bit of the AEAD tag
        link.client.feedCiphertext(ByteBuffer(bytes: bytes))
        let error = #expect(throws: TLSError.self) { try link.client.readPlaintext(into: &plaintext, maxBytes: 1024) }
        #expect(error?.reason == .protocolError, "\(String(describing: error))")
        // The client's bad_record_mac alert (20) is waiting to be sent.
        #expect(link.client.hasPendingCiphertext)
        link.move(from: link.client, to: link.server)
        let serverError = #expect(throws: TLSError.self) { try readAvailable(link.server, into: &plaintext) }
        #expect(serverError?.peerAlert == 20, "\(String(describing: serverError))")
    }

    @Test("closing before the handshake completes queues nothing and blocks writes")
    func closeBeforeHandshake() throws {
        let client = try TLSEngine(context: Contexts.client(), serverHostname: "localhost")
        client.close()
        #expect(!client.hasPendingCiphertext)
    }
}
