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
) -> (HTTPClientTask, RecordingDelegate) {
    let delegate = RecordingDelegate()
    setUp(delegate)
    let task = client.execute(request, delegate: delegate)
    return (task, delegate)
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

/// A request with per-request timeouts.
func get(_ url: String, timeouts: HTTPClientTimeouts) throws -> HTTPClientRequest {
    var request = try get(url)
    request.timeouts = timeouts
    return request
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
