import ClientBenchSupport
import Courier
import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The `async` API's cost: `concurrency` Swift tasks, each awaiting one
/// `HTTPSessionManager.send(.GET, …)` after another (the body validated by
/// `HTTPResponseSerializer`, returned as `Data`), until `requests` are done.
func runAsyncWorkers(configuration: SessionConfiguration, url: URL, options: DriverOptions) -> DriverReport {
    let manager: HTTPSessionManager
    do {
        manager = try HTTPSessionManager(configuration: configuration)
    } catch {
        writeStandardError("CourierSessionBench: \(error)\n")
        exit(1)
    }
    let target = url.absoluteString
    let serializer = HTTPResponseSerializer()
    let totals = AsyncTotals()
    let done = DispatchSemaphore(value: 0)
    let start = DispatchTime.now()
    Task {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<options.concurrency {
                let share = options.share(ofWorker: worker)
                group.addTask {
                    var (requests, bytes, errors) = (0, 0, 0)
                    for _ in 0..<share {
                        requests += 1
                        do {
                            let (data, response, _) = try await manager.send(.GET, target, serializer: serializer)
                            if response.statusCode == 200 { bytes += data.count } else { errors += 1 }
                        } catch {
                            errors += 1
                            if errors <= 3 { writeStandardError("CourierSessionBench: \(error)\n") }
                        }
                    }
                    totals.add(requests: requests, bytes: bytes, errors: errors)
                }
            }
        }
        done.signal()
    }
    done.wait()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    let invalid = DispatchSemaphore(value: 0)
    manager.session.updateHooks { $0.sessionDidBecomeInvalid = { _ in invalid.signal() } }
    manager.session.invalidate(cancelingTasks: true)
    invalid.wait()
    let result = totals.value
    return DriverReport(requests: result.requests, bytes: result.bytes, seconds: seconds, errors: result.errors)
}

/// The workers' counts, added once per worker.
final class AsyncTotals: Sendable {
    private let counts = Mutex((requests: 0, bytes: 0, errors: 0))

    func add(requests: Int, bytes: Int, errors: Int) {
        counts.withLock { $0.requests += requests; $0.bytes += bytes; $0.errors += errors }
    }

    var value: (requests: Int, bytes: Int, errors: Int) { counts.withLock { $0 } }
}
