#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS
import CourierTestSupport
import Dispatch
import Synchronization
import Testing

// Helpers for the pool, keep-alive, timeout, cancellation, failure-mode, retry, backpressure and
// metrics suites.

/// Starts `request` with a fresh recording delegate (configured by `setUp`) and returns at once.
func start(
    _ client: HTTPClient, _ request: HTTPClientRequest, setUp: (RecordingDelegate) -> Void = { _ in }
) -> (HTTPRequestExecution, RecordingDelegate) {
    let delegate = RecordingDelegate()
    setUp(delegate)
    let execution = client.execute(request, delegate: delegate)
    return (execution, delegate)
}

/// Waits until every job already queued on the client's loops has run (three rounds, so work
/// that hops from one loop to another is covered too). After this, a delegate call that was
/// going to happen because of an earlier input has happened.
func settle(_ client: HTTPClient) {
    for _ in 0..<3 {
        for loop in client.eventLoopGroup.loops {
            let done = DispatchSemaphore(value: 0)
            loop.execute { done.signal() }
            done.wait()
        }
    }
}

/// Where server handlers wait for the test: `arrived` is signalled when a handler gets there, and
/// it stays until ``release()``, or until the server shuts down at the end of the test (every
/// `ServerConnection` wait ends then).
final class Hold: Sendable {
    let arrived = TestEvent()
    private let released = TestEvent()

    /// In a handler: signals `arrived`, then waits for ``release()``.
    func wait(_ connection: ServerConnection) throws {
        arrived.signal()
        try connection.stall(until: released)
    }

    func release() { released.signal() }
}

extension ScriptedServer {
    /// Serves `path` with a handler that waits at the returned hold, then runs `then`.
    func holdingRoute(_ path: String, then: @escaping @Sendable (ServerConnection) throws -> Void = { _ in }) -> Hold {
        let hold = Hold()
        route(path) { _, connection in
            try hold.wait(connection)
            try then(connection)
        }
        return hold
    }

    /// Makes every new connection wait at the returned hold before anything else (for TLS: before
    /// the handshake, so the ClientHello is not answered).
    func holdingAccepts() -> Hold {
        let hold = Hold()
        onAccept { connection in try hold.wait(connection) }
        return hold
    }
}

extension ScriptedServer {
    /// Serves `path` by sending `bytes` exactly as given and closing the connection (FIN).
    func routeClosing(_ path: String, after bytes: String) {
        route(path) { _, connection in
            try connection.send(bytes)
            connection.close()
        }
    }

    /// Serves `path` with a 200 whose body is `body(request)`, except for the second request on a
    /// connection: that one is read, and the connection closed without a byte of response (what a
    /// client sees when a kept-alive connection went stale under its request).
    func routeClosingAtSecondRequest(_ path: String, body: @escaping @Sendable (RecordedRequest) -> String) {
        route(path) { request, connection in
            if request.indexOnConnection == 1 {
                connection.close()
                return
            }
            try connection.respond(status: 200, body: body(request))
        }
    }
}

/// A request that occupies a connection: its handler at `/hold` waits until ``finish()``.
struct HeldRequest {
    let hold: Hold
    let delegate: RecordingDelegate

    /// Starts a GET of `/hold` on `server` and returns once the server has it.
    init(_ client: HTTPClient, _ server: ScriptedServer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        hold = server.holdingRoute("/hold") { connection in try connection.respond(status: 200, body: "held") }
        (_, delegate) = start(client, try get("\(server.baseURL)/hold"))
        #expect(hold.arrived.wait(), sourceLocation: sourceLocation)
    }

    /// Lets the handler answer, and checks that the request then finished with its body.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        hold.release()
        #expect(delegate.wait(), sourceLocation: sourceLocation)
        #expect(delegate.bodyString == "held", sourceLocation: sourceLocation)
    }
}

extension RecordingDelegate {
    /// How many of `didFinish` / `didFail` were called (must be exactly one).
    var endCount: Int {
        events.filter {
            switch $0 {
            case .finished, .failed: true
            default: false
            }
        }.count
    }

    /// Total body bytes delivered, from the events.
    var bodyPartCount: Int {
        events.filter { if case .body = $0 { true } else { false } }.count
    }
}

/// A request with per-request timeouts (nil: the client's).
func get(_ url: String, timeouts: HTTPClientTimeouts?) throws -> HTTPClientRequest {
    var request = try get(url)
    if let timeouts { request.timeouts = timeouts }
    return request
}

/// Runs `request` (see ``run(_:_:seconds:sourceLocation:)``) and also returns how long it took to end.
func timedRun(
    _ client: HTTPClient, _ request: HTTPClientRequest, sourceLocation: SourceLocation = #_sourceLocation
) -> (RecordingDelegate, elapsed: Duration) {
    let started = ContinuousClock.now
    let delegate = run(client, request, sourceLocation: sourceLocation)
    return (delegate, ContinuousClock.now - started)
}

/// Expects the server to see every connection closed within 5 s, and the client to hold none
/// once its loops have settled.
func expectAllConnectionsClosed(
    _ client: HTTPClient, _ server: ScriptedServer, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(server.waitForAllConnectionsClosed(timeout: .seconds(5)), sourceLocation: sourceLocation)
    settle(client)
    #expect(client.openConnectionCount == 0, sourceLocation: sourceLocation)
}

/// The client TLS settings that trust the test CA.
var testTLS: TLSConfiguration {
    var tls = TLSConfiguration()
    tls.trustRoots = [.file(TestCertificates.path("ca.pem"))]
    return tls
}

/// Makes TCP connects to a loopback port hang: with the server not accepting, a few
/// connections fill its accept queue (backlog 1 → 2 queued), and from then on Linux drops the
/// SYNs of further attempts, so their `connect` neither succeeds nor fails.
///
/// Returns nil when the kernel does not behave like that (the attempt completed anyway).
final class AcceptQueueFiller {
    private var fds: [Int32] = []

    init?(port: Int) {
        // At most a handful: the queue of a backlog-1 listener holds two.
        for _ in 0..<8 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { close(); return nil }
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(port).bigEndian
            sin.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            let rc = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if rc != 0 && errno != EINPROGRESS {
                Glibc.close(fd)
                close()
                return nil
            }
            // Completed (queued by the kernel) within 200 ms, or hanging?
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&pfd, 1, 200)
            if ready == 0 {
                // This attempt hangs: the queue is full. Further connects will hang too.
                Glibc.close(fd)
                return
            }
            fds.append(fd)
        }
        close()
        return nil
    }

    /// Closes the queued connections.
    func close() {
        for fd in fds { Glibc.close(fd) }
        fds.removeAll()
    }

    deinit { close() }
}

/// Whether `address` is a loopback address (127.0.0.0/8 or ::1).
func isLoopback(_ address: SocketAddress?) -> Bool {
    guard let address else { return false }
    return address.host.hasPrefix("127.") || address.host == "::1"
}

/// The query of a recorded request's target ("" when none).
func query(of request: RecordedRequest) -> String {
    guard let mark = request.target.firstIndex(of: "?") else { return "" }
    return String(request.target[request.target.index(after: mark)...])
}

/// CPU time the client's loop threads have used so far (each loop reads its own thread clock).
func loopCPUTime(_ client: HTTPClient) -> Duration {
    var total = Duration.zero
    for loop in client.eventLoopGroup.loops {
        let result = Mutex(Duration.zero)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            result.withLock { $0 = .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec) }
            done.signal()
        }
        done.wait()
        total += result.withLock { $0 }
    }
    return total
}
