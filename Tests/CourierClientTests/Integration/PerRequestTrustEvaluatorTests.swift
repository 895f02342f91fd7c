import CourierClient
import CourierCore
import CourierTestSupport
import CourierTLS
import Synchronization
import Testing

/// A request's own trust evaluator (``HTTPClientRequest/serverTrustEvaluator``): it replaces the
/// client's, and it is part of the pool key by identity, so a connection one evaluator accepted
/// is never handed to a request that names another.
@Suite(.serialized) struct PerRequestTrustEvaluatorTests {
    static func request(_ server: ScriptedServer, _ evaluator: SharedServerTrustEvaluator?) throws -> HTTPClientRequest {
        var request = try get("\(server.baseURL)/hello")
        request.serverTrustEvaluator = evaluator
        return request
    }

    @Test func aConnectionAcceptedByOneEvaluatorIsNeverUsedForAnother() throws {
        let judged = Mutex<[String]>([])
        let accepting = SharedServerTrustEvaluator { _ in judged.withLock { $0.append("accepting") }; return true }
        let refusing = SharedServerTrustEvaluator { _ in judged.withLock { $0.append("refusing") }; return false }
        try withClientAndServer(
            configure: TLSMatrixTests.trustTestRoot(),
            serving: TLSMatrixTests.server("valid-chain.pem", "valid.key")
        ) { client, server in
            let first = run(client, try Self.request(server, accepting))
            #expect(first.bodyString == "hello")
            #expect(client.openConnectionCount == 1)
            // Same origin, same TLS settings, another evaluator: a new connection, judged by it.
            let refused = run(client, try Self.request(server, refusing))
            #expect(refused.error?.code == .serverTrustRejected)
            #expect(server.requests.count == 1, "the refused request was never sent")
            // Nor is it the client's default (none here): a request without one opens its own.
            let plain = run(client, try Self.request(server, nil))
            #expect(plain.bodyString == "hello")
            #expect(plain.metrics?.reusedConnection == false)
            // The same evaluator object shares its connection.
            let again = run(client, try Self.request(server, accepting))
            #expect(again.metrics?.reusedConnection == true)
            #expect(server.tlsHandshakesCompleted == 3)
        }
        #expect(judged.withLock { $0 } == ["accepting", "refusing"], "each evaluator judged its own connection once")
    }

    @Test func theRequestsEvaluatorReplacesTheClients() throws {
        let clientJudged = Mutex(0)
        try withClientAndServer(
            configure: { configuration in
                TLSMatrixTests.trustTestRoot()(&configuration)
                configuration.serverTrustEvaluator = { _ in clientJudged.withLock { $0 += 1 }; return false }
            },
            serving: TLSMatrixTests.server("valid-chain.pem", "valid.key")
        ) { client, server in
            let own = run(client, try Self.request(server, SharedServerTrustEvaluator { _ in true }))
            #expect(own.bodyString == "hello")
            #expect(clientJudged.withLock { $0 } == 0)
            // Without one the client's default still decides.
            let byDefault = run(client, try Self.request(server, nil))
            #expect(byDefault.error?.code == .serverTrustRejected)
            #expect(clientJudged.withLock { $0 } == 1)
        }
    }

    @Test func plainHTTPRequestsShareConnectionsWhateverTheirEvaluator() throws {
        try withClientAndServer { client, server in
            server.route("/hello") { _, connection in try connection.respond(body: "hello") }
            _ = run(client, try Self.request(server, SharedServerTrustEvaluator { _ in false }))
            let second = run(client, try Self.request(server, SharedServerTrustEvaluator { _ in false }))
            #expect(second.bodyString == "hello")
            #expect(second.metrics?.reusedConnection == true, "an evaluator judges TLS servers only")
        }
    }

    @Test func evaluatorsCompareByIdentity() {
        let one = SharedServerTrustEvaluator { _ in true }
        let other = SharedServerTrustEvaluator { _ in true }
        #expect(one == one)
        #expect(one != other)
        #expect(Set([one, one, other]).count == 2)
    }
}
