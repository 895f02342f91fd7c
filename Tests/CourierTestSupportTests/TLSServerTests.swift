#if canImport(Glibc)
import Glibc
#endif
import CourierTestSupport
import Testing

extension SupportTests {
    @Test func tlsHandshakeWithValidChain() throws {
        let server = try ScriptedServer(tls: ServerTLS(certificateChain: "valid-chain.pem", privateKey: "valid.key"))
        defer { server.shutdown() }
        #expect(server.baseURL == "https://localhost:\(server.port)")
        server.route("/secure") { request, connection in
            try connection.respond(body: "\(connection.isTLS) \(request.tlsServerName ?? "-") \(connection.tlsVersion ?? "-")")
        }
        let client = try RawClient(port: server.port)
        try client.startTLS(host: "localhost", ca: "ca.pem")
        let response = try client.get("/secure")
        #expect(response.bodyString == "true localhost TLSv1.3")
        #expect(server.tlsHandshakesCompleted == 1)
        #expect(server.tlsHandshakeFailures == 0)
    }

    @Test func tlsMaximumVersionIsHonoured() throws {
        let server = try ScriptedServer(tls: ServerTLS(maximumVersion: .tls1_2))
        defer { server.shutdown() }
        server.route("/") { _, connection in try connection.respond(body: connection.tlsVersion ?? "-") }
        let client = try RawClient(port: server.port)
        try client.startTLS()
        #expect(try client.get("/").bodyString == "TLSv1.2")
    }

    @Test func tlsClientRejectsAnUntrustedChain() throws {
        let server = try ScriptedServer(tls: ServerTLS(certificateChain: "untrusted-chain.pem", privateKey: "untrusted.key"))
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        #expect(throws: RawClientError.self) { try client.startTLS() }
        client.close()
        #expect(server.waitForAllConnectionsClosed())
        #expect(server.tlsHandshakeFailures == 1)
        #expect(server.requests.isEmpty)
    }

    @Test func mutualTLSRejectsClientWithoutCertificate() throws {
        let server = try ScriptedServer(tls: ServerTLS(clientCA: "ca.pem"))
        defer { server.shutdown() }
        server.route("/") { _, connection in try connection.respond(body: connection.peerCertificateSubject ?? "none") }

        let anonymous = try RawClient(port: server.port)
        // TLS 1.3: the client finishes its side of the handshake before the server has judged
        // the (missing) certificate, so the refusal may show up on the first read instead.
        let failed: Bool
        do {
            try anonymous.startTLS()
            let response = try? anonymous.get("/")
            failed = response == nil
        } catch {
            failed = true
        }
        #expect(failed)
        #expect(server.waitForAllConnectionsClosed())
        #expect(server.tlsHandshakeFailures == 1)
        #expect(server.requests.isEmpty)

        let authenticated = try RawClient(port: server.port)
        try authenticated.startTLS(certificate: "client.pem", key: "client.key")
        let response = try authenticated.get("/")
        #expect(response.status == 200)
        #expect(response.bodyString.contains("CN="))
        #expect(server.requests.count == 1)
    }

    @Test func tlsCloseWithAndWithoutCloseNotify() throws {
        let server = try ScriptedServer(tls: ServerTLS())
        defer { server.shutdown() }
        server.route("/clean") { _, connection in
            try connection.send("HTTP/1.1 200 OK\r\n\r\nuntil close")
            connection.close()
        }
        server.route("/truncated") { _, connection in
            try connection.send("HTTP/1.1 200 OK\r\n\r\nuntil close")
            connection.close(sendCloseNotify: false)
        }
        let clean = try RawClient(port: server.port)
        try clean.startTLS()
        try clean.send("GET /clean HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let (cleanBytes, cleanEnd) = clean.readToEnd()
        #expect(String(decoding: cleanBytes, as: UTF8.self).hasSuffix("until close"))
        #expect(cleanEnd == .closeNotify)

        let cut = try RawClient(port: server.port)
        try cut.startTLS()
        try cut.send("GET /truncated HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let (cutBytes, cutEnd) = cut.readToEnd()
        #expect(String(decoding: cutBytes, as: UTF8.self).hasSuffix("until close"))
        #expect(cutEnd == .truncated)
    }

    @Test func onAcceptStallHoldsTheHandshakeUntilReleased() throws {
        let server = try ScriptedServer(tls: ServerTLS())
        defer { server.shutdown() }
        let release = TestEvent()
        server.onAccept { connection in try connection.stall(until: release) }
        server.route("/") { _, connection in try connection.respond(body: "ok") }
        let client = try RawClient(port: server.port, receiveTimeoutMilliseconds: 200)
        // No ServerHello arrives while the hook stalls: the handshake times out on the client.
        #expect(throws: RawClientError.self) { try client.startTLS() }
        #expect(server.tlsHandshakesCompleted == 0)
        release.signal()
        let next = try RawClient(port: server.port)
        try next.startTLS()
        #expect(try next.get("/").bodyString == "ok")
    }

    @Test func certificatesAreFoundFromTheSourceTree() {
        for name in ["ca.pem", "valid-chain.pem", "valid.key", "client.pem", "expired-chain.pem"] {
            #expect(access(TestCertificates.path(name), R_OK) == 0, "\(name)")
        }
        #expect(TestCertificates.path("/abs/x.pem") == "/abs/x.pem")
    }
}
