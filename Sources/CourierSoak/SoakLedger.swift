import CourierCore
import Synchronization

/// How one request ended, as the driver saw it.
enum SoakResult: Sendable {
    /// A whole response: its status and decoded body length.
    case complete(status: Int, length: Int)
    /// A typed failure: the error's code and phase, and its description.
    case failed(code: String, phase: String, description: String)

    /// The name failures are matched on: the error code, or `status 502` for a status other than 200.
    var kind: String {
        switch self {
        case .complete(let status, _): "status \(status)"
        case .failed(let code, _, _): code
        }
    }
}

/// One request that did not end with a whole 200 response of the expected length. Compact (no
/// URL, no description; the id and the code's name need no allocation of their own), so that
/// keeping a run's failures for matching barely moves the RSS curve.
struct SoakFailure: Sendable {
    var id: String
    var target: SoakTarget
    var upstreamFault: UpstreamFault?
    /// ``SoakResult/kind``: an error code or `status N`.
    var kind: String
    /// A 200 whose body had another length than the file or upstream sent.
    var wrongLength: Bool
}

/// Everything a phase counted, shared by its workers (one lock; a worker holds it for a few
/// counter updates per request).
final class SoakLedger: Sendable {
    struct Counts: Sendable {
        var requests = 0
        var succeeded = 0
        var failed = 0
        /// Requests that ran on a reused connection, and requests the one safe retry re-sent.
        var reused = 0
        var retried = 0
    }

    struct State: Sendable {
        var byTarget: [SoakTarget: Counts] = [:]
        var failures: [SoakFailure] = []
        var failuresDropped = 0
        /// The descriptions of the first few failures, by request id, for the report.
        var details: [String: String] = [:]
        var byKind: [String: Int] = [:]
        var longest = TimeAmount.zero
        var overdue: [(id: String, milliseconds: Int64, result: String)] = []
        var overdueCount = 0
    }

    /// Failures kept for matching (the rest are counted; a healthy run has a few percent).
    static let failureLimit = 200_000
    static let detailLimit = 1_000

    let deadline: TimeAmount
    let slack: TimeAmount
    private let state = Mutex(State())
    private let completedCount = Atomic<Int>(0)

    /// Requests ended so far (cheap: for progress lines).
    var completed: Int { completedCount.load(ordering: .relaxed) }

    init(deadline: TimeAmount, slack: TimeAmount) {
        self.deadline = deadline
        self.slack = slack
    }

    func record(_ planned: PlannedRequest, _ result: SoakResult, elapsed: TimeAmount, reused: Bool, retried: Bool) {
        completedCount.add(1, ordering: .relaxed)
        let ok = if case .complete(200, planned.expectedLength) = result { true } else { false }
        state.withLock { state in
            state.byTarget[planned.target, default: Counts()].requests += 1
            if ok {
                state.byTarget[planned.target]?.succeeded += 1
            } else {
                state.byTarget[planned.target]?.failed += 1
                state.byKind[Self.kindWithPhase(result), default: 0] += 1
                if state.failures.count < Self.failureLimit {
                    let wrongLength = if case .complete(200, _) = result { true } else { false }
                    state.failures.append(SoakFailure(
                        id: planned.id, target: planned.target, upstreamFault: planned.upstreamFault, kind: result.kind,
                        wrongLength: wrongLength))
                    if state.details.count < Self.detailLimit { state.details[planned.id] = "\(result)" }
                } else {
                    state.failuresDropped += 1
                }
            }
            if reused { state.byTarget[planned.target]?.reused += 1 }
            if retried { state.byTarget[planned.target]?.retried += 1 }
            if elapsed > state.longest { state.longest = elapsed }
            if elapsed.nanoseconds > deadline.nanoseconds + slack.nanoseconds {
                state.overdueCount += 1
                if state.overdue.count < 20 {
                    state.overdue.append((planned.id, elapsed.nanoseconds / 1_000_000, "\(result)"))
                }
            }
        }
    }

    var snapshot: State { state.withLock { $0 } }

    /// `code (phase)` for errors, `status N` for other statuses, or a wrong-length 200.
    static func kindWithPhase(_ result: SoakResult) -> String {
        switch result {
        case .complete(let status, _) where status == 200: "200 with a wrong body length"
        case .complete(let status, _): "status \(status)"
        case .failed(let code, let phase, _): "\(code) (\(phase))"
        }
    }
}
