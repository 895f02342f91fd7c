#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

/// What a delegate saw, in order.
enum DelegateEvent: Sendable, Equatable {
    case headSent
    case bodySent(Int64)
    case redirected(Int)
    case head(Int)
    case body(Int)
    case finished
    case failed(String)
}

/// A delegate that records everything and lets a test wait for the end.
final class RecordingDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the client calls it one call at a time from its loops; tests read the
    // results only after `wait()` returned (the semaphore orders the accesses).
    private(set) var events: [DelegateEvent] = []
    private(set) var head: HTTPClientResponseHead?
    private(set) var body: [UInt8] = []
    private(set) var error: ClientError?
    private(set) var metrics: HTTPClientMetrics?
    private(set) var trailers: HTTPFields?
    /// Each followed redirect: the 3xx head, the request made next, the hop's metrics.
    private(set) var hops: [(response: HTTPClientResponseHead, next: HTTPClientRequest, metrics: HTTPClientMetrics)] = []
    private let done = DispatchSemaphore(value: 0)
    var pauseAfterFirstPart = false
    var onHead: ((HTTPRequestExecution) -> Void)?
    var onBodyPart: ((HTTPRequestExecution) -> Void)?

    func didSendRequestHead(_ execution: HTTPRequestExecution, _ head: HTTPRequestHead) { events.append(.headSent) }
    func didSendRequestBody(_ execution: HTTPRequestExecution, total: Int64) { events.append(.bodySent(total)) }
    func didRedirect(_ execution: HTTPRequestExecution, response: HTTPClientResponseHead, to next: HTTPClientRequest, metrics: HTTPClientMetrics) {
        hops.append((response, next, metrics))
        events.append(.redirected(response.status))
    }
    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {
        self.head = head
        events.append(.head(head.status))
        onHead?(execution)
    }
    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        body += part.readableBytesArray()
        events.append(.body(part.readableBytes))
        onBodyPart?(execution)
        if pauseAfterFirstPart { pauseAfterFirstPart = false; return .pause }
        return .more
    }
    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        self.trailers = trailers
        self.metrics = metrics
        events.append(.finished)
        done.signal()
    }
    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        self.error = error
        self.metrics = metrics
        events.append(.failed(error.code.name))
        done.signal()
    }

    /// Waits for the end; false on timeout.
    @discardableResult
    func wait(seconds: Int = 20) -> Bool {
        done.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    var bodyString: String { String(decoding: body, as: UTF8.self) }
}

/// Runs a client test: serialised with every other descriptor-counting test, and checked for
/// leaked descriptors once the client and servers are shut down.
func withClient(
    configure: (inout HTTPClientConfiguration) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (HTTPClient) throws -> Void
) throws {
    try FileDescriptors.exclusively {
        try FileDescriptors.expectNoLeakedDescriptors {
            var configuration = HTTPClientConfiguration()
            configuration.eventLoopThreads = 2
            configure(&configuration)
            let client = try HTTPClient(configuration: configuration)
            defer { client.shutdown() }
            try body(client)
        }
    }
}

/// Runs a client test (see ``withClient(configure:sourceLocation:_:)``) against the server
/// `serving` makes once the client is up; the server is shut down when `body` returns.
func withClientAndServer(
    configure: (inout HTTPClientConfiguration) -> Void = { _ in },
    serving makeServer: @autoclosure () throws -> ScriptedServer,
    _ body: (HTTPClient, ScriptedServer) throws -> Void
) throws {
    try withClient(configure: configure) { client in
        let server = try makeServer()
        defer { server.shutdown() }
        try body(client, server)
    }
}

/// The same against a fresh `ScriptedServer` with no routes yet (TLS with `tls`).
func withClientAndServer(
    configure: (inout HTTPClientConfiguration) -> Void = { _ in },
    tls: ServerTLS? = nil,
    backlog: Int32 = 1024,
    _ body: (HTTPClient, ScriptedServer) throws -> Void
) throws {
    try withClientAndServer(configure: configure, serving: try ScriptedServer(tls: tls, backlog: backlog), body)
}

extension ScriptedServer {
    /// Serves `path` with a 200 whose body is `body`, as it is, labelled `Content-Encoding: coding`.
    func routeEncoded(_ path: String, coding: String, body: [UInt8]) {
        route(path) { _, connection in try connection.respond(headers: [("Content-Encoding", coding)], body: body) }
    }
}

/// Starts `request` with a fresh recording delegate and waits for it to end.
@discardableResult
func run(_ client: HTTPClient, _ request: HTTPClientRequest, seconds: Int = 20, sourceLocation: SourceLocation = #_sourceLocation) -> RecordingDelegate {
    let delegate = RecordingDelegate()
    client.execute(request, delegate: delegate)
    let ended = delegate.wait(seconds: seconds)
    #expect(ended, "the request did not end within \(seconds) s", sourceLocation: sourceLocation)
    return delegate
}

func get(_ url: String) throws -> HTTPClientRequest {
    try HTTPClientRequest(method: .GET, url: url)
}
