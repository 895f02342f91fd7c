import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// `HTTPClientMetrics`: timestamps in order, byte counts, addresses, reuse.
@Suite(.serialized) struct MetricsTests {
    @Test func newConnectionMetrics() throws {
        try withClientAndServer { client, server in
            let body = String(repeating: "m", count: 1000)
            server.route("/m") { _, connection in try connection.respond(status: 200, body: body) }
            let post = try HTTPClientRequest(method: .POST, url: "\(server.baseURL)/m", body: .string("0123456789"))
            let response = run(client, post)
            #expect(response.bodyString == body)
            guard let m = response.metrics else {
                Issue.record("no metrics")
                return
            }
            // fetchStart ≤ connectStart ≤ connectEnd ≤ requestStart ≤ requestEnd ≤ responseStart ≤ responseEnd
            // (requestEnd: set even when the last write went out at once, without a later flush).
            let chain: [Deadline?] = [m.fetchStart, m.connectStart, m.connectEnd, m.requestStart, m.requestEnd, m.responseStart, m.responseEnd]
            #expect(chain.allSatisfy { $0 != nil }, "\(chain)")
            let times = chain.compactMap { $0 }
            #expect(times == times.sorted(), "\(times)")
            if let requestStart = m.requestStart, let requestEnd = m.requestEnd, let responseEnd = m.responseEnd {
                #expect(requestStart <= requestEnd && requestEnd <= responseEnd)
            }
            if let resolveStart = m.resolveStart, let resolveEnd = m.resolveEnd {
                #expect(resolveStart <= resolveEnd)
            }
            #expect(m.tlsStart == nil && m.tlsEnd == nil)
            #expect(m.reusedConnection == false)
            #expect(m.retried == false)
            #expect(m.redirectCount == 0)
            // Sent: the head and the 10-byte body; received: head + 1000 body bytes.
            let head = server.requests[0]
            #expect(m.bytesSent > 10)
            // "Name: value" fields as the client wrote them (the server records them as received).
            let headSize = "\(head.method) \(head.target) \(head.version)\r\n".utf8.count
                + head.headers.reduce(0) { $0 + $1.name.utf8.count + 2 + $1.value.utf8.count + 2 } + 2
            #expect(m.bytesSent == Int64(headSize + 10), "\(head)")
            #expect(m.bytesReceived > 1000)
            #expect(m.bodyBytesDelivered == 1000)
            #expect(isLoopback(m.localAddress), "\(String(describing: m.localAddress))")
            #expect(isLoopback(m.remoteAddress), "\(String(describing: m.remoteAddress))")
            #expect(m.remoteAddress?.port == server.port)
            #expect(m.localAddress?.port != nil && m.localAddress?.port != server.port)
        }
    }

    @Test func reusedConnectionMetrics() throws {
        try withClientAndServer { client, server in
            server.route("/m") { _, connection in try connection.respond(status: 200, body: "abc") }
            let first = run(client, try get("\(server.baseURL)/m"))
            let second = run(client, try get("\(server.baseURL)/m"))
            guard let a = first.metrics, let b = second.metrics else {
                Issue.record("no metrics")
                return
            }
            #expect(!a.reusedConnection)
            #expect(b.reusedConnection)
            // The reused connection had no resolve/connect phases for this request.
            #expect(b.connectStart == nil && b.connectEnd == nil && b.resolveStart == nil)
            let times = [b.fetchStart, b.requestStart, b.responseStart, b.responseEnd].compactMap { $0 }
            #expect(times.count == 4)
            #expect(times == times.sorted())
            // Same connection, same addresses.
            #expect(a.localAddress == b.localAddress)
            #expect(a.remoteAddress == b.remoteAddress)
            #expect(b.bytesReceived == a.bytesReceived)
            #expect(b.bytesSent == a.bytesSent)
            #expect(b.bodyBytesDelivered == 3)
        }
    }

    @Test func tlsMetrics() throws {
        try withClientAndServer(configure: { $0.tls = testTLS }, tls: ServerTLS()) { client, server in
            server.route("/m") { _, connection in try connection.respond(status: 200, body: "tls") }
            let response = run(client, try get("\(server.baseURL)/m"))
            #expect(response.bodyString == "tls")
            guard let m = response.metrics else {
                Issue.record("no metrics")
                return
            }
            let times = [m.fetchStart, m.connectStart, m.connectEnd, m.tlsStart, m.tlsEnd, m.requestStart, m.responseStart, m.responseEnd]
            #expect(times.allSatisfy { $0 != nil })
            let present = times.compactMap { $0 }
            #expect(present == present.sorted())
            #expect(m.tlsVersion != nil)
            #expect(m.tlsCipher != nil)
            #expect(!m.peerCertificates.isEmpty)
            #expect(isLoopback(m.remoteAddress))
        }
    }

    @Test func failedRequestMetrics() throws {
        try withClientAndServer { client, server in
            server.routeClosing("/cut", after: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            let response = run(client, try get("\(server.baseURL)/cut"))
            #expect(response.error?.code == .remoteClosedDuringBody)
            guard let m = response.metrics else {
                Issue.record("no metrics")
                return
            }
            #expect(m.responseEnd != nil)
            #expect(m.bodyBytesDelivered == 3)
            #expect(m.bytesReceived > 3)
            if let responseStart = m.responseStart, let responseEnd = m.responseEnd {
                #expect(responseStart <= responseEnd)
            }
        }
    }
}
