import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials
import Synchronization

/// One task of a ``SessionManager`` (`NSURLSessionTask`): created suspended, started by
/// ``resume()``. ``suspend()`` stops reading the response from the socket (backpressure; the
/// task does not buffer), ``resume()`` continues, ``cancel()`` ends it with a cancellation error.
///
/// `@unchecked Sendable` (a non-final class): every mutable member lives in `core`, a `Mutex`;
/// the subclasses add no stored state.
public class SessionTask: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// `NSURLSessionTaskState`.
    public enum State: Sendable, Hashable {
        case running, suspended, canceling, completed
    }

    enum Kind: Sendable, Hashable {
        case data, upload, download
    }

    private static let identifiers = Atomic<Int>(0)

    /// Unique within the process (and so within its session).
    public let taskIdentifier: Int
    let kind: Kind
    /// The request as created.
    public let originalRequest: Request
    /// Progress of the request body; its total is the body's length (-1 for a stream of unknown length).
    public private(set) var uploadProgress: TaskProgress!
    /// Progress of the response body; its total is -1 when the decoded size is unknown (chunked, gzip).
    public private(set) var downloadProgress: TaskProgress!

    let manager: SessionManager
    let core: Mutex<TaskCore>
    /// Taken (and so released) when the task ends: a completion closure that captures its own
    /// task would otherwise keep the task, its session and the session's event loops alive for
    /// ever (AFNetworking drops its task delegate, and the blocks, the same way).
    private let finisherSlot: Mutex<TaskFinisher?>
    /// Set for download tasks.
    let download: DownloadPlan?
    var uploadReporter: ProgressReporter?
    var downloadReporter: ProgressReporter?

    init(manager: SessionManager, kind: Kind, request: Request, finisher: @escaping TaskFinisher, download: DownloadPlan? = nil) {
        self.taskIdentifier = Self.identifiers.add(1, ordering: .relaxed).newValue
        self.kind = kind
        self.originalRequest = request
        self.manager = manager
        self.finisherSlot = Mutex(finisher)
        self.download = download
        self.core = Mutex(TaskCore(currentRequest: request))
        self.uploadProgress = TaskProgress(task: self)
        self.downloadProgress = TaskProgress(task: self)
        _ = uploadProgress.update { $0.totalUnitCount = request.body?.length ?? (request.body == nil ? 0 : -1) }
    }

    /// The finisher, once: later calls return nil.
    func takeFinisher() -> TaskFinisher? {
        finisherSlot.withLock { slot in
            defer { slot = nil }
            return slot
        }
    }

    // MARK: Observation

    public var state: State { core.withLock { $0.state } }
    /// The request being made now (after redirects and authentication retries).
    public var currentRequest: Request { core.withLock { $0.currentRequest } }
    /// The final response head, once it arrived.
    public var response: Response? { core.withLock { $0.response } }
    /// Why the task failed, once it completed.
    public var error: CourierError? { core.withLock { $0.error } }
    /// The metrics, once the task completed.
    public var metrics: TaskMetrics? { core.withLock { $0.metrics } }
    public var countOfBytesReceived: Int64 { downloadProgress.completedUnitCount }
    public var countOfBytesSent: Int64 { uploadProgress.completedUnitCount }
    /// A description the caller may set.
    public var taskDescription: String? {
        get { core.withLock { $0.taskDescription } }
        set { core.withLock { $0.taskDescription = newValue } }
    }

    public var description: String {
        "\(kind)Task #\(taskIdentifier) \(originalRequest.method) \(originalRequest.url.redactedForDisplay) (\(state))"
    }

    public static func == (lhs: SessionTask, rhs: SessionTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Control

    /// Starts the task, or continues reading after ``suspend()``.
    public func resume() {
        enum Action { case none, start, resumed(HTTPClientTask?) }
        let action = core.withLock { core -> Action in
            guard core.state == .suspended else { return .none }
            core.state = .running
            guard core.started else {
                core.started = true
                core.startDate = Date()
                core.deadline = manager.deadline(for: originalRequest, startingAt: .now())
                return .start
            }
            if core.readingPaused, !core.awaitingDecision, !core.sinkBusy, !core.replaying, let client = core.clientTask {
                core.readingPaused = false
                return .resumed(client)
            }
            return .resumed(nil)
        }
        switch action {
        case .none:
            return
        case .start:
            manager.publishLater(.taskResumed(self))
            start()
        case .resumed(let client):
            manager.publishLater(.taskResumed(self))
            client?.resumeReading()
        }
    }

    /// Stops reading the response: the socket is no longer read, so the server is slowed down by
    /// TCP flow control and nothing accumulates here. A task that has not started stays unstarted.
    public func suspend() {
        let changed = core.withLock { core -> Bool in
            guard core.state == .running else { return false }
            core.state = .suspended
            return true
        }
        if changed { manager.publishLater(.taskSuspended(self)) }
    }

    /// Cancels the task in whatever phase it is; it completes with ``CourierError/Code/cancelled``.
    public func cancel() {
        cancel(with: CourierError(.cancelled, failingURL: originalRequest.url))
    }

    func cancel(with error: CourierError) {
        enum Action { case none, cancelClient(HTTPClientTask), complete }
        let action = core.withLock { core -> Action in
            guard !core.completed, core.state != .canceling, !core.finishing else { return .none }
            core.state = .canceling
            core.cancellation = error
            if let client = core.clientTask { return .cancelClient(client) }
            // Launching: the launcher sees `.canceling` and cancels what it launched.
            return core.launching ? .none : .complete
        }
        switch action {
        case .none: return
        case .cancelClient(let client): client.cancel()
        case .complete: complete(.failure(error))
        }
    }
}

/// A task's mutable state, guarded by ``SessionTask/core``.
struct TaskCore {
    var state: SessionTask.State = .suspended
    var started = false
    var completed = false
    /// When the task started, for its metrics (wall clock, as NSURLSessionTaskMetrics).
    var startDate: Date?
    /// When the task must have ended (monotonic): the sooner of the request's
    /// `totalTimeoutInterval` and the session's `timeoutIntervalForResource`, from `resume()`.
    var deadline: Deadline?
    var taskDescription: String?
    var currentRequest: Request
    var response: Response?
    var error: CourierError?
    var metrics: TaskMetrics?
    var cancellation: CourierError?

    // The running attempt (one HTTP request of the task).
    var clientTask: HTTPClientTask?
    var launching = false
    var attempt = 0
    var mode: AttemptMode = .awaitingHead
    /// A body part held while a hook decides what to do with the response (at most one: reading
    /// pauses as soon as it arrives).
    var heldPart: ByteBuffer?
    /// The attempt ended while a hook was deciding.
    var heldFinish = false
    /// We returned `.pause` to the transport and owe it a `resumeReading()`.
    var readingPaused = false
    /// The download sink asked to stop reading until it drains.
    var sinkBusy = false
    /// A held body part is being consumed after a hook's decision: nobody else resumes reading.
    var replaying = false
    /// The download's body is complete and its file is being finished: too late to cancel.
    var finishing = false

    // Across attempts.
    var transactions: [HTTPClientMetrics] = []
    var history: [RedirectVisit] = []
    var redirectCount = 0
    var authenticationFailures = 0
    var body = Data()
    var bodyBytes: Int64 = 0
    var sink: DownloadSink?
    /// Bytes already in the download file before this attempt (a resumed download).
    var resumeOffset: Int64 = 0
    var validator: String?
    var resumeData: Data?
    /// A problem found when the task was created, reported when it is resumed.
    var preflightError: CourierError?
    var resumeDataHandlers: [@Sendable (Data?) -> Void] = []
    var completionDelivered = false

    var awaitingDecision: Bool { if case .deciding = mode { true } else { false } }
}

/// What the current attempt does with its response.
enum AttemptMode {
    /// No head yet.
    case awaitingHead
    /// A hook is deciding (redirect, challenge, disposition): hold the body.
    case deciding
    /// Read and drop the body, then make `next`.
    case discard(then: Request)
    /// The response is the task's: deliver the body.
    case deliver
}
