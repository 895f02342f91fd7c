import CourierCore
import Dispatch
import Synchronization

/// A token that removes an observer (``SessionManager/removeObserver(_:)``).
public struct ObserverToken: Hashable, Sendable {
    let id: Int
}

/// Fans lifecycle events out to observer closures and to any number of `AsyncStream`s.
/// Events are published from the completion queue, so each subscriber sees them in order: the
/// session's ``EventHubMonitor`` (an ``EventMonitor`` on that queue) publishes them.
final class EventHub: Sendable {
    private struct Subscribers {
        var nextID = 0
        var observers: [Int: @Sendable (SessionEvent) -> Void] = [:]
        var streams: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
        var finished = false
    }

    private let subscribers = Mutex(Subscribers())

    func addObserver(_ observer: @escaping @Sendable (SessionEvent) -> Void) -> ObserverToken {
        subscribers.withLock { state in
            state.nextID += 1
            // After the last event there is nothing to observe: keep nothing alive.
            if !state.finished { state.observers[state.nextID] = observer }
            return ObserverToken(id: state.nextID)
        }
    }

    func removeObserver(_ token: ObserverToken) {
        _ = subscribers.withLock { $0.observers.removeValue(forKey: token.id) }
    }

    /// Whether anyone listens (lets the session skip queueing events nobody receives).
    var hasSubscribers: Bool {
        subscribers.withLock { !$0.observers.isEmpty || !$0.streams.isEmpty }
    }

    /// A new stream of every event from now on; it finishes when the session is invalidated.
    func stream() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .unbounded)
        let id: Int? = subscribers.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.streams[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Delivers `event` to everyone, outside the lock. `last` finishes the streams afterwards and
    /// releases the observers, so that what they capture (often a task, which holds the session)
    /// does not keep an invalidated session alive.
    /// The event is made only when someone listens.
    func publish(_ event: @autoclosure () -> SessionEvent, last: Bool = false) {
        let (observers, streams) = subscribers.withLock { state in
            let snapshot = (Array(state.observers.values), Array(state.streams.values))
            if last {
                state.finished = true
                state.streams = [:]
                state.observers = [:]
            }
            return snapshot
        }
        guard !observers.isEmpty || !streams.isEmpty else { return }
        let event = event()
        for observer in observers { observer(event) }
        for stream in streams {
            stream.yield(event)
            if last { stream.finish() }
        }
    }
}
