import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// Connection reuse: keep-alive, `Connection: close`, the per-connection use limit and the
/// idle timeout of pooled connections.
@Suite(.serialized) struct KeepAliveTests {
    @Test func sequentialRequestsReuseOneConnection() throws {
        try withClientAndServer { client, server in
            server.route("/k") { request, connection in
                try connection.respond(status: 200, body: "\(request.indexOnConnection)")
            }
            for i in 0..<5 {
                let response = run(client, try get("\(server.baseURL)/k"))
                #expect(response.bodyString == "\(i)")
                #expect(response.metrics?.reusedConnection == (i > 0))
            }
            #expect(server.connectionsAccepted == 1)
            #expect(client.openConnectionCount == 1)
        }
    }

    @Test func connectionCloseFromServerMeansNewConnection() throws {
        try withClientAndServer { client, server in
            server.route("/close") { request, connection in
                // `Connection: close` on the first response only.
                if request.connectionID == 0 { connection.closeAfterResponse = true }
                try connection.respond(status: 200, body: "c\(request.connectionID)")
            }
            let first = run(client, try get("\(server.baseURL)/close"))
            #expect(first.head?.headers[first: "Connection"] == "close")
            #expect(first.bodyString == "c0")
            let second = run(client, try get("\(server.baseURL)/close"))
            #expect(second.bodyString == "c1")
            #expect(second.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
            // The first connection was closed by the client after the response.
            #expect(client.openConnectionCount == 1)
        }
    }

    @Test func maximumUsesPerConnection() throws {
        try withClientAndServer(configure: { $0.maximumUsesPerConnection = 2 }) { client, server in
            server.route("/u") { request, connection in
                try connection.respond(status: 200, body: "\(request.connectionID)/\(request.indexOnConnection)")
            }
            let bodies = try (0..<3).map { _ in run(client, try get("\(server.baseURL)/u")).bodyString }
            #expect(bodies == ["0/0", "0/1", "1/0"])
            #expect(server.connectionsAccepted == 2)
            // The first connection was retired (closed by the client) after its second use.
            #expect(client.openConnectionCount == 1)
        }
    }

    @Test func idleConnectionTimeoutClosesPooledConnection() throws {
        try withClientAndServer(configure: { $0.idleConnectionTimeout = .milliseconds(100) }) { client, server in
            server.route("/i") { _, connection in
                try connection.respond(status: 200, body: "idle")
            }
            let response = run(client, try get("\(server.baseURL)/i"))
            #expect(response.bodyString == "idle")
            // The server thread sees EOF (the client closed the parked connection).
            expectAllConnectionsClosed(client, server)
            // And the next request simply opens a new one.
            let next = run(client, try get("\(server.baseURL)/i"))
            #expect(next.bodyString == "idle")
            #expect(next.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
        }
    }
}
