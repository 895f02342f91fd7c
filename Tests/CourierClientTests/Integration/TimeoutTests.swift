import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// The four timeouts, each with its typed error code, from the client configuration and as a
/// per-request override (`request.timeouts`).
@Suite(.serialized) struct TimeoutTests {
    /// Long limits everywhere, so only the one under test can fire.
    static let relaxed = HTTPClientTimeouts(connect: .seconds(10), tlsHandshake: .seconds(10), idleRead: .seconds(10), total: nil)

    // MARK: Connect

    /// A loopback listener that does not accept, with its backlog full: the kernel drops the
    /// SYNs, so the connect hangs until the connect timeout.
    @Test(arguments: [false, true]) func connectTimeout(perRequest: Bool) throws {
        try withClientAndServer(configure: { configuration in
            configuration.timeouts = Self.relaxed
            if !perRequest { configuration.timeouts.connect = .milliseconds(200) }
        }, backlog: 1) { client, server in
            server.pauseAccepting()
            guard let filler = AcceptQueueFiller(port: server.port) else {
                // Documented fallback: this kernel completes loopback connects even with a full
                // queue; the connect timeout is then covered by the Connector tests only.
                withKnownIssue("loopback connect does not hang on this kernel") { Issue.record("no hang") }
                return
            }
            defer { filler.close() }
            var timeouts = Self.relaxed
            timeouts.connect = .milliseconds(200)
            let request = try get("\(server.baseURL)/", timeouts: perRequest ? timeouts : nil)
            let (response, elapsed) = timedRun(client, request)
            #expect(response.error?.code == .connectTimeout)
            #expect(response.error?.phase == .connect)
            #expect(elapsed < .seconds(5))
            #expect(response.events == [.failed("connectTimeout")])
        }
    }

    // MARK: TLS handshake

    @Test(arguments: [false, true]) func tlsHandshakeTimeout(perRequest: Bool) throws {
        try withClientAndServer(configure: { configuration in
            configuration.tls = testTLS
            configuration.timeouts = Self.relaxed
            if !perRequest { configuration.timeouts.tlsHandshake = .milliseconds(200) }
        }, tls: ServerTLS()) { client, server in
            // Held before the handshake: the ClientHello is never answered.
            let hold = server.holdingAccepts()
            var timeouts = Self.relaxed
            timeouts.tlsHandshake = .milliseconds(200)
            let request = try get("\(server.baseURL)/", timeouts: perRequest ? timeouts : nil)
            let response = run(client, request)
            #expect(hold.arrived.isSignaled)
            #expect(response.error?.code == .tlsHandshakeTimeout)
            #expect(response.error?.phase == .tls)
            #expect(response.events == [.failed("tlsHandshakeTimeout")])
            // The half-open connection was closed by the client.
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    // MARK: Idle read

    @Test(arguments: [false, true]) func idleReadTimeoutBeforeHead(perRequest: Bool) throws {
        try idleRead(perRequest: perRequest, afterHead: false)
    }

    @Test(arguments: [false, true]) func idleReadTimeoutAfterHead(perRequest: Bool) throws {
        try idleRead(perRequest: perRequest, afterHead: true)
    }

    private func idleRead(perRequest: Bool, afterHead: Bool) throws {
        try withClientAndServer(configure: { configuration in
            configuration.timeouts = Self.relaxed
            if !perRequest { configuration.timeouts.idleRead = .milliseconds(200) }
        }) { client, server in
            let hold = Hold()
            server.route("/stall") { _, connection in
                if afterHead { try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc") }
                try hold.wait(connection)
            }
            var timeouts = Self.relaxed
            timeouts.idleRead = .milliseconds(200)
            let request = try get("\(server.baseURL)/stall", timeouts: perRequest ? timeouts : nil)
            let response = run(client, request)
            #expect(response.error?.code == .readTimeout)
            #expect(response.error?.phase == .receive)
            if afterHead {
                #expect(response.events == [.headSent, .head(200), .body(3), .failed("readTimeout")])
            } else {
                #expect(response.events == [.headSent, .failed("readTimeout")])
            }
            // The connection is not reused: the server sees EOF once its handler returns.
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    /// Idle read limit only in the request, none in the client configuration.
    @Test func idleReadOverrideWithoutClientLimit() throws {
        try withClientAndServer(configure: { $0.timeouts = HTTPClientTimeouts(idleRead: nil) }) { client, server in
            _ = server.holdingRoute("/stall")
            let request = try get("\(server.baseURL)/stall", timeouts: HTTPClientTimeouts(idleRead: .milliseconds(200)))
            let response = run(client, request, seconds: 5)
            #expect(response.error?.code == .readTimeout)
        }
    }

    /// The same, on a connection that an earlier request without an idle read limit opened:
    /// the limit belongs to the request, not to the connection.
    @Test func idleReadOverrideOnReusedConnection() throws {
        try withClientAndServer(configure: { $0.timeouts = HTTPClientTimeouts(idleRead: nil) }) { client, server in
            server.route("/fast") { _, connection in try connection.respond(status: 200, body: "ok") }
            let hold = server.holdingRoute("/stall")
            let first = run(client, try get("\(server.baseURL)/fast"))
            #expect(first.bodyString == "ok")
            let request = try get("\(server.baseURL)/stall", timeouts: HTTPClientTimeouts(idleRead: .milliseconds(200)))
            let response = run(client, request, seconds: 5)
            #expect(response.metrics?.reusedConnection == true)
            #expect(response.error?.code == .readTimeout)
            hold.release()
            settle(client)
        }
    }

    /// A slow but steady response: each byte resets the idle read timer, and the total limit
    /// ends it.
    @Test(arguments: [false, true]) func totalTimeout(perRequest: Bool) throws {
        try withClientAndServer(configure: { configuration in
            configuration.timeouts = Self.relaxed
            if !perRequest { configuration.timeouts.total = .milliseconds(300) }
        }) { client, server in
            server.route("/drip") { _, connection in
                try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
                try connection.drip(Array(repeating: UInt8(ascii: "x"), count: 1000), every: 20, bytesPerStep: 10)
            }
            var timeouts = Self.relaxed
            timeouts.idleRead = .milliseconds(200)
            timeouts.total = .milliseconds(300)
            let request = try get("\(server.baseURL)/drip", timeouts: perRequest ? timeouts : nil)
            let (response, elapsed) = timedRun(client, request)
            #expect(response.error?.code == .totalTimeout)
            #expect(response.head?.status == 200)
            #expect(response.body.count > 0 && response.body.count < 1000)
            #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(2))
            #expect(response.endCount == 1)
        }
    }

    /// The total deadline also covers waiting in the pool.
    @Test func totalTimeoutWhileWaitingForConnection() throws {
        try withClientAndServer(configure: { $0.maximumConnectionsPerHost = 1 }) { client, server in
            let holder = try HeldRequest(client, server)
            let waiting = run(client, try get("\(server.baseURL)/hold", timeouts: HTTPClientTimeouts(total: .milliseconds(200))))
            #expect(waiting.error?.code == .totalTimeout)
            #expect(waiting.error?.phase == .pool, "the phase it ran out in")
            #expect(waiting.events == [.failed("totalTimeout")])
            holder.finish()
            #expect(server.requests.count == 1)
        }
    }

    /// The total deadline covers a redirect chain: a stall after two redirects ends it, in the
    /// receive phase, with both redirects counted.
    @Test func totalTimeoutAcrossARedirectChain() throws {
        try withClientAndServer { client, server in
            server.route("/r1") { _, connection in try connection.respond(status: 302, headers: [("Location", "/r2")], body: "") }
            server.route("/r2") { _, connection in try connection.respond(status: 307, headers: [("Location", "/stall")], body: "") }
            let hold = server.holdingRoute("/stall") { connection in try connection.respond(body: "late") }
            var timeouts = Self.relaxed
            timeouts.total = .seconds(1)
            let result = run(client, try get("\(server.baseURL)/r1", timeouts: timeouts))
            #expect(hold.arrived.isSignaled)
            #expect(result.error?.code == .totalTimeout)
            #expect(result.error?.phase == .receive)
            #expect(result.metrics?.redirectCount == 2)
            #expect(server.requests.map(\.path) == ["/r1", "/r2", "/stall"])
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }

    /// A body the server never reads: the deadline ends the request in the send phase.
    @Test func totalTimeoutWhileSendingTheBody() throws {
        try withClientAndServer { client, server in
            let hold = Hold()
            server.route("/upload", body: .manual) { _, connection in try hold.wait(connection) }
            var timeouts = Self.relaxed
            timeouts.total = .seconds(1)
            var request = try get("\(server.baseURL)/upload", timeouts: timeouts)
            request.method = .POST
            request.body = .stream(length: nil) { NeverEndingStream() }
            let result = run(client, request)
            #expect(result.error?.code == .totalTimeout)
            #expect(result.error?.phase == .send)
            hold.release()
            expectAllConnectionsClosed(client, server)
        }
    }
}

/// A request body stream that never has a piece and asks to be polled again only after a minute.
struct NeverEndingStream: HTTPClientBodyStream {
    mutating func next() throws -> ByteBuffer? { ByteBuffer() }
    var waitAfterEmptyPiece: TimeAmount? { .seconds(60) }
}
