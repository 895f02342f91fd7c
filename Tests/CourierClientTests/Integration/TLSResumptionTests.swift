import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import CourierTLS
import Synchronization
import Testing

/// TLS session resumption against the loopback TLS server: a second connection to the same
/// origin resumes (TLS 1.2 ticket, TLS 1.3 PSK) and says so in its metrics, trust evaluation
/// still runs on it, and configurations do not share sessions.
@Suite(.serialized) struct TLSResumptionTests {
    /// Trusts the test root; one request per connection, so every request makes a handshake.
    static func configure(_ resumption: Bool = true) -> (inout HTTPClientConfiguration) -> Void {
        { configuration in
            configuration.tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
            configuration.timeouts.tlsHandshake = .seconds(5)
            configuration.maximumUsesPerConnection = 1
            configuration.tlsSessionResumption = resumption
        }
    }

    static func server(_ version: ServerTLS.Version) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: ServerTLS(minimumVersion: version, maximumVersion: version))
        server.route("/hello") { _, connection in try connection.respond(body: "hello") }
        return server
    }

    /// Two requests on two connections; returns their metrics.
    static func twoHandshakes(_ version: ServerTLS.Version, resumption: Bool = true) throws -> [HTTPClientMetrics] {
        var metrics: [HTTPClientMetrics] = []
        try withClientAndServer(configure: configure(resumption), serving: try server(version)) { client, server in
            for _ in 0..<2 {
                let result = run(client, try get("\(server.baseURL)/hello"))
                #expect(result.bodyString == "hello")
                if let m = result.metrics { metrics.append(m) }
            }
            #expect(server.connectionsAccepted == 2)
        }
        return metrics
    }

    @Test(arguments: [ServerTLS.Version.tls1_2, .tls1_3])
    func theSecondConnectionResumes(_ version: ServerTLS.Version) throws {
        let metrics = try Self.twoHandshakes(version)
        try #require(metrics.count == 2)
        #expect(metrics[0].tlsVersion == (version == .tls1_2 ? "TLSv1.2" : "TLSv1.3"))
        #expect(!metrics[0].tlsSessionReused)
        #expect(metrics[1].tlsSessionReused)
        #expect(!metrics[1].reusedConnection)
        // The resumed handshake carried no certificate: the chain is the session's.
        #expect(metrics[1].peerCertificates.count == 3)
        #expect(metrics[1].peerCertificates == metrics[0].peerCertificates)
    }

    @Test(arguments: [ServerTLS.Version.tls1_2, .tls1_3])
    func resumptionOffMakesFullHandshakes(_ version: ServerTLS.Version) throws {
        let metrics = try Self.twoHandshakes(version, resumption: false)
        try #require(metrics.count == 2)
        #expect(!metrics[0].tlsSessionReused)
        #expect(!metrics[1].tlsSessionReused)
    }

    /// A pinning evaluator that accepts the first connection and rejects the second: the second
    /// fails although it resumed, and the evaluator saw the session's chain on it.
    @Test(arguments: [ServerTLS.Version.tls1_2, .tls1_3])
    func trustIsEvaluatedOnAResumedConnection(_ version: ServerTLS.Version) throws {
        let seen = Mutex<[(reused: Bool, verified: Int, peer: Int)]>([])
        let pinned = try #require(TLSCertificate.load(pemFile: TestCertificates.path("valid.pem")).first?.spkiSHA256)
        let configure: (inout HTTPClientConfiguration) -> Void = { configuration in
            Self.configure()(&configuration)
            configuration.serverTrustEvaluator = { context in
                let calls = seen.withLock { calls in
                    calls.append((context.connection.sessionReused, context.connection.verifiedChain.count,
                                  context.connection.peerChain.count))
                    return calls.count
                }
                // The pin matches on both connections; the evaluator rejects the second anyway.
                return context.connection.verifiedChain.first?.spkiSHA256 == pinned && calls == 1
            }
        }
        try withClientAndServer(configure: configure, serving: try Self.server(version)) { client, server in
            let first = run(client, try get("\(server.baseURL)/hello"))
            #expect(first.bodyString == "hello")
            let second = run(client, try get("\(server.baseURL)/hello"))
            #expect(second.head == nil)
            #expect(second.error?.code == .serverTrustRejected)
            // No request reached the server on the rejected connection.
            #expect(server.requests.count == 1)
        }
        let calls = seen.withLock { $0 }
        try #require(calls.count == 2)
        #expect(!calls[0].reused)
        #expect(calls[1].reused)
        #expect(calls[1].verified == 3)
        #expect(calls[1].peer == calls[0].peer && calls[1].peer > 0)
    }

    /// A request with a TLS configuration of its own does not resume the client default's
    /// session (and vice versa); it resumes its own.
    @Test func configurationsDoNotShareSessions() throws {
        try withClientAndServer(configure: Self.configure(), serving: try Self.server(.tls1_3)) { client, server in
            let first = run(client, try get("\(server.baseURL)/hello"))
            #expect(first.metrics?.tlsSessionReused == false)
            var other = try get("\(server.baseURL)/hello")
            var tls = client.configuration.tls
            tls.poolPartition = "resumption-test"
            #expect(tls != client.configuration.tls)
            other.tls = tls
            let second = run(client, other)
            #expect(second.bodyString == "hello")
            #expect(second.metrics?.tlsSessionReused == false)
            let third = run(client, other)
            #expect(third.metrics?.tlsSessionReused == true)
            let fourth = run(client, try get("\(server.baseURL)/hello"))
            #expect(fourth.metrics?.tlsSessionReused == true)
        }
    }

    /// Against a real nginx (session tickets are its default): the second connection resumes,
    /// over TLS 1.3 and over TLS 1.2 (a request configuration of its own, so its own sessions).
    @Test(.enabled(if: NginxServer.executable != nil, "nginx is not installed: `make deps` installs the Debian package"))
    func nginxResumesOverTLS13AndTLS12() throws {
        let executable = try #require(NginxServer.executable)
        let responder = try OCSPResponder()
        let staple: [UInt8]
        do {
            defer { responder.stop() }
            staple = try responder.response(for: "valid.pem")
        }
        let nginx = try NginxServer(executable: executable, certificateChain: "valid-chain.pem", privateKey: "valid.key", staple: staple)
        defer { nginx.stop() }
        try withClient(configure: Self.configure()) { client in
            var tls12 = client.configuration.tls
            tls12.maximumVersion = .tls1_2
            for tls in [nil, tls12] {
                var request = try get(nginx.baseURL + "/hello")
                request.tls = tls
                let first = run(client, request)
                let second = run(client, request)
                #expect(first.bodyString == "hello" && second.bodyString == "hello")
                #expect(first.metrics?.tlsVersion == (tls == nil ? "TLSv1.3" : "TLSv1.2"))
                #expect(first.metrics?.tlsSessionReused == false)
                #expect(second.metrics?.tlsSessionReused == true)
                #expect(second.metrics?.peerCertificates.count == 3)
            }
        }
    }

    /// The DNS cache: a second connection to `localhost` finds its addresses in the client's
    /// cache; without the cache it looks them up again.
    @Test(arguments: [true, false])
    func aSecondConnectionIsResolvedFromTheCache(_ cached: Bool) throws {
        let configure: (inout HTTPClientConfiguration) -> Void = { configuration in
            configuration.maximumUsesPerConnection = 1
            if !cached { configuration.dnsCache = nil }
        }
        try withClientAndServer(configure: configure) { client, server in
            server.route("/hello") { _, connection in try connection.respond(body: "hello") }
            let url = "http://localhost:\(server.port)/hello"
            let first = run(client, try get(url))
            #expect(first.bodyString == "hello")
            #expect(first.metrics?.resolution == .lookup)
            let second = run(client, try get(url))
            #expect(second.bodyString == "hello")
            // From the cache, or (when a family's lookup the first connection no longer needed was
            // still running) from that lookup: either way, no lookup of its own.
            let source = try #require(second.metrics?.resolution)
            #expect(cached ? source == .cache || source == .coalesced : source == .lookup)
            #expect(second.metrics?.resolvedFromCache == (source == .cache))
            let literal = run(client, try get("http://127.0.0.1:\(server.port)/hello"))
            #expect(literal.metrics?.resolution == .literal)
        }
    }
}
