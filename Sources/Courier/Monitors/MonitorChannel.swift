import CourierCore
import Dispatch
import Synchronization

/// One monitor as a session feeds it: events wait in a buffer and one block queued on the
/// monitor's queue, when the buffer goes from empty to not, delivers all that arrived by then —
/// so a burst of events costs one queue hop, and each monitor sees its events in order.
final class MonitorChannel: Sendable {
    private struct Pending {
        var events: [MonitorEvent] = []
        /// A drain is queued (or running): new events join it.
        var scheduled = false
    }

    let monitor: any EventMonitor
    let queue: DispatchQueue
    /// The monitor's queue is the session's completion queue: code running there may deliver at
    /// once (``deliverNow(_:)``) instead of queueing.
    let isOnCompletionQueue: Bool
    private let pending = Mutex(Pending())

    init(_ monitor: any EventMonitor, completionQueue: DispatchQueue) {
        self.monitor = monitor
        let named = monitor.queue
        let queue = named === EventMonitorQueue.shared ? completionQueue : named
        self.queue = queue
        self.isOnCompletionQueue = queue === completionQueue
    }

    /// Adds `event` from any thread; queues a drain unless one is pending.
    func enqueue(_ event: MonitorEvent) {
        let schedule = pending.withLock { pending -> Bool in
            pending.events.append(event)
            guard !pending.scheduled else { return false }
            pending.scheduled = true
            return true
        }
        if schedule { queue.async { [self] in drain() } }
    }

    /// On ``queue`` only: delivers what waits, then `event` — in order, without a queue hop.
    func deliverNow(_ event: MonitorEvent) {
        drain()
        event.deliver(to: monitor)
    }

    /// On ``queue`` only: delivers everything buffered, including what arrives meanwhile.
    private func drain() {
        var batch: [MonitorEvent] = []
        while true {
            let done = pending.withLock { pending -> Bool in
                if pending.events.isEmpty {
                    pending.scheduled = false
                    // The emptied batch keeps its storage for the next events.
                    if batch.capacity > pending.events.capacity { swap(&pending.events, &batch) }
                    return true
                }
                swap(&pending.events, &batch)
                return false
            }
            if done { return }
            for event in batch { event.deliver(to: monitor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
