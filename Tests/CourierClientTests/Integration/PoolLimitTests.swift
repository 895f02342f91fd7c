import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Synchronization
import Testing

/// `maximumConnectionsPerHost` under load: the pool never opens more connections than allowed,
/// and every queued request is eventually served.
@Suite(.serialized) struct PoolLimitTests {
    @Test func thousandConcurrentRequestsOverSixConnections() throws {
        try withClientAndServer(configure: { $0.maximumConnectionsPerHost = 6 }) { client, server in
            server.route("/n") { request, connection in
                try connection.respond(status: 200, body: query(of: request))
            }
            let count = 1_000
            var delegates: [RecordingDelegate] = []
            delegates.reserveCapacity(count)
            for i in 0..<count {
                let (_, delegate) = start(client, try get("\(server.baseURL)/n?\(i)"))
                delegates.append(delegate)
            }
            for (i, delegate) in delegates.enumerated() {
                #expect(delegate.wait(seconds: 60), "request \(i) did not end")
                #expect(delegate.head?.status == 200, "request \(i): \(String(describing: delegate.error))")
                #expect(delegate.bodyString == "\(i)")
            }
            #expect(server.requests.count == count)
            #expect(server.maxConcurrentConnections <= 6)
            #expect(server.connectionsAccepted <= 6)
            #expect(client.openConnectionCount <= 6)
        }
    }

    @Test func limitOfOneSerialisesRequests() throws {
        try withClientAndServer(configure: { $0.maximumConnectionsPerHost = 1 }) { client, server in
            // Counts handlers running at once (only one connection, so never more than one).
            let running = Atomic<Int>(0)
            let maxRunning = Atomic<Int>(0)
            server.route("/n") { request, connection in
                let now = running.add(1, ordering: .sequentiallyConsistent).newValue
                maxRunning.max(now, ordering: .sequentiallyConsistent)
                defer { running.subtract(1, ordering: .sequentiallyConsistent) }
                try connection.respond(status: 200, body: query(of: request))
            }
            let delegates = try (0..<50).map { i in start(client, try get("\(server.baseURL)/n?\(i)")).1 }
            for (i, delegate) in delegates.enumerated() {
                #expect(delegate.wait())
                #expect(delegate.bodyString == "\(i)" || delegate.head?.status == 200)
            }
            #expect(server.connectionsAccepted == 1)
            #expect(server.maxConcurrentConnections == 1)
            #expect(maxRunning.load(ordering: .sequentiallyConsistent) == 1)
            // Every request went over the one connection, one after the other.
            #expect(server.requests.map(\.indexOnConnection) == Array(0..<50))
            #expect(delegates.filter { $0.metrics?.reusedConnection == true }.count == 49)
        }
    }
}
