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
    public func execute(_ request: HTTPClientRequest, maximumBodySize: Int = 64 * 1024 * 1024) async throws(ClientError) -> HTTPClientResponse {
        let result: Result<HTTPClientResponse, ClientError> = await withCheckedContinuation { continuation in
            let collector = CollectingDelegate(limit: maximumBodySize) { continuation.resume(returning: $0) }
            execute(request, delegate: collector)
        }
        return try result.get()
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

    func didFail(_ task: HTTPClientTask, error: ClientError, metrics: HTTPClientMetrics) {
        if overflow {
            completion(.failure(ClientError(.unexpectedResponse, phase: .receive, cause: error, detail: "the body is larger than \(limit) bytes")))
        } else {
            completion(.failure(error))
        }
    }
}
