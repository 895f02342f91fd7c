import Courier
import CourierClient
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Testing

/// Managers on one ``HTTPClient``: they share its connections (plain `http`), each judges
/// `https` servers by its own policies and never reuses another's connection, and invalidating
/// one leaves the client to its owner — while a manager with a client of its own releases every
/// descriptor when invalidated.
@Suite(.serialized) struct SharedClientTests {
    static let validTLS = ServerTLS(certificateChain: "valid-chain.pem", privateKey: "valid.key")

    /// A client with one loop; for TLS the test root as the only trust anchor.
    static func makeClient(tls: Bool = false) throws -> HTTPClient {
        try HTTPClient(configuration: HTTPSessionFixtures.configuration(tls: tls) { $0.client.eventLoopThreads = 1 }.client)
    }

    static func serveHello(_ server: ScriptedServer) {
        server.route("/hello") { _, connection in try connection.respond(body: "hello") }
    }

    /// GET `path` through the manager's session with the raw-bytes serializer: the response.
    static func get(_ manager: HTTPSessionManager, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> DataResponse<Data> {
        let request = try manager.request(method: .GET, path: path, parameters: nil)
        let outcome = Outcome<DataResponse<Data>>()
        manager.session.dataTask(with: request, serializer: HTTPResponseSerializer()) { outcome.set($0) }.resume()
        return try #require(outcome.wait(), "the request did not finish", sourceLocation: sourceLocation)
    }

    @Test func twoManagersOnOneClientShareItsConnections() throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let server = try ScriptedServer()
                defer { server.shutdown() }
                Self.serveHello(server)
                let client = try Self.makeClient()
                defer { client.shutdown() }
                let first = try HTTPSessionManager(baseURL: URL(string: server.baseURL), client: client)
                let second = try HTTPSessionManager(baseURL: URL(string: server.baseURL), client: client)
                #expect(first.session.client === client && second.session.client === client)

                let one = try Self.get(first, "hello")
                #expect(one.error == nil)
                #expect(one.metrics?.transactionMetrics.last?.reusedConnection == false)
                let two = try Self.get(second, "hello")
                #expect(two.error == nil)
                #expect(two.metrics?.transactionMetrics.last?.reusedConnection == true, "the second manager reuses the first's connection")
                #expect(server.connectionsAccepted == 1)

                // Invalidating a manager ends its own tasks, never the client it was given.
                invalidateAndWait(first.session)
                #expect(client.openConnectionCount == 1)
                let three = try Self.get(second, "hello")
                #expect(three.error == nil)
                #expect(three.metrics?.transactionMetrics.last?.reusedConnection == true)
                invalidateAndWait(second.session)
                #expect(client.openConnectionCount == 1, "the client's owner decides when its connections close")
                #expect(server.connectionsAccepted == 1)
                // The invalidated manager refuses new work; the client still serves others.
                let refused = try Self.get(first, "hello")
                #expect(refused.error?.code == .sessionInvalidated)
            }
        }
    }

    @Test func aManagersPinsNeverReuseAnotherManagersConnection() throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let server = try ScriptedServer(tls: Self.validTLS)
                defer { server.shutdown() }
                Self.serveHello(server)
                let client = try Self.makeClient(tls: true)
                defer { client.shutdown() }
                let right = try SecurityPolicy(publicKeyPins: [HTTPSecurityTests.pin("valid.pem")])
                let wrong = try SecurityPolicy(publicKeyPins: [HTTPSecurityTests.pin("other-ca.pem")])
                let trusting = try HTTPSessionManager(baseURL: URL(string: server.baseURL), client: client, securityPolicy: right)
                let pinningElsewhere = try HTTPSessionManager(baseURL: URL(string: server.baseURL), client: client, securityPolicy: wrong)
                defer {
                    invalidateAndWait(trusting.session)
                    invalidateAndWait(pinningElsewhere.session)
                }

                // The trusting manager opens a connection to the origin first; it stays pooled.
                #expect(try Self.get(trusting, "hello").error == nil)
                #expect(client.openConnectionCount == 1)
                #expect(server.tlsHandshakesCompleted == 1)

                // The other manager's pins are checked on a connection of its own, and refuse it.
                let refused = try Self.get(pinningElsewhere, "hello")
                #expect(refused.error?.code == .serverTrustRejected, "\(String(describing: refused.error))")
                if case .noPinnedPublicKeyInChain = refused.error?.underlying as? TrustFailure {} else {
                    Issue.record("not a pin failure: \(String(describing: refused.error))")
                }
                #expect(server.requests.count == 1, "the refused manager's request never reached the server")

                // The trusting manager still reuses its own connection.
                let again = try Self.get(trusting, "hello")
                #expect(again.error == nil)
                #expect(again.metrics?.transactionMetrics.last?.reusedConnection == true)
                #expect(server.requests.count == 2)
            }
        }
    }

    @Test func anOwnedClientReleasesItsDescriptorsWhenTheManagerIsInvalidated() throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let server = try ScriptedServer()
                defer { server.shutdown() }
                Self.serveHello(server)
                let manager = try HTTPSessionManager(
                    baseURL: URL(string: server.baseURL),
                    configuration: HTTPSessionFixtures.configuration(tls: false) { $0.client.eventLoopThreads = 1 })
                #expect(try Self.get(manager, "hello").error == nil)
                #expect(manager.session.openConnectionCount == 1)

                let invalid = TestEvent()
                manager.session.updateHooks { $0.sessionDidBecomeInvalid = { _ in invalid.signal() } }
                manager.invalidate(cancelingTasks: false)
                #expect(invalid.wait(timeout: .seconds(20)), "the session did not become invalid")
                #expect(manager.session.openConnectionCount == 0)
                #expect(server.waitForAllConnectionsClosed(), "the client closed its connection")
                #expect(try Self.get(manager, "hello").error?.code == .sessionInvalidated)
            }
        }
    }

    @Test func theSharedClientIsOneClientThatManagersNeverShutDown() throws {
        try FileDescriptors.exclusively {
            let server = try ScriptedServer()
            defer { server.shutdown() }
            // Connection: close, so the shared client (which lives on) keeps no socket.
            server.route("/hello") { _, connection in try connection.respond(headers: [("Connection", "close")], body: "hello") }
            let shared = try HTTPClient.shared
            #expect(try HTTPClient.shared === shared)
            let manager = try HTTPSessionManager(baseURL: URL(string: server.baseURL), client: shared)
            #expect(try Self.get(manager, "hello").error == nil)
            invalidateAndWait(manager.session)
            // A second manager, and a direct shutdown attempt: the client keeps working.
            shared.shutdown()
            let next = try HTTPSessionManager(baseURL: URL(string: server.baseURL), client: try HTTPClient.shared)
            #expect(try Self.get(next, "hello").error == nil)
            invalidateAndWait(next.session)
            #expect(server.waitForAllConnectionsClosed())
        }
    }
}
