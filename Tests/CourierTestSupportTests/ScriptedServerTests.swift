#if canImport(Glibc)
import Glibc
#endif
import CourierHTTP1
import CourierTestSupport
import Testing

extension SupportTests {
    @Test func routeAnswersAndUnknownPathIs404() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/hello") { request, connection in
            try connection.respond(status: 200, headers: [("X-Method", request.method)], body: "hi \(request.path)")
        }
        let client = try RawClient(port: server.port)
        let response = try client.get("/hello?x=1", extraHeaders: "X-Test: yes\r\n")
        #expect(response.status == 200)
        #expect(response.bodyString == "hi /hello")
        #expect(response.header("X-Method") == "GET")
        #expect(response.header("Content-Length") == "9")
        let missing = try client.get("/nope")
        #expect(missing.status == 404)

        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].method == "GET")
        #expect(requests[0].target == "/hello?x=1")
        #expect(requests[0].version == "HTTP/1.1")
        #expect(requests[0].header("x-test") == "yes")
        #expect(requests[0].headers.map(\.name) == ["Host", "X-Test"])
        #expect(requests[1].path == "/nope")
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/n") { request, connection in
            try connection.respond(body: "\(request.connectionID).\(request.indexOnConnection)")
        }
        let first = try RawClient(port: server.port)
        #expect(try first.get("/n").bodyString == "0.0")
        #expect(try first.get("/n").bodyString == "0.1")
        let second = try RawClient(port: server.port)
        #expect(try second.get("/n").bodyString == "1.0")

        let requests = server.requests
        #expect(requests.map(\.connectionID) == [0, 0, 1])
        #expect(requests.map(\.indexOnConnection) == [0, 1, 0])
        #expect(server.connectionsAccepted == 2)
    }

    @Test func connectionCloseRequestClosesAfterResponse() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/") { _, connection in try connection.respond(body: "bye") }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let (bytes, end) = client.readToEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        #expect(text.hasSuffix("\r\n\r\nbye"))
        #expect(end == .cleanEOF)
        #expect(server.waitForAllConnectionsClosed())
    }

    @Test func chunkedRequestBodyIsDecoded() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/upload") { request, connection in
            try connection.respond(body: request.body)
        }
        let client = try RawClient(port: server.port)
        try client.send(
            "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Sum: 11\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.bodyString == "hello world")
        let request = try #require(server.requests.first)
        #expect(request.wasChunked)
        #expect(request.bodyString == "hello world")
        #expect(request.trailers.map(\.name) == ["X-Sum"])
        #expect(request.trailers.first?.value == "11")
    }

    @Test func expectContinueSendsContinueThenReadsBody() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/echo") { request, connection in
            try connection.respond(body: request.body)
        }
        let client = try RawClient(port: server.port)
        try client.send("PUT /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        // The body has not been sent: only the interim response can arrive now.
        let interim = try client.read(count: 25)
        #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        try client.send("abcde")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyString == "abcde")
        #expect(server.requests.first?.bodyString == "abcde")
    }

    @Test func manualBodyRouteCanRefuseWithoutContinue() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/guarded", body: .manual) { request, connection in
            #expect(connection.hasPendingRequestBody)
            if request.header("Authorization") == nil {
                try connection.respond(status: 401, body: "no")
            } else {
                try connection.sendContinue()
                let body = try connection.readRequestBody()
                try connection.respond(body: body)
            }
        }
        let refused = try RawClient(port: server.port)
        try refused.send("POST /guarded HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        let response = try refused.readResponse()
        #expect(response.informational.isEmpty)
        #expect(response.status == 401)
        #expect(response.header("Connection") == "close")

        let allowed = try RawClient(port: server.port)
        try allowed.send("POST /guarded HTTP/1.1\r\nHost: t\r\nAuthorization: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        let interim = try allowed.read(count: 25)
        #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        try allowed.send("xyz")
        #expect(try allowed.readResponse().bodyString == "xyz")
        #expect(server.requests.map(\.bodyString) == ["", "xyz"])
    }

    @Test func dripDeliversEveryByte() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        server.route("/drip") { _, connection in
            try connection.send("HTTP/1.1 200 OK\r\nContent-Length: \(payload.count)\r\n\r\n")
            try connection.drip(payload, every: 1, bytesPerStep: 7)
        }
        let client = try RawClient(port: server.port)
        let response = try client.get("/drip")
        #expect(response.body == payload)
    }

    @Test func resetGivesTheClientECONNRESET() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/rst") { _, connection in
            try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
            connection.reset()
        }
        let client = try RawClient(port: server.port)
        try client.send("GET /rst HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = client.readToEnd()
        #expect(client.lastEnd == .error(ECONNRESET))
    }

    @Test func closeMidBodyEndsTheStreamEarly() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/cut") { _, connection in
            try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            connection.close()
            #expect(throws: ServerConnectionError.self) { try connection.send("more") }
        }
        let client = try RawClient(port: server.port)
        try client.send("GET /cut HTTP/1.1\r\nHost: t\r\n\r\n")
        let (bytes, end) = client.readToEnd()
        #expect(end == .cleanEOF)
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("\r\n\r\n0123456789"))
        // The response parser agrees the message was cut short.
        let again = try RawClient(port: server.port)
        try again.send("GET /cut HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(throws: HTTPParserError.self) { try again.readResponse() }
    }

    @Test func chunkedResponsesAndHeadResponses() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/chunks") { _, connection in
            try connection.sendChunked(chunks: [Array("ab".utf8), Array("cde".utf8)], trailers: [("X-T", "1")])
        }
        server.route("/head") { _, connection in try connection.respond(body: "twelve bytes") }
        let client = try RawClient(port: server.port)
        let chunked = try client.get("/chunks")
        #expect(chunked.bodyString == "abcde")
        #expect(chunked.header("Transfer-Encoding") == "chunked")
        try client.send("HEAD /head HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readResponse(method: .HEAD)
        #expect(head.header("Content-Length") == "12")
        #expect(head.body.isEmpty)
        // The connection is still in sync after the HEAD response.
        #expect(try client.get("/head").bodyString == "twelve bytes")
    }

    @Test func twoHundredConcurrentConnectionsAreServedAndCounted() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        let gate = TestEvent()
        server.route("/wait") { request, connection in
            try connection.stall(until: gate)
            try connection.respond(body: "\(request.connectionID)")
        }
        var clients: [RawClient] = []
        for _ in 0..<200 {
            let client = try RawClient(port: server.port)
            try client.send("GET /wait HTTP/1.1\r\nHost: t\r\n\r\n")
            clients.append(client)
        }
        #expect(server.waitForRequests(200, timeout: .seconds(30)))
        #expect(server.openConnections == 200)
        #expect(server.maxConcurrentConnections == 200)
        gate.signal()
        var ids = Set<String>()
        for client in clients {
            let response = try client.readResponse()
            #expect(response.status == 200)
            ids.insert(response.bodyString)
        }
        #expect(ids.count == 200)
        clients.removeAll()
        #expect(server.waitForAllConnectionsClosed())
        #expect(server.openConnections == 0)
        #expect(server.maxConcurrentConnections == 200)
        #expect(server.connectionsAccepted == 200)
    }

    @Test func closeIdleConnectionsMakesPooledConnectionsStale() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/") { _, connection in try connection.respond(body: "ok") }
        let client = try RawClient(port: server.port)
        #expect(try client.get("/").status == 200)
        #expect(server.closeIdleConnections() == 1)
        #expect(server.openConnections == 0)
        let (bytes, end) = client.readToEnd()
        #expect(bytes.isEmpty)
        #expect(end == .cleanEOF)
        #expect(server.closeIdleConnections() == 0)
    }

    @Test func shutdownEndsStallsAndLeavesNoDescriptors() throws {
        let entered = TestEvent()
        let handlerEnded = TestEvent()
        try FileDescriptors.expectNoLeakedDescriptors {
            let server = try ScriptedServer()
            server.route("/forever") { _, connection in
                defer { handlerEnded.signal() }
                entered.signal()
                try connection.stall(until: TestEvent(), timeout: .seconds(600))
            }
            server.route("/ok") { _, connection in try connection.respond(body: "ok") }
            let idle = try RawClient(port: server.port)
            #expect(try idle.get("/ok").status == 200)
            let stalled = try RawClient(port: server.port)
            try stalled.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(entered.wait(timeout: .seconds(10)))
            let silent = try RawClient(port: server.port)  // accepted, never sends a byte
            _ = silent
            #expect(server.waitForConnections(3))

            let start = ContinuousClock.now
            server.shutdown()
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(handlerEnded.isSignaled)
            #expect(server.openConnections == 0)
            #expect(idle.readToEnd().0.isEmpty)
            // Shutdown is idempotent.
            server.shutdown()
        }
    }

    @Test func descriptorLeakIsReported() throws {
        var leaked: Int32 = -1
        #expect(throws: DescriptorLeak.self) {
            try FileDescriptors.expectNoLeakedDescriptors(settle: .milliseconds(50)) {
                leaked = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            }
        }
        #expect(leaked >= 0)
        close(leaked)
    }

    @Test func pausedAcceptingServesOnlyAfterResume() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/") { _, connection in try connection.respond(body: "late") }
        server.pauseAccepting()
        let client = try RawClient(port: server.port)  // the kernel completes the handshake
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(!server.waitForConnections(1, timeout: .milliseconds(300)))
        server.resumeAccepting()
        #expect(try client.readResponse().bodyString == "late")
        #expect(server.connectionsAccepted == 1)
    }

    @Test func servesOverIPv6AndUnixSockets() throws {
        let v6 = try ScriptedServer(address: .loopbackIPv6)
        defer { v6.shutdown() }
        v6.route("/") { _, connection in try connection.respond(body: "six") }
        #expect(v6.baseURL == "http://[::1]:\(v6.port)")
        #expect(try RawClient(port: v6.port, host: "::1").get("/").bodyString == "six")

        let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "."
        let path = "\(directory)/courier-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let unix = try ScriptedServer(address: .unix(path))
        unix.route("/") { _, connection in try connection.respond(body: "unix") }
        #expect(try RawClient(unixPath: path).get("/").bodyString == "unix")
        #expect(access(path, F_OK) == 0)
        unix.shutdown()
        #expect(access(path, F_OK) != 0)
    }

    @Test func onAcceptHookRunsFirstAndCanRefuse() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.onAccept { connection in
            if connection.id == 0 { connection.reset() }
        }
        server.route("/") { _, connection in try connection.respond(body: "second") }
        let refused = try RawClient(port: server.port)
        _ = refused.readToEnd()
        #expect(refused.lastEnd == .error(ECONNRESET) || refused.lastEnd == .cleanEOF)
        #expect(try RawClient(port: server.port).get("/").bodyString == "second")
    }
}

extension SupportTests {
    /// The recipe for a loopback connect timeout: a tiny backlog and no accepting.
    @Test func fullBacklogMakesConnectHang() throws {
        let server = try ScriptedServer(backlog: 0)
        defer { server.shutdown() }
        server.route("/") { _, connection in try connection.respond(body: "ok") }
        server.pauseAccepting()
        var hung = false
        // The accept queue holds backlog + 1 connections; the next SYN is dropped.
        for _ in 0..<4 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue), 0)
            defer { close(fd) }
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(server.port).bigEndian
            sin.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            let rc = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if rc == 0 { continue }
            #expect(errno == EINPROGRESS)
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&pfd, 1, 300) == 0 {
                hung = true
                break
            }
        }
        #expect(hung)
        server.resumeAccepting()
        // The queued connections are accepted (and see their peers gone) before ours arrives.
        #expect(server.waitForConnections(1))
        let client = try RawClient(port: server.port)
        #expect(try client.get("/").bodyString == "ok")
    }
}
