import CourierClient
import CourierCore
import CourierTestSupport
import CourierTLS
import Synchronization
import Testing

/// The hook a pinning policy uses: it runs after the handshake, before the request is sent.
@Suite(.serialized) struct ServerTrustEvaluatorTests {
    /// SPKI SHA-256 of the leaf in valid.pem, read independently of the client.
    static func leafPin() throws -> [UInt8] {
        try #require(TLSCertificate.load(pemFile: TestCertificates.path("valid.pem")).first).spkiSHA256
    }

    static func configure(_ evaluator: @escaping ServerTrustEvaluator) -> (inout HTTPClientConfiguration) -> Void {
        { configuration in
            TLSMatrixTests.trustTestRoot()(&configuration)
            configuration.serverTrustEvaluator = evaluator
        }
    }

    @Test func aMatchingPinIsAccepted() throws {
        let pin = try Self.leafPin()
        let seen = Mutex<[String]>([])
        try withClientAndServer(
            configure: Self.configure { context in
                seen.withLock { $0.append(context.host) }
                return context.connection.verifiedChain.first?.spkiSHA256 == pin
            },
            serving: TLSMatrixTests.server("valid-chain.pem", "valid.key")
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.bodyString == "hello")
            let again = run(client, try get("\(server.baseURL)/hello"))
            #expect(again.metrics?.reusedConnection == true)
        }
        #expect(seen.withLock { $0 } == ["localhost"], "judged once per connection, not per request")
    }

    @Test func aWrongPinFailsBeforeAnyRequestByte() throws {
        try withClientAndServer(
            configure: Self.configure { _ in false },
            serving: TLSMatrixTests.server("valid-chain.pem", "valid.key")
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.error?.code == .serverTrustRejected)
            #expect(result.error?.phase == .tls)
            #expect(result.events == [.failed("serverTrustRejected")], "nothing was sent")
            #expect(server.requests.isEmpty)
        }
    }

    /// What a throwing evaluator reports (a pinning policy's typed reason).
    struct Refusal: Error, Equatable {
        let host: String
        let leafSubject: String?
    }

    @Test func aThrownReasonBecomesTheCause() throws {
        try withClientAndServer(
            configure: Self.configure { context in
                throw Refusal(host: context.host, leafSubject: context.connection.verifiedChain.first?.subject)
            },
            serving: TLSMatrixTests.server("valid-chain.pem", "valid.key")
        ) { client, server in
            let result = run(client, try get("\(server.baseURL)/hello"))
            let error = try #require(result.error)
            #expect(error.code == .serverTrustRejected)
            #expect(error.phase == .tls)
            #expect(error.cause as? Refusal == Refusal(host: "localhost", leafSubject: "/CN=localhost"), "\(error)")
            #expect(result.events == [.failed("serverTrustRejected")], "nothing was sent")
            #expect(server.requests.isEmpty)
        }
    }

    @Test func anEvaluatorThatReturnsFalseHasNoCause() throws {
        try withClientAndServer(
            configure: Self.configure { _ in false },
            serving: TLSMatrixTests.server("valid-chain.pem", "valid.key")
        ) { client, server in
            let error = try #require(run(client, try get("\(server.baseURL)/hello")).error)
            #expect(error.code == .serverTrustRejected)
            #expect(error.cause == nil)
        }
    }
}
