#if canImport(Glibc)
import Glibc
#endif
import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Runs an ``HTTPSessionManager`` test: serialised with every other descriptor-counting test,
/// with a fresh loopback server (plain, or TLS with `tls`) made first so that the base URL can
/// name its port, and checked for leaked descriptors once `manager.session` is invalidated.
///
/// - Parameter baseURLPath: appended to the server's base URL (`"/v1"` gives
///   `http://127.0.0.1:P/v1`); nil for a manager without a base URL.
func withHTTPSession(
    baseURLPath: String? = "",
    tls: ServerTLS? = nil,
    securityPolicy: SecurityPolicy = .default,
    configure: (inout SessionConfiguration) -> Void = { _ in },
    completionQueue: DispatchQueue? = nil,
    _ body: (HTTPSessionManager, ScriptedServer) throws -> Void
) throws {
    try withHTTPSession(
        baseURL: { server in baseURLPath.map { server.baseURL + $0 } }, tls: tls, securityPolicy: securityPolicy,
        configure: configure, completionQueue: completionQueue, body)
}

/// ``withHTTPSession(baseURLPath:tls:securityPolicy:configure:completionQueue:_:)`` with the base
/// URL computed from the server (or not naming it at all).
func withHTTPSession(
    baseURL: (ScriptedServer) -> String?,
    tls: ServerTLS? = nil,
    securityPolicy: SecurityPolicy = .default,
    configure: (inout SessionConfiguration) -> Void = { _ in },
    completionQueue: DispatchQueue? = nil,
    _ body: (HTTPSessionManager, ScriptedServer) throws -> Void
) throws {
    try FileDescriptors.exclusively {
        try FileDescriptors.expectNoLeakedDescriptors {
            let server = try ScriptedServer(tls: tls)
            defer { server.shutdown() }
            let manager = try HTTPSessionManager(
                baseURL: baseURL(server).map { try #require(URL(string: $0)) },
                configuration: HTTPSessionFixtures.configuration(tls: tls != nil, configure),
                securityPolicy: securityPolicy, completionQueue: completionQueue)
            defer { invalidateAndWait(manager.session) }
            try body(manager, server)
        }
    }
}

/// A manager without a server (for `url(for:)` and request building), with the same
/// descriptor accounting.
func withHTTPManager(baseURL: String?, _ body: (HTTPSessionManager) throws -> Void) throws {
    try FileDescriptors.exclusively {
        try FileDescriptors.expectNoLeakedDescriptors {
            let manager = try HTTPSessionManager(
                baseURL: baseURL.map { try #require(URL(string: $0)) },
                configuration: HTTPSessionFixtures.configuration(tls: false, { _ in }))
            defer { invalidateAndWait(manager.session) }
            try body(manager)
        }
    }
}

enum HTTPSessionFixtures {
    /// Two loop threads; for TLS servers the test root as the only trust anchor and a short
    /// handshake timeout.
    static func configuration(tls: Bool, _ configure: (inout SessionConfiguration) -> Void) -> SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.client.eventLoopThreads = 2
        if tls {
            configuration.client.tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
            configuration.client.timeouts.tlsHandshake = .seconds(5)
        }
        configure(&configuration)
        return configuration
    }

    /// A route that answers with a JSON object describing the request it got.
    static func echo(_ server: ScriptedServer, _ path: String, status: Int = 200, contentType: String = "application/json") {
        server.route(path) { request, connection in
            let text = #"{"method":"\#(request.method)","target":"\#(request.target)","bodyLength":\#(request.body.count)}"#
            try connection.respond(status: status, headers: [("Content-Type", contentType)], body: text)
        }
    }

    /// What ``echo(_:_:status:contentType:)`` answers for a request.
    static func echoed(_ method: String, _ target: String, bodyLength: Int = 0) -> JSONValue {
        .object(["method": .string(method), "target": .string(target), "bodyLength": .integer(Int64(bodyLength))])
    }
}


// MARK: Async calls from synchronous tests

/// Runs `body` and waits for its result (recording an issue on timeout).
func runAsync<Value: Sendable>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () async throws(CourierError) -> Value
) throws -> Result<Value, CourierError> {
    try #require(AsyncCall(body).wait(), "the async call did not finish", sourceLocation: sourceLocation)
}
