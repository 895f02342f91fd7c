import CourierClient
import CourierCore
import CourierHTTP1

/// The transport settings both phases share: one connection per request in flight at most per
/// target, a pool idle timeout (30 s) well above the servers' keep-alive timeouts (1-2 s), so the
/// servers close idle connections first; every request's total deadline.
func soakClientConfiguration(_ options: SoakOptions) -> HTTPClientConfiguration {
    var configuration = HTTPClientConfiguration()
    configuration.maximumConnectionsPerHost = options.concurrency
    configuration.idleConnectionTimeout = .seconds(30)
    configuration.timeouts = soakTimeouts(options)
    return configuration
}

/// Connect and total limited by the deadline; the idle read timeout is longer, so a stalled
/// server ends in `totalTimeout`.
func soakTimeouts(_ options: SoakOptions) -> HTTPClientTimeouts {
    let deadline = TimeAmount.milliseconds(Int64(options.deadlineMilliseconds))
    return HTTPClientTimeouts(connect: deadline, tlsHandshake: deadline, idleRead: .seconds(10), total: deadline)
}

/// Runs the `HTTPClient` phase: every request with its own total timeout
/// (`HTTPClientRequest.timeouts`), through a delegate that counts the body.
func runClientPhase(_ options: SoakOptions, plan: SoakPlan) -> PhaseReport {
    PhaseReport.measure(name: "HTTPClient", options: options) { ledger in
        let client: HTTPClient
        do { client = try HTTPClient(configuration: soakClientConfiguration(options)) } catch {
            SoakOptions.fail("cannot start the client: \(error)")
        }
        let timeouts = soakTimeouts(options)
        let runner = PhaseRunner(
            plan: plan, prefix: "c", total: options.requests, concurrency: options.concurrency,
            probes: options.probes, ledger: ledger
        ) { planned, done in
            var request: HTTPClientRequest
            do { request = try HTTPClientRequest(method: .GET, url: planned.url) } catch {
                done(SentResult(result: .failed(code: "invalidURL", phase: "soak", description: "\(error)"), reused: false, retried: false))
                return
            }
            request.timeouts = timeouts
            client.execute(request, delegate: CountingDelegate(done))
        }
        let duration = runner.run()
        client.shutdown()
        return duration
    }
}

/// Counts the body and reports how the request ended, once.
final class CountingDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the client calls a delegate one call at a time, from its loops.
    private var status = 0
    private var length = 0
    private let done: @Sendable (SentResult) -> Void

    init(_ done: @escaping @Sendable (SentResult) -> Void) { self.done = done }

    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) { status = head.status }

    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        length += part.readableBytes
        return .more
    }

    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        done(SentResult(result: .complete(status: status, length: length), reused: metrics.reusedConnection, retried: metrics.retried))
    }

    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        done(SentResult(
            result: .failed(code: error.code.name, phase: error.phase.rawValue, description: "\(error)"),
            reused: metrics.reusedConnection, retried: metrics.retried))
    }
}
