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
    /// (The handle is made when first asked for; it starts from what was counted before.)
    public var uploadProgress: TaskProgress! { core.withLock { $0.upload.handle(for: self) } }
    /// Progress of the response body; its total is -1 when the decoded size is unknown (chunked, gzip).
    public var downloadProgress: TaskProgress! { core.withLock { $0.download.handle(for: self) } }

    let manager: SessionManager
    let core: Mutex<TaskCore>
    /// Taken (and so released) when the task ends: a completion closure that captures its own
    /// task would otherwise keep the task, its session and the session's event loops alive for
    /// ever (AFNetworking drops its task delegate, and the blocks, the same way).
    private let completionSlot: Mutex<TaskCompletion.Route?>
    /// Set for download tasks.
    let download: DownloadPlan?
    /// A problem found when the task was created, reported when it is resumed.
    let preflightError: CourierError?
    /// Set when someone may listen to the progress (a handler, or a hook for uploads with a body
    /// and for downloads); then the progress goes through them, else only into `core`.
    var uploadReporter: ProgressReporter?
    var downloadReporter: ProgressReporter?
    /// The request's and the session's interceptors as one, the request's first (nil: neither
    /// is set; the task then adapts nothing and retries nothing, at no cost).
    let interceptor: (any RequestInterceptor)?
    /// The interceptor may change requests: each attempt then waits for its adapter.
    let adapts: Bool

    init(
        manager: SessionManager, kind: Kind, request: Request, completion: TaskCompletion.Route, download: DownloadPlan? = nil,
        resumeOffset: Int64 = 0, preflightError: CourierError? = nil
    ) {
        self.taskIdentifier = Self.identifiers.add(1, ordering: .relaxed).newValue
        self.kind = kind
        self.originalRequest = request
        self.manager = manager
        self.completionSlot = Mutex(completion)
        self.download = download
        self.preflightError = preflightError
        let interceptor: (any RequestInterceptor)?
        if let own = request.interceptor {
            interceptor = Interceptor.combining(own, manager.configuration.interceptor)
            self.adapts = manager.interceptorAdapts || Interceptor.adapts(own)
        } else {
            interceptor = manager.configuration.interceptor
            self.adapts = manager.interceptorAdapts
        }
        self.interceptor = interceptor
        var upload = ProgressSlot.empty
        upload.update { $0.totalUnitCount = request.body?.length ?? (request.body == nil ? 0 : -1) }
        self.core = Mutex(TaskCore(machine: TaskStateMachine(
            request: request, kind: kind, bodyLimit: manager.configuration.maximumInMemoryBodySize,
            downloadPath: download?.temporaryPath, resumeOffset: resumeOffset, asksRetrier: interceptor != nil,
            retainsBody: manager.configuration.retainsDataTaskBodies), upload: upload))
    }

    /// The completion route, once: later calls return nil.
    func takeCompletionRoute() -> TaskCompletion.Route? {
        completionSlot.withLock { slot in
            defer { slot = nil }
            return slot
        }
    }

    // MARK: Observation

    public var state: State { core.withLock { $0.machine.state } }
    /// The request being made now (after redirects and authentication retries).
    public var currentRequest: Request { core.withLock { $0.machine.currentRequest } }
    /// The final response head, once it arrived.
    public var response: Response? { core.withLock { $0.machine.response } }
    /// Why the task failed, once it completed.
    public var error: CourierError? { core.withLock { $0.error ?? $0.machine.error } }
    /// The metrics, once the task completed.
    public var metrics: TaskMetrics? { core.withLock { $0.machine.metrics } }
    public var countOfBytesReceived: Int64 { core.withLock { $0.download.snapshot.completedUnitCount } }
    public var countOfBytesSent: Int64 { core.withLock { $0.upload.snapshot.completedUnitCount } }
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
        run(core.withLock { $0.machine.resume(deadline: manager.deadline(for: originalRequest, startingAt: .now())) })
    }

    /// Stops reading the response: the socket is no longer read, so the server is slowed down by
    /// TCP flow control and nothing accumulates here. A task that has not started stays unstarted.
    public func suspend() {
        run(core.withLock { $0.machine.suspend() })
    }

    /// Cancels the task in whatever phase it is; it completes with ``CourierError/Code/cancelled``.
    public func cancel() {
        let (actions, took) = core.withLock { core in
            let before = core.machine.state
            let actions = core.machine.cancel()
            // In effect when it moved a task that had not ended towards its end.
            return (actions, before != .canceling && before != .completed && core.machine.state != before)
        }
        if took { manager.report(.cancelled) { .cancelled(self) } }
        run(actions)
        if interceptor != nil { endInterception() }
    }

    /// Ends the task with `error` as a cancellation does (the download file failed).
    func cancel(with error: CourierError) {
        run(core.withLock { $0.machine.cancel(error) })
        if interceptor != nil { endInterception() }
    }
}

/// A task's mutable state, guarded by ``SessionTask/core``: its state machine, and what the
/// handle keeps beside it.
struct TaskCore {
    var machine: TaskStateMachine<HTTPRequestExecution, DownloadSink>
    var taskDescription: String?
    /// A serializer's error, once the completion ran (it replaces the transport's nil).
    var error: CourierError?
    var resumeDataHandlers: [@Sendable (Data?) -> Void] = []
    var completionDelivered = false
    /// The progress of both directions (``ProgressSlot``).
    var upload: ProgressSlot
    var download = ProgressSlot.empty
    /// The interceptor's work in progress — adapting, asking the retrier, a retry's delay — which
    /// a cancel ends (``SessionTask/intercept(_:)``).
    var interception: Task<Void, Never>?
    var interceptionNumber = 0

    init(machine: TaskStateMachine<HTTPRequestExecution, DownloadSink>, upload: ProgressSlot) {
        self.machine = machine
        self.upload = upload
    }
}
