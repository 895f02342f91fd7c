#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// The server misbehaves: closes or resets mid-response, or sends something malformed. Each
/// failure has its code, and a connection that failed is never reused.
@Suite(.serialized) struct FailureModeTests {
    static let ok: ScriptedServer.Handler = { _, connection in try connection.respond(status: 200, body: "fine") }

    @Test func contentLengthBodyCutShort() throws {
        try withClientAndServer { client, server in
            server.routeClosing("/cut", after: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            let response = run(client, try get("\(server.baseURL)/cut"))
            #expect(response.error?.code == .remoteClosedDuringBody)
            #expect(response.events == [.headSent, .head(200), .body(10), .failed("remoteClosedDuringBody")])
            #expect(response.metrics?.retried == false)
            #expect(server.requests.count == 1)
        }
    }

    @Test func chunkedBodyCutShort() throws {
        try withClientAndServer { client, server in
            server.route("/cut") { _, connection in
                try connection.sendChunkedHead()
                try connection.sendChunk(Array("0123456789".utf8))
                connection.close()
            }
            let response = run(client, try get("\(server.baseURL)/cut"))
            #expect(response.error?.code == .remoteClosedDuringBody)
            #expect(response.body == Array("0123456789".utf8))
        }
    }

    @Test func chunkedCutInsideChunk() throws {
        try withClientAndServer { client, server in
            server.route("/cut") { _, connection in
                try connection.sendChunkedHead()
                try connection.send("a\r\n01234")
                connection.close()
            }
            let response = run(client, try get("\(server.baseURL)/cut"))
            #expect(response.error?.code == .remoteClosedDuringBody)
        }
    }

    @Test func resetMidBody() throws {
        try withClientAndServer { client, server in
            let release = TestEvent()
            server.route("/reset") { _, connection in
                try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
                // Reset only once the client has the first bytes, so the RST cannot discard them.
                try connection.stall(until: release)
                connection.reset()
            }
            let (_, delegate) = start(client, try get("\(server.baseURL)/reset")) { delegate in
                delegate.onBodyPart = { _ in release.signal() }
            }
            #expect(delegate.wait())
            let code = delegate.error?.code
            #expect(code == .remoteClosedDuringBody || code == .ioError, "\(String(describing: delegate.error))")
            #expect(delegate.endCount == 1)
            #expect(delegate.metrics?.retried == false)
        }
    }

    /// A body delimited by the close (RFC 9112 §6.3 ¶8) ends cleanly with a FIN, but an RST is
    /// an abort: the body may be cut short, so the request fails instead of "succeeding" with a
    /// truncated body.
    @Test(arguments: [false, true]) func closeDelimitedBodyEndedBy(reset: Bool) throws {
        try withClientAndServer { client, server in
            let release = TestEvent()
            server.route("/until-close") { _, connection in
                try connection.sendHead(status: 200, headers: [("Connection", "close")])
                try connection.send("0123456789")
                try connection.stall(until: release)
                if reset { connection.reset() } else { connection.close() }
            }
            let (_, delegate) = start(client, try get("\(server.baseURL)/until-close")) { delegate in
                delegate.onBodyPart = { _ in release.signal() }
            }
            #expect(delegate.wait())
            #expect(delegate.bodyString == "0123456789")
            if reset {
                let code = delegate.error?.code
                #expect(code == .remoteClosedDuringBody || code == .ioError, "\(String(describing: delegate.error))")
            } else {
                #expect(delegate.events.last == .finished)
            }
            settle(client)
            #expect(delegate.endCount == 1)
        }
    }

    @Test func responseHeadCutShort() throws {
        try withClientAndServer { client, server in
            server.routeClosing("/cut", after: "HTTP/1.1 200 OK\r\nContent-Len")
            let response = run(client, try get("\(server.baseURL)/cut"))
            let code = response.error?.code
            #expect(code == .remoteClosedBeforeResponse || code == .parse, "\(String(describing: response.error))")
            // Bytes of a response arrived: never retried.
            #expect(response.metrics?.retried == false)
            #expect(response.error?.isSafeToRetry == false)
            #expect(server.requests.count == 1)
        }
    }

    /// Parse errors poison the connection: the next request opens a new one.
    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
    ])
    func malformedResponseIsParseErrorAndNotReused(_ bytes: String) throws {
        try withClientAndServer { client, server in
            server.route("/ok", Self.ok)
            server.route("/bad") { _, connection in try connection.send(bytes) }
            let warmup = run(client, try get("\(server.baseURL)/ok"))
            #expect(warmup.bodyString == "fine")
            let bad = run(client, try get("\(server.baseURL)/bad"))
            #expect(bad.error?.code == .parse, "\(String(describing: bad.error))")
            #expect(bad.error?.phase == .parse)
            #expect(bad.metrics?.reusedConnection == true)
            #expect(bad.metrics?.retried == false)
            settle(client)
            #expect(client.openConnectionCount == 0)
            let next = run(client, try get("\(server.baseURL)/ok"))
            #expect(next.bodyString == "fine")
            #expect(next.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
        }
    }

    /// The pool leases an idle connection while its loop is closing it (stray bytes or EOF seen
    /// while idle): the request must go to another connection, not be dropped. The window is
    /// tiny, so this repeats the race many times.
    @Test func leaseRacingIdleClose() throws {
        try withClientAndServer { client, server in
            server.route("/extra") { _, connection in
                try connection.respond(status: 200, body: "fine")
                // Jitter (not synchronisation): the stray bytes land at varying moments around
                // the client's next lease of this connection.
                usleep(UInt32.random(in: 0...400))
                try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            }
            var failures = 0
            for _ in 0..<1_000 {
                let delegate = RecordingDelegate()
                client.execute(try get("\(server.baseURL)/extra"), delegate: delegate)
                if !delegate.wait(seconds: 5) {
                    failures += 1
                    break
                }
            }
            #expect(failures == 0, "a request was lost")
        }
    }

    /// A response nobody asked for, arriving on an idle pooled connection, retires it.
    @Test func unsolicitedBytesOnIdleConnection() throws {
        try withClientAndServer { client, server in
            server.route("/extra") { _, connection in
                try connection.respond(status: 200, body: "fine")
                try connection.send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            }
            server.route("/ok", Self.ok)
            let first = run(client, try get("\(server.baseURL)/extra"))
            #expect(first.bodyString == "fine")
            let second = run(client, try get("\(server.baseURL)/ok"))
            #expect(second.bodyString == "fine")
            // Either the extra bytes were seen while idle (new connection), or they arrived with
            // the first response (which then could not be kept alive).
            #expect(second.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
        }
    }
}
