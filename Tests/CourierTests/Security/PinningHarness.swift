#if canImport(Glibc)
import Glibc
#endif
import Courier
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import CourierTLS
import Dispatch
import FoundationEssentials
import Testing

/// Loopback TLS servers from the certificate matrix, a client with a ``SecurityPolicyTable``
/// installed the way a session installs it, and requests prepared with `apply(to:base:)`.
enum PinningHarness {
    /// The TLS settings the client starts from: the test root as the only trust anchor.
    static var base: TLSConfiguration {
        var tls = TLSConfiguration()
        tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
        return tls
    }

    /// The first certificate of a matrix PEM file.
    static func certificate(_ name: String, _ index: Int = 0) throws -> TLSCertificate {
        try #require(SecurityPolicy.certificates(pemFile: TestCertificates.path(name)).dropFirst(index).first)
    }

    /// The `sha256/…` pin of a matrix certificate.
    static func pin(_ name: String, _ index: Int = 0) throws -> String {
        SecurityPolicy.publicKeyPin(of: try certificate(name, index))
    }

    /// A TLS server on `chain`/`key` (matrix names or absolute paths) answering `/hello`.
    static func server(_ chain: String, _ key: String) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: ServerTLS(certificateChain: chain, privateKey: key))
        server.route("/hello") { _, connection in try connection.respond(body: "hello") }
        return server
    }

    /// Runs `body` with a client whose trust evaluator is `table.evaluator`, serialised with the
    /// other descriptor-counting tests and checked for leaked descriptors afterwards.
    static func withClient(
        _ table: SecurityPolicyTable, configure: (inout HTTPClientConfiguration) -> Void = { _ in },
        _ body: (HTTPClient) throws -> Void
    ) throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                var configuration = HTTPClientConfiguration()
                configuration.eventLoopThreads = 1
                configuration.tls = base
                configuration.timeouts.tlsHandshake = .seconds(5)
                configuration.serverTrustEvaluator = table.evaluator
                configure(&configuration)
                let client = try HTTPClient(configuration: configuration)
                defer { client.shutdown() }
                try body(client)
            }
        }
    }

    /// `withClient` with one server made once the client is up (shut down before the fd check).
    static func withServer(
        _ chain: String, _ key: String, table: SecurityPolicyTable,
        configure: (inout HTTPClientConfiguration) -> Void = { _ in },
        _ body: (HTTPClient, ScriptedServer) throws -> Void
    ) throws {
        try withClient(table, configure: configure) { client in
            let server = try Self.server(chain, key)
            defer { server.shutdown() }
            try body(client, server)
        }
    }

    /// GET `url` prepared by `table.apply(to:base:)`, waited for.
    static func fetch(
        _ client: HTTPClient, _ table: SecurityPolicyTable, _ url: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Outcome {
        var request = try HTTPClientRequest(method: .GET, url: url)
        try table.apply(to: &request, base: base)
        let outcome = Outcome()
        client.execute(request, delegate: outcome)
        let ended = outcome.wait()
        #expect(ended, "the request did not end", sourceLocation: sourceLocation)
        return outcome
    }

    /// What one request ended with.
    typealias Outcome = TransportRecorder
}

extension TransportRecorder {
    var succeeded: Bool { error == nil && status == 200 && bodyString == "hello" }

    /// The typed reason, through the mapping a session uses.
    var trustFailure: TrustFailure? {
        guard let error, let mapped = SecurityPolicy.courierError(from: error, host: "localhost") else { return nil }
        return mapped.underlying as? TrustFailure
    }
}

