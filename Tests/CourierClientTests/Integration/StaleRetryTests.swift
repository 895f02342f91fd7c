import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

/// The one automatic retry of RFC 9112 §9.3.1: an idempotent request whose reused keep-alive
/// connection turns out closed before any response byte is sent again on a new connection; a
/// POST is not.
@Suite(.serialized) struct StaleRetryTests {
    /// The server closes the idle connection between requests. The client may notice the EOF
    /// while the connection is parked (then the GET simply opens a new connection), or only when
    /// the GET is already written (then it is retried once). Either way it succeeds on a second
    /// connection and the server handles it once.
    @Test func getAfterServerClosedIdleConnection() throws {
        try withClientAndServer { client, server in
            server.route("/r") { request, connection in
                try connection.respond(status: 200, body: "\(request.connectionID)")
            }
            #expect(run(client, try get("\(server.baseURL)/r")).bodyString == "0")
            #expect(server.closeIdleConnections() == 1)
            let response = run(client, try get("\(server.baseURL)/r"))
            #expect(response.bodyString == "1")
            #expect(response.metrics?.reusedConnection == false)
            #expect(server.connectionsAccepted == 2)
            // Recorded requests: the first, then the GET on the new connection; the stale
            // connection never got the second GET (the server had closed it).
            #expect(server.requests.map(\.connectionID) == [0, 1])
        }
    }

    /// Forces the retry path: the server reads the next request head on the kept-alive
    /// connection and closes without a byte of response.
    @Test func getRetriedOnceWhenReusedConnectionClosesBeforeResponse() throws {
        try withClientAndServer { client, server in
            server.routeClosingAtSecondRequest("/r") { request in "\(request.connectionID)" }
            #expect(run(client, try get("\(server.baseURL)/r")).bodyString == "0")
            let response = run(client, try get("\(server.baseURL)/r"))
            #expect(response.bodyString == "1")
            #expect(response.metrics?.retried == true)
            #expect(response.metrics?.reusedConnection == false)
            #expect(response.events == [.headSent, .headSent, .head(200), .body(1), .finished])
            #expect(server.connectionsAccepted == 2)
            // The stale connection got the GET once, the new one once more.
            #expect(server.requests.map(\.connectionID) == [0, 0, 1])
        }
    }

    /// Only one retry: when the retry's connection closes too, the error surfaces. (The retry
    /// goes out on a new connection, so its failure is not "safe" anyway.)
    @Test func retryHappensAtMostOnce() throws {
        try withClientAndServer { client, server in
            server.route("/r") { request, connection in
                if request.indexOnConnection == 0 && request.connectionID == 0 {
                    try connection.respond(status: 200, body: "first")
                } else {
                    connection.close()
                }
            }
            #expect(run(client, try get("\(server.baseURL)/r")).bodyString == "first")
            let response = run(client, try get("\(server.baseURL)/r"))
            #expect(response.error?.code == .remoteClosedBeforeResponse)
            #expect(response.metrics?.retried == true)
            #expect(server.requests.count == 3)
            #expect(server.connectionsAccepted == 2)
        }
    }

    /// A POST is not idempotent: it fails and is not sent again. The server received it once
    /// (it read the request, then closed).
    @Test func postNotRetried() throws {
        try withClientAndServer { client, server in
            server.routeClosingAtSecondRequest("/r") { _ in "ok" }
            #expect(run(client, try get("\(server.baseURL)/r")).bodyString == "ok")
            let post = try HTTPClientRequest(method: .POST, url: "\(server.baseURL)/r", body: .string("payload"))
            let response = run(client, post)
            #expect(response.error?.code == .remoteClosedBeforeResponse)
            #expect(response.error?.isSafeToRetry == false)
            #expect(response.metrics?.retried == false)
            #expect(server.requests.filter { $0.method == "POST" }.count == 1)
            #expect(server.connectionsAccepted == 1)
        }
    }

    /// POST after the server closed the idle connection: if the client saw the EOF while the
    /// connection was parked, the POST goes out on a new connection and succeeds (server saw 1
    /// POST); if the EOF raced with the write, it fails with `remoteClosedBeforeResponse` and is
    /// not retried (server saw 0 POSTs: it had closed before reading it).
    @Test func postAfterServerClosedIdleConnection() throws {
        try withClientAndServer { client, server in
            server.route("/r") { _, connection in try connection.respond(status: 200, body: "ok") }
            #expect(run(client, try get("\(server.baseURL)/r")).bodyString == "ok")
            #expect(server.closeIdleConnections() == 1)
            let post = try HTTPClientRequest(method: .POST, url: "\(server.baseURL)/r", body: .string("payload"))
            let response = run(client, post)
            #expect(response.metrics?.retried == false)
            let posts = server.requests.filter { $0.method == "POST" }.count
            if let error = response.error {
                #expect(error.code == .remoteClosedBeforeResponse)
                #expect(posts == 0)
            } else {
                #expect(response.bodyString == "ok")
                #expect(posts == 1)
                #expect(response.metrics?.reusedConnection == false)
            }
        }
    }
}
