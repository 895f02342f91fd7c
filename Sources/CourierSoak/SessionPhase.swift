import Courier
import CourierClient
import Dispatch
import FoundationEssentials

/// Runs the `SessionManager` phase: data tasks, each bounded by the session's resource timeout
/// (`timeoutIntervalForResource`, which becomes each request's total timeout).
func runSessionPhase(_ options: SoakOptions, plan: SoakPlan) -> PhaseReport {
    PhaseReport.measure(name: "SessionManager", options: options) { ledger in
        var configuration = SessionConfiguration()
        configuration.client = soakClientConfiguration(options)
        configuration.timeoutIntervalForResource = Double(options.deadlineMilliseconds) / 1000
        let manager: SessionManager
        do { manager = try SessionManager(configuration: configuration) } catch {
            SoakOptions.fail("cannot start the session: \(error)")
        }
        let runner = PhaseRunner(
            plan: plan, prefix: "s", total: options.sessionRequests, concurrency: options.concurrency,
            probes: options.probes, ledger: ledger
        ) { planned, done in
            guard let url = URL(string: planned.url) else {
                done(SentResult(result: .failed(code: "invalidURL", phase: "soak", description: planned.url), reused: false, retried: false))
                return
            }
            manager.dataTask(with: Request(url: url, timeoutInterval: 10)) { response in
                let transactions = response.metrics?.transactionMetrics ?? []
                let reused = transactions.last?.reusedConnection ?? false
                let retried = transactions.contains { $0.retried }
                if let error = response.error {
                    done(SentResult(result: sessionFailure(error), reused: reused, retried: retried))
                } else {
                    let result = SoakResult.complete(status: response.response?.statusCode ?? 0, length: response.data?.count ?? 0)
                    done(SentResult(result: result, reused: reused, retried: retried))
                }
            }.resume()
        }
        let duration = runner.run()
        let invalidated = DispatchSemaphore(value: 0)
        manager.updateHooks { $0.sessionDidBecomeInvalid = { _ in invalidated.signal() } }
        manager.invalidate(cancelingTasks: true)
        invalidated.wait()
        return duration
    }
}

/// A task's error as the transport's code and phase when the transport failed (the resource
/// timeout counts as the transport's total timeout), else the session's own.
func sessionFailure(_ error: CourierError) -> SoakResult {
    if error.code == .transport, let cause = error.underlying as? ClientError {
        return .failed(code: cause.code.name, phase: cause.phase.rawValue, description: "\(error)")
    }
    let code = error.code == .resourceTimeout ? "totalTimeout" : error.code.name
    return .failed(code: code, phase: error.phase.rawValue, description: "\(error)")
}
