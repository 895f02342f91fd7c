import CourierCore
import CourierHTTP1
import Synchronization

/// A whole response held in memory.
public struct HTTPClientResponse: Sendable {
    public var head: HTTPClientResponseHead
    public var body: ByteBuffer
    public var trailers: HTTPFields
    public var metrics: HTTPClientMetrics

    public var status: Int { head.status }
}

extension HTTPClient {
    /// Runs `request` and collects the body in memory (up to `maximumBodySize` bytes; past
    /// that the request fails in the `receive` phase).
    ///
    /// Cancelling the calling Swift task cancels the request at once, in whatever phase it is
    /// (as ``HTTPClientTask/cancel()`` does: a connection with the request in flight is closed),
    /// and the call throws a ``ClientError`` with code ``ClientError/Code/cancelled``. A task
    /// already cancelled when it calls this starts no request at all.
    public func execute(_ request: HTTPClientRequest, maximumBodySize: Int = 64 * 1024 * 1024) async throws(ClientError) -> HTTPClientResponse {
        let handle = AsyncRequestHandle()
        let result: Result<HTTPClientResponse, ClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let collector = CollectingDelegate(limit: maximumBodySize) { continuation.resume(returning: $0) }
                // Cancelled before it began (the handler ran first): no request is made.
                guard handle.mayStart() else {
                    collector.didFail(cancelledBeforeStart: ClientError(.cancelled, detail: "the Swift task was cancelled before the request started"))
                    return
                }
                handle.started(execute(request, delegate: collector))
            }
        } onCancel: {
            handle.cancel()
        }
        return try result.get()
    }
}

/// Connects Swift task cancellation with the transport request of one `async` call. The
/// cancellation handler may run before, during or after the request starts, on any thread.
final class AsyncRequestHandle: Sendable {
    private enum State {
        case notStarted
        case running(HTTPClientTask)
        case cancelled
    }

    private let state = Mutex(State.notStarted)

    /// Whether the request may start: false once the task was cancelled.
    func mayStart() -> Bool {
        state.withLock { if case .cancelled = $0 { false } else { true } }
    }

    /// The request started; it is cancelled at once if the task was cancelled meanwhile.
    func started(_ task: HTTPClientTask) {
        let cancelNow = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .running(task)
            return false
        }
        if cancelNow { task.cancel() }
    }

    /// The Swift task was cancelled.
    func cancel() {
        let task = state.withLock { state -> HTTPClientTask? in
            defer { state = .cancelled }
            if case .running(let task) = state { return task }
            return nil
        }
        task?.cancel()
    }
}

/// Collects a response in memory and reports it once.
final class CollectingDelegate: HTTPClientResponseDelegate {
    private let limit: Int
    private let completion: (Result<HTTPClientResponse, ClientError>) -> Void
    private var head: HTTPClientResponseHead?
    private var body = ByteBuffer()
    private var overflow = false

    init(limit: Int, completion: @escaping (Result<HTTPClientResponse, ClientError>) -> Void) {
        self.limit = limit
        self.completion = completion
    }

    func didReceiveHead(_ task: HTTPClientTask, _ head: HTTPClientResponseHead) {
        self.head = head
    }

    func didReceiveBodyPart(_ task: HTTPClientTask, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        guard body.readableBytes + part.readableBytes <= limit else {
            if !overflow { overflow = true; task.cancel() }
            return .more
        }
        body.writeBuffer(part)
        return .more
    }

    func didFinish(_ task: HTTPClientTask, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        guard let head else {
            completion(.failure(ClientError(.unexpectedResponse, detail: "no response head")))
            return
        }
        completion(.success(HTTPClientResponse(head: head, body: body, trailers: trailers, metrics: metrics)))
    }

    /// Reports `error` for a request that was never started.
    func didFail(cancelledBeforeStart error: ClientError) {
        completion(.failure(error))
    }

    func didFail(_ task: HTTPClientTask, error: ClientError, metrics: HTTPClientMetrics) {
        if overflow {
            completion(.failure(ClientError(.unexpectedResponse, phase: .receive, cause: error, detail: "the body is larger than \(limit) bytes")))
        } else {
            completion(.failure(error))
        }
    }
}
