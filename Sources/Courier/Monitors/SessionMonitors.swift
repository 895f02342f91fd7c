import Dispatch

/// A session's monitors: the two that carry its older interfaces — the AFNetworking-named hooks
/// (``SessionHooksMonitor``) and the ``SessionEvent`` observers and streams
/// (``EventHubMonitor``), both on the completion queue — and the caller's
/// (``SessionConfiguration/eventMonitors``), fixed when the session is made.
struct SessionMonitors: Sendable {
    let hooks: MonitorChannel
    let hub: MonitorChannel
    let user: [MonitorChannel]

    init(hooks: SessionHooksMonitor, hub: EventHubMonitor, user: [any EventMonitor], completionQueue: DispatchQueue) {
        self.hooks = MonitorChannel(hooks, completionQueue: completionQueue)
        self.hub = MonitorChannel(hub, completionQueue: completionQueue)
        self.user = user.map { MonitorChannel($0, completionQueue: completionQueue) }
    }
}

extension SessionManager {
    /// Reports a lifecycle point to every monitor that wants it; `make` runs only if one does.
    /// The hooks monitor wants an event when its hook is set (one hook read, as before monitors
    /// existed), the events monitor when someone subscribes, the caller's monitors always: a
    /// session without monitors pays what it paid for its hooks and events.
    ///
    /// `onCompletionQueue`: the caller runs on the completion queue, so monitors on it take the
    /// event now, after what waits for them (the hooks' ordering: a hook runs where it ran
    /// before). `hooked`: whether the hook for `kind` is set, when the caller read it already.
    func report(_ kind: MonitorEvent.Kind, onCompletionQueue: Bool = false, hooked: Bool? = nil, _ make: () -> MonitorEvent) {
        let hooked = hooked ?? hooksWant(kind)
        let heard = EventHubMonitor.wants(kind, hub: eventHub)
        guard hooked || heard || !monitors.user.isEmpty else { return }
        let event = make()
        if hooked { send(event, to: monitors.hooks, onCompletionQueue: onCompletionQueue) }
        if heard { send(event, to: monitors.hub, onCompletionQueue: onCompletionQueue) }
        for channel in monitors.user { send(event, to: channel, onCompletionQueue: onCompletionQueue) }
    }

    /// Whether the caller's monitors (or a hook, an observer) may want events: lets the per-task
    /// paths skip work nobody sees.
    var hasEventMonitors: Bool { !monitors.user.isEmpty }

    private func send(_ event: MonitorEvent, to channel: MonitorChannel, onCompletionQueue: Bool) {
        if onCompletionQueue, channel.isOnCompletionQueue {
            channel.deliverNow(event)
        } else {
            channel.enqueue(event)
        }
    }

    /// Whether the hook that carries `kind` is set (read in one lock).
    private func hooksWant(_ kind: MonitorEvent.Kind) -> Bool {
        switch kind {
        case .data: hook(\.dataTaskDidReceiveData) != nil
        case .sentBody: hook(\.taskDidSendBodyData) != nil
        case .wroteData: hook(\.downloadTaskDidWriteData) != nil
        case .metrics: hook(\.taskDidFinishCollectingMetrics) != nil
        case .completed: hook(\.taskDidComplete) != nil
        case .invalidated: hook(\.sessionDidBecomeInvalid) != nil
        default: false
        }
    }
}
