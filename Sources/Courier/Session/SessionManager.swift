import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials
import Synchronization

/// AFNetworking's `AFURLSessionManager` on Courier's own transport: creates data, upload and
/// download tasks, keeps a registry of them, runs every hook and completion on
/// ``completionQueue``, and publishes lifecycle events.
///
/// Threading: the transport's event loops never run caller code. Serialization runs on a
/// concurrent queue of the session's own; hooks, progress and completions on `completionQueue`
/// (a serial queue owned by the manager unless one is given), each inside `completionGroup`
/// when one is set.
///
/// Lifetime: running tasks keep their manager alive. ``invalidate(cancelingTasks:)`` ends it:
/// new tasks fail, existing ones finish (or are cancelled), then the connections of a client
/// the manager created are closed and ``SessionHooks/sessionDidBecomeInvalid`` and
/// ``SessionEvent/sessionInvalidated(_:)`` are delivered. A manager that is released without
/// being invalidated closes its own client's connections then. A client the manager was given
/// (``HTTPClient/shared``, say) is never shut down by it.
public final class SessionManager: Sendable {
    public let configuration: SessionConfiguration
    /// Where hooks, progress and completions run.
    public let completionQueue: DispatchQueue
    /// Every completion runs inside this group when set (AFNetworking's `completionGroup`).
    public let completionGroup: DispatchGroup?
    /// Pinning and trust settings, per host. Changes apply to new connections.
    public let securityPolicies: SecurityPolicyTable

    /// The transport: the manager's own, or one it shares (``init(client:configuration:securityPolicy:completionQueue:completionGroup:)``).
    public let client: HTTPClient
    /// Whether the manager created ``client`` (and so shuts it down when invalidated).
    let ownsClient: Bool
    /// ``securityPolicies`` as the evaluator every `https` request of this manager carries: one
    /// object for the manager's lifetime, so its requests share connections with each other and
    /// with no other manager's.
    let trustEvaluator: SharedServerTrustEvaluator
    let serializationQueue = DispatchQueue(label: "courier.serialization", attributes: .concurrent)
    let eventHub = EventHub()
    /// The hooks, the event observers and the configuration's monitors (``report(_:onCompletionQueue:hooked:_:)``).
    let monitors: SessionMonitors
    /// Whether the configuration's interceptor may change requests (``Interceptor/adapts(_:)``),
    /// worked out once: tasks without an interceptor of their own take it as it is.
    let interceptorAdapts: Bool
    /// Digest nonces answered, their counts and credentials (RFC 7616 §3.4).
    let digestNonces = DigestNonces()
    private let conversion: RequestConversion
    private let state = Mutex(ManagerState())

    struct ManagerState {
        var tasks: [Int: WeakTask] = [:]
        var hooks = SessionHooks()
        var invalidated = false
        var invalidationDone = false
        /// Tasks that ended whose completion has not run yet.
        var pendingCompletions = 0
        var pruneAt = 64
    }

    /// Creates a session with its own event loops and connection pool.
    /// - Parameters:
    ///   - configuration: transport and session settings.
    ///   - securityPolicy: the default policy for every host (per-host ones can be added to
    ///     ``securityPolicies``).
    ///   - completionQueue: defaults to a serial queue owned by the manager (servers have no
    ///     main run loop, so AFNetworking's main-queue default does not apply).
    ///   - completionGroup: a group every completion runs in.
    public convenience init(
        configuration: SessionConfiguration = .default, securityPolicy: SecurityPolicy = .default,
        completionQueue: DispatchQueue? = nil, completionGroup: DispatchGroup? = nil
    ) throws(CourierError) {
        let policies = SecurityPolicyTable(default: securityPolicy)
        var clientConfiguration = configuration.client
        // The session's policies travel with each request (``convert(_:sameOriginAs:deadline:phase:)``);
        // as the client's default too, they also judge requests made on ``client`` directly.
        clientConfiguration.serverTrustEvaluator = policies.evaluator
        let client: HTTPClient
        do { client = try HTTPClient(configuration: clientConfiguration) } catch {
            throw CourierError(.transport, phase: .connect, underlying: error, detail: "could not start the event loops: \(error)")
        }
        self.init(
            client: client, ownsClient: true, configuration: configuration, securityPolicies: policies,
            completionQueue: completionQueue, completionGroup: completionGroup)
    }

    /// Creates a session on an existing client: its event loops and connection pool, shared
    /// with every other manager and caller of that client (``HTTPClient/shared`` for the common
    /// case). Requests of managers on one client reuse each other's connections, except over
    /// `https`, where each manager's connections are judged by its own ``securityPolicies``
    /// and kept apart from other managers' (the client's pool key includes the trust evaluator).
    ///
    /// The manager does not own the client: ``invalidate(cancelingTasks:)`` ends this manager's
    /// tasks and never shuts the client down (its owner does). The transport settings of
    /// `configuration.client` do not apply, as the client has its own: `configuration` gives
    /// the session's settings (additional headers, resource timeout, body limits, cache…).
    public convenience init(
        client: HTTPClient, configuration: SessionConfiguration = .default, securityPolicy: SecurityPolicy = .default,
        completionQueue: DispatchQueue? = nil, completionGroup: DispatchGroup? = nil
    ) {
        var configuration = configuration
        configuration.client = client.configuration
        self.init(
            client: client, ownsClient: false, configuration: configuration,
            securityPolicies: SecurityPolicyTable(default: securityPolicy),
            completionQueue: completionQueue, completionGroup: completionGroup)
    }

    private init(
        client: HTTPClient, ownsClient: Bool, configuration: SessionConfiguration, securityPolicies policies: SecurityPolicyTable,
        completionQueue: DispatchQueue?, completionGroup: DispatchGroup?
    ) {
        self.configuration = configuration
        self.interceptorAdapts = configuration.interceptor.map { Interceptor.adapts($0) } ?? false
        self.completionQueue = completionQueue ?? DispatchQueue(label: "courier.session.completion")
        self.completionGroup = completionGroup
        self.securityPolicies = policies
        self.trustEvaluator = SharedServerTrustEvaluator(policies.evaluator)
        self.client = client
        self.ownsClient = ownsClient
        self.conversion = RequestConversion(
            additionalHeaders: configuration.httpAdditionalHeaders, transportTimeouts: client.configuration.timeouts)
        let hooksMonitor = SessionHooksMonitor(queue: self.completionQueue)
        self.monitors = SessionMonitors(
            hooks: hooksMonitor, hub: EventHubMonitor(hub: eventHub, queue: self.completionQueue), user: configuration.eventMonitors,
            completionQueue: self.completionQueue)
        hooksMonitor.owner.manager = self
    }

    deinit {
        let (done, client) = (state.withLock { $0.invalidationDone }, self.client)
        // Not on the caller's thread: the last reference may be dropped on an event loop.
        if !done, ownsClient { DispatchQueue.global().async { client.shutdown() } }
    }

    // MARK: Hooks and events

    /// The hook closures (AFNetworking's `set…Block:` setters). Read when each event happens.
    public var hooks: SessionHooks {
        get { state.withLock { $0.hooks } }
        set { state.withLock { $0.hooks = newValue } }
    }

    /// One hook, read without copying the others (the per-body-part and per-progress paths).
    func hook<Hook: Sendable>(_ field: KeyPath<SessionHooks, Hook?> & Sendable) -> Hook? {
        state.withLock { $0.hooks[keyPath: field] }
    }

    /// The hooks that decide about a response head (``SessionTask/resolution(for:request:)``),
    /// read in one lock.
    var headHooks: (
        challenge: (@Sendable (SessionTask, AuthenticationChallenge) -> AuthenticationChallengeDisposition)?,
        response: (@Sendable (SessionTask, Response) -> ResponseDisposition)?
    ) {
        state.withLock { ($0.hooks.taskDidReceiveAuthenticationChallenge, $0.hooks.dataTaskDidReceiveResponse) }
    }

    /// Changes some hooks in place: `manager.updateHooks { $0.taskDidComplete = { … } }`.
    public func updateHooks(_ change: (inout SessionHooks) -> Void) {
        state.withLock { change(&$0.hooks) }
    }

    /// A stream of every lifecycle event from now on, in order; it ends when the session is
    /// invalidated. Each call makes an independent stream.
    public func events() -> AsyncStream<SessionEvent> { eventHub.stream() }

    /// Calls `observer` on the completion queue for every lifecycle event.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (SessionEvent) -> Void) -> ObserverToken {
        eventHub.addObserver(observer)
    }

    public func removeObserver(_ token: ObserverToken) { eventHub.removeObserver(token) }

    // MARK: Registry

    /// Every task created and not yet completed (`tasks`).
    public var tasks: [SessionTask] {
        state.withLock { $0.tasks.values.compactMap(\.task) }.sorted { $0.taskIdentifier < $1.taskIdentifier }
    }
    public var dataTasks: [DataTask] { tasks.compactMap { $0 as? DataTask } }
    public var uploadTasks: [UploadTask] { tasks.compactMap { $0 as? UploadTask } }
    public var downloadTasks: [DownloadTask] { tasks.compactMap { $0 as? DownloadTask } }

    public func task(withIdentifier identifier: Int) -> SessionTask? {
        state.withLock { $0.tasks[identifier]?.task }
    }

    /// Connections open in the client's pool (idle or busy), every manager on a shared client
    /// counted.
    public var openConnectionCount: Int { client.openConnectionCount }

    /// Lists a new task, unless the session is invalidated (such a task fails when resumed and
    /// must not hold up the invalidation).
    func register(_ task: SessionTask) {
        report(.created) { .created(task) }
        state.withLock { state in
            guard !state.invalidated else { return }
            state.tasks[task.taskIdentifier] = WeakTask(task: task)
            // Entries of unstarted tasks their creators dropped: pruned when the table doubles.
            if state.tasks.count >= state.pruneAt {
                state.tasks = state.tasks.filter { $0.value.task != nil }
                state.pruneAt = max(64, state.tasks.count * 2)
            }
        }
    }

    /// The task ended and leaves the registry. Returns whether its completion may be handed to
    /// an awaiting Swift task directly (`canHandOff`: the task has such a route and no last
    /// progress update is queued ahead of it): when nothing
    /// needs the completion queue — no completion or metrics hook, no event subscriber, no event
    /// monitor, no completion group, no response cache that may store it or be invalidated by it. Otherwise its completion is counted
    /// as on its way through the queues (``deliverOnCompletionQueue(of:outcome:finished:)``), which
    /// invalidation waits for. One lock for all of it.
    func taskEnded(_ task: SessionTask, canHandOff: Bool) -> Bool {
        let queueNeeded = !canHandOff || completionGroup != nil || eventHub.hasSubscribers || hasEventMonitors
            || (task.kind != .download && configuration.responseCache != nil)
        let handOff = state.withLock { state in
            state.tasks.removeValue(forKey: task.taskIdentifier)
            let handOff = !queueNeeded && state.hooks.taskDidComplete == nil && state.hooks.taskDidFinishCollectingMetrics == nil
            if !handOff { state.pendingCompletions += 1 }
            return handOff
        }
        // The last task of an invalidated session may have just left.
        if handOff { finishInvalidationIfDone() }
        return handOff
    }

    var isInvalidated: Bool { state.withLock { $0.invalidated } }

    // MARK: Requests and completions

    /// The transport request for one attempt of a task. `origin`: the task's first URL — the
    /// session's credential fields are not sent to another origin (a redirect may lead there);
    /// `deadline`: the task's (``deadline(for:startingAt:)``), so it covers every attempt;
    /// `phase`: the phase a deadline already passed is reported in.
    func convert(
        _ request: Request, sameOriginAs origin: HTTPOrigin? = nil, deadline: Deadline? = nil, phase: CourierError.Phase = .connect
    ) throws(CourierError) -> HTTPClientRequest {
        let sameOrigin = origin.map { request.httpURL?.origin == $0 } ?? true
        var converted = try conversion.convert(request, includeCredentials: sameOrigin, deadline: deadline, phase: phase)
        // For every scheme: `apply` gives an https request its host's TLS settings, and refuses
        // a plain http request to a host whose policy pins instead of silently not pinning.
        do { try securityPolicies.apply(to: &converted, base: configuration.client.tls) } catch {
            throw error.with(response: nil, body: nil, failingURL: request.url)
        }
        if converted.url.scheme == .https { converted.serverTrustEvaluator = trustEvaluator }
        return converted
    }

    /// A task's deadline: the sooner of the request's `totalTimeoutInterval` and the session's
    /// `timeoutIntervalForResource`, counted on the monotonic clock from `start`; nil for none.
    func deadline(for request: Request, startingAt start: Deadline) -> Deadline? {
        let task = request.totalTimeoutInterval.flatMap(RequestConversion.timeAmount)
        let resource = configuration.timeoutIntervalForResource.flatMap(RequestConversion.timeAmount)
        switch (task, resource) {
        case (nil, nil): return nil
        case (let limit?, nil), (nil, let limit?): return start + limit
        case (let task?, let resource?): return start + min(task, resource)
        }
    }

    /// The through-the-queues route's last leg (``TaskCompletion``): runs `task`'s response-cache
    /// store, the metrics and completion events (the metrics and completion hooks among them, on
    /// this queue), the caller's callback and resume-data handlers on the completion queue, once
    /// its route `finished` the outcome.
    func deliverOnCompletionQueue(of task: SessionTask, outcome: TaskCompletion.Outcome, finished: TaskCompletion.Finished) {
        completionQueue.async(group: completionGroup) { [self] in
            // The three hooks a completion runs, read together (not a copy of every hook).
            let (willCache, didFinishMetrics, didComplete) = state.withLock { state in
                (state.hooks.dataTaskWillCacheResponse, state.hooks.taskDidFinishCollectingMetrics != nil, state.hooks.taskDidComplete != nil)
            }
            updateCache(after: task, outcome: outcome, willCache: willCache)
            report(.metrics, onCompletionQueue: true, hooked: didFinishMetrics) { .metrics(task, outcome.metrics) }
            report(.completed, onCompletionQueue: true, hooked: didComplete) {
                .completed(TaskCompletion(task: task, outcome: outcome, finished: finished))
            }
            finished.deliver()
            let handlers = task.core.withLock { core -> [@Sendable (Data?) -> Void] in
                core.completionDelivered = true
                defer { core.resumeDataHandlers = [] }
                return core.resumeDataHandlers
            }
            for handler in handlers { handler(outcome.resumeData) }
            finishInvalidationIfDone(completionDelivered: true)
        }
    }

    // MARK: Invalidation

    /// Ends the session (`invalidateSessionCancelingTasks:resetSession:`). New tasks fail with
    /// ``CourierError/Code/sessionInvalidated``. With `cancelingTasks`, running tasks are
    /// cancelled; otherwise they run to completion (tasks never resumed are cancelled either way,
    /// as nothing would ever finish them). When the last completion has run, the connections of
    /// a client the manager created are closed (a client it was given stays up, with its
    /// connections, for its other users) and `sessionDidBecomeInvalid` and the
    /// `sessionInvalidated` event follow.
    public func invalidate(cancelingTasks: Bool) {
        let tasks = state.withLock { state -> [SessionTask]? in
            guard !state.invalidated else { return nil }
            state.invalidated = true
            return state.tasks.values.compactMap(\.task)
        }
        guard let tasks else { return }
        for task in tasks where cancelingTasks || !task.core.withLock({ $0.machine.hasStarted }) {
            task.cancel()
        }
        finishInvalidationIfDone()
    }

    /// `completionDelivered`: a completion counted by ``taskEnded(_:canHandOff:)`` has run
    /// (counted down in the same lock).
    private func finishInvalidationIfDone(completionDelivered: Bool = false) {
        let done = state.withLock { state -> Bool in
            if completionDelivered { state.pendingCompletions -= 1 }
            guard state.invalidated, !state.invalidationDone, state.pendingCompletions == 0,
                  state.tasks.values.allSatisfy({ $0.task == nil }) else { return false }
            state.invalidationDone = true
            return true
        }
        guard done else { return }
        let client = ownsClient ? self.client : nil
        // `shutdown()` waits for the loops: never on a loop thread or the completion queue.
        DispatchQueue.global().async { [self] in
            client?.shutdown()
            completionQueue.async { [self] in
                report(.invalidated, onCompletionQueue: true) { .invalidated(nil) }
            }
        }
    }
}

/// The registry does not keep tasks alive: a task that was never resumed and is dropped by its
/// creator simply goes away. A running task is kept alive by its transport request.
struct WeakTask {
    weak var task: SessionTask?
}
