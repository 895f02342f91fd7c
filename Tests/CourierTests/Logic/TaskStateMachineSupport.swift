@testable import Courier
@testable import CourierClient
import CourierCore
import FoundationEssentials

/// Stand-ins for the transport handle and the download sink: the state machine only passes
/// them back in its actions.
final class FakeTransport: Sendable {}
final class FakeSink: Sendable {}

typealias Machine = TaskStateMachine<FakeTransport, FakeSink>
typealias MachineAction = TaskAction<FakeTransport, FakeSink>
typealias MachineActions = TaskActions<FakeTransport, FakeSink>

/// Drives a machine into a named state and describes states and actions as short strings, so
/// the tests read as tables.
struct MachineFixture {
    static let url = URL(string: "http://example.test/a")!
    static let redirectURL = URL(string: "http://example.test/b")!

    var machine: Machine
    let transport = FakeTransport()
    let sink = FakeSink()
    let kind: SessionTask.Kind

    init(kind: SessionTask.Kind = .data, bodyLimit: Int = 1 << 20, retrier: Bool = false) {
        self.kind = kind
        machine = Machine(
            request: Request(url: Self.url), kind: kind, bodyLimit: bodyLimit,
            downloadPath: kind == .download ? "/nonexistent/partial" : nil, asksRetrier: retrier)
    }

    static func response(_ status: Int = 200, _ fields: [(String, String)] = []) -> Response {
        var headers = HTTPFields()
        for (name, value) in fields { try! headers.append(name: name, value: value) }
        return Response(url: url, statusCode: status, headers: headers)
    }

    static func metrics() -> HTTPClientMetrics { HTTPClientMetrics(fetchStart: .now()) }

    static func part(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    var attempt: Int { machine.attemptCount }

    // MARK: Reaching states

    /// Every state the machine can be in, by name.
    enum Named: String, CaseIterable, CustomStringConvertible {
        case idle, preparing, launching, awaitingHead, deciding, decidingHeld, discarding, delivering, paused
        case writingHeld, cancelingLaunching, canceling, finishing, completed, retrying
        var description: String { rawValue }
        /// Download-only states.
        var needsDownload: Bool { self == .writingHeld || self == .finishing }
        /// States of a task with a retrier.
        var needsRetrier: Bool { self == .retrying }
    }

    static func reach(_ state: Named) -> MachineFixture {
        var fixture = MachineFixture(kind: state.needsDownload ? .download : .data, retrier: state.needsRetrier)
        fixture.drive(to: state)
        return fixture
    }

    mutating func drive(to state: Named) {
        switch state {
        case .idle:
            break
        case .preparing:
            _ = machine.resume(deadline: nil)
        case .launching:
            drive(to: .preparing)
            _ = machine.launch(machine.currentRequest)
        case .awaitingHead:
            drive(to: .launching)
            _ = machine.launched(transport, attempt: attempt)
        case .deciding:
            drive(to: .awaitingHead)
            _ = machine.receivedHead(attempt: attempt, transport: transport)
        case .decidingHeld:
            drive(to: .deciding)
            _ = machine.receivedBodyPart(Self.part("held"), attempt: attempt, transport: transport)
        case .discarding:
            drive(to: .deciding)
            _ = machine.decided(.follow(Request(url: Self.redirectURL), .authentication), attempt: attempt)
        case .delivering:
            drive(to: .deciding)
            _ = machine.decided(.deliver(delivery()), attempt: attempt)
        case .paused:
            drive(to: .delivering)
            _ = machine.suspend()
            _ = machine.receivedBodyPart(Self.part("x"), attempt: attempt, transport: transport)
        case .writingHeld:
            drive(to: .decidingHeld)
            _ = machine.decided(.deliver(delivery()), attempt: attempt)
        case .cancelingLaunching:
            drive(to: .launching)
            _ = machine.cancel()
        case .canceling:
            drive(to: .awaitingHead)
            _ = machine.cancel()
        case .finishing:
            drive(to: .writingHeld)
            _ = machine.partWritten(busy: false, held: true, attempt: attempt)
            _ = machine.transportFinished(metrics: Self.metrics(), attempt: attempt)
        case .completed:
            drive(to: .delivering)
            _ = machine.transportFinished(metrics: Self.metrics(), attempt: attempt)
        case .retrying:
            drive(to: .awaitingHead)
            _ = machine.transportFailed(CourierError(.transport), metrics: Self.metrics(), attempt: attempt)
        }
    }

    func delivery(total: Int64 = 4) -> TaskDelivery<FakeSink> {
        TaskDelivery(response: Self.response(), sink: kind == .download ? sink : nil, resumeOffset: 0, total: total, validator: nil)
    }

    // MARK: Describing

    /// The machine's state as one of ``Named``'s names (or the state's own name).
    var stateName: String {
        switch machine.phase {
        case .idle: return "idle"
        case .preparing: return "preparing"
        case .retrying: return "retrying"
        case .canceling(_, nil): return "cancelingLaunching"
        case .canceling: return "canceling"
        case .finishing: return "finishing"
        case .completed: return "completed"
        case .running(let attempt):
            if case .launching = attempt.transport { return "launching" }
            switch attempt.step {
            case .awaitingHead: return "awaitingHead"
            case .deciding(nil): return "deciding"
            case .deciding: return "decidingHeld"
            case .discarding: return "discarding"
            case .servingStored: return "servingStored"
            case .delivering(writingHeld: true): return "writingHeld"
            case .delivering: return attempt.transportPaused ? "paused" : "delivering"
            }
        }
    }

    /// Actions as short names: `complete(cancelled)` names the error code.
    func names(_ actions: MachineActions) -> [String] {
        actions.map { action in
            switch action {
            case .publishResumed: "publishResumed"
            case .publishSuspended: "publishSuspended"
            case .prepare: "prepare"
            case .prepareAfter(let seconds): "prepareAfter(\(seconds))"
            case .askRetrier(let context): "askRetrier(\(context.retryCount),\(context.error.code))"
            case .resumeReading(let transport): transport === self.transport ? "resumeReading" : "resumeReading(other)"
            case .cancelTransport(let transport): transport === self.transport ? "cancelTransport" : "cancelTransport(other)"
            case .reportDownload(let completed): "report(\(completed))"
            case .announceDownload(let completed, let total): "announce(\(completed)/\(total))"
            case .forwardData: "forwardData"
            case .write(_, _, _, let held): held ? "writeHeld" : "write"
            case .finishDownload: "finishDownload"
            case .abandonSink: "abandonSink"
            case .complete(let ending):
                if let error = ending.outcome.error { "complete(\(error.code))" } else { "complete(ok)" }
            }
        }
    }
}
