import CourierCore
import CourierTestSupport
import Dispatch
import Synchronization

/// How one request ended, with what the transport's metrics say about the connection.
struct SentResult: Sendable {
    var result: SoakResult
    var reused: Bool
    var retried: Bool
}

/// Starts one planned request and calls back once when it ended (from any thread).
typealias SoakSend = @Sendable (PlannedRequest, @escaping @Sendable (SentResult) -> Void) -> Void

/// One phase of the soak: `concurrency` workers that each keep one request in flight until
/// `total` requests were made, and idle-close probes beside them until the workers are done.
/// The same for `HTTPClient` and `SessionManager`; only `send` differs.
final class PhaseRunner: Sendable {
    let plan: SoakPlan
    /// `c` or `s`: request ids are unique across phases (the fault logs are shared).
    let prefix: String
    let total: Int
    let concurrency: Int
    let probes: Int
    let ledger: SoakLedger
    private let send: SoakSend
    private let nextNumber = Atomic<Int>(0)
    private let nextProbe = Atomic<Int>(0)
    private let workersOver = Atomic<Bool>(false)
    private let workersDone = DispatchSemaphore(value: 0)
    private let probesDone = DispatchSemaphore(value: 0)

    init(plan: SoakPlan, prefix: String, total: Int, concurrency: Int, probes: Int, ledger: SoakLedger, send: @escaping SoakSend) {
        self.plan = plan
        self.prefix = prefix
        self.total = total
        self.concurrency = concurrency
        self.probes = probes
        self.ledger = ledger
        self.send = send
    }

    /// Runs the phase to its end; returns its duration.
    func run() -> TimeAmount {
        let start = Deadline.now()
        let workers = min(concurrency, total)
        for _ in 0..<workers { work() }
        for index in 0..<probes { probe(index) }
        for _ in 0..<workers { workersDone.wait() }
        workersOver.store(true, ordering: .sequentiallyConsistent)
        for _ in 0..<probes { probesDone.wait() }
        return Deadline.now() - start
    }

    /// Takes the next request number and sends it; at the end, reports the worker done.
    private func work() {
        let number = nextNumber.add(1, ordering: .relaxed).oldValue
        guard number < total else { workersDone.signal(); return }
        perform(plan.request(number, prefix: prefix)) { [self] in work() }
    }

    /// A probe: a request to the idle-close server, then a pause around that server's 1 s
    /// keep-alive timeout (0.985-1.015 s), so its next request often races the server's idle
    /// close: sent just before it (reused), or just after it (the EOF is seen while the
    /// connection is parked, or the request meets it and takes the one safe retry).
    private func probe(_ index: Int) {
        guard !workersOver.load(ordering: .sequentiallyConsistent) else { probesDone.signal(); return }
        let number = nextProbe.add(1, ordering: .relaxed).oldValue
        var random = SplitMix64(seed: plan.seed &+ UInt64(number))
        let pause = 985 + Int(random.next() % 31)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(pause)) { [self] in
            perform(plan.probe(number, slot: index, prefix: prefix)) { [self] in probe(index) }
        }
    }

    private func perform(_ planned: PlannedRequest, then next: @escaping @Sendable () -> Void) {
        let started = Deadline.now()
        send(planned) { [ledger] sent in
            ledger.record(planned, sent.result, elapsed: Deadline.now() - started, reused: sent.reused, retried: sent.retried)
            next()
        }
    }
}
