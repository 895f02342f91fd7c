import CourierCore
import Synchronization

/// The bounded buffer between the Swift task that iterates an `AsyncSequence` request body
/// (the producer, off the loops) and the connection that sends it (on its loop).
///
/// The producer waits while `limit` bytes are buffered; the connection, finding the buffer
/// empty, is woken (`wakeUp`, which hops to its loop) when the next piece or the end arrives.
/// ``close()`` (the request ended or the body was stopped) cancels the producer.
final class RequestBodyPipe: Sendable {
    enum Read {
        case piece(ByteBuffer)
        case end
        /// Nothing yet: `wakeUp` runs once something arrives.
        case empty
    }

    private enum End {
        case finished
        case failed(ClientError)
    }

    private struct State {
        var pieces: [ByteBuffer] = []
        var bufferedBytes = 0
        var end: End?
        var closed = false
        /// The producer waits for room.
        var producer: CheckedContinuation<Void, Never>?
        /// The connection found nothing and waits for `wakeUp`.
        var connectionWaiting = false
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let limit: Int
    private let wakeUp: @Sendable () -> Void

    init(limit: Int = 256 * 1024, wakeUp: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.wakeUp = wakeUp
    }

    /// Starts the producer task (once per attempt).
    func start(_ body: HTTPClientBodySequence) {
        let task = Task.detached { [self] in
            do {
                try await body.produce(self)
                ended(.finished)
            } catch {
                ended(.failed(ClientError(.invalidRequest, phase: .send, cause: error, detail: "the request body sequence failed: \(error)")))
            }
        }
        let cancel = state.withLock { state -> Bool in
            state.task = task
            return state.closed
        }
        if cancel { task.cancel() }
    }

    // MARK: The producer

    /// Adds a piece; waits while the buffer is full. Throws `CancellationError` once the
    /// connection closed the pipe.
    func write(_ piece: ByteBuffer) async throws {
        guard piece.readableBytes > 0 else { return }
        let (wake, full) = try state.withLock { state throws -> (Bool, Bool) in
            if state.closed { throw CancellationError() }
            state.pieces.append(piece)
            state.bufferedBytes += piece.readableBytes
            let wake = state.connectionWaiting
            state.connectionWaiting = false
            return (wake, state.bufferedBytes >= limit)
        }
        if wake { wakeUp() }
        guard full else { return }
        await withCheckedContinuation { (producer: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.closed || state.bufferedBytes < limit { return true }
                state.producer = producer
                return false
            }
            if resumeNow { producer.resume() }
        }
        if state.withLock({ $0.closed }) { throw CancellationError() }
    }

    private func ended(_ end: End) {
        let wake = state.withLock { state -> Bool in
            if state.end == nil { state.end = end }
            defer { state.connectionWaiting = false }
            return state.connectionWaiting
        }
        if wake { wakeUp() }
    }

    // MARK: The connection (on its loop)

    func read() throws(ClientError) -> Read {
        let (read, producer) = try state.withLock { state throws(ClientError) -> (Read, CheckedContinuation<Void, Never>?) in
            if !state.pieces.isEmpty {
                let piece = state.pieces.removeFirst()
                state.bufferedBytes -= piece.readableBytes
                var producer: CheckedContinuation<Void, Never>?
                if state.bufferedBytes < limit { swap(&producer, &state.producer) }
                return (.piece(piece), producer)
            }
            switch state.end {
            case .finished?: return (.end, nil)
            case .failed(let error)?: throw error
            case nil:
                state.connectionWaiting = true
                return (.empty, nil)
            }
        }
        producer?.resume()
        return read
    }

    /// The body is no longer wanted: the producer task is cancelled and released.
    func close() {
        let (producer, task) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            state.closed = true
            state.pieces.removeAll()
            state.bufferedBytes = 0
            state.connectionWaiting = false
            defer { state.producer = nil }
            return (state.producer, state.task)
        }
        producer?.resume()
        task?.cancel()
    }
}
