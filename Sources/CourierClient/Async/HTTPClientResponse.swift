import CourierCore
import CourierHTTP1

/// The final response of an `async` request (``HTTPClient/execute(_:)``): its head, available
/// at once, and its body, read as it arrives.
public struct HTTPClientResponse: Sendable {
    /// The final head (after redirects). The body is delivered with its content codings undone,
    /// unless `head.undecodedContentCodings` names some (RFC 9110 §8.4).
    public var head: HTTPClientResponseHead
    /// The body: an `AsyncSequence` of the parts as they arrive (single-pass).
    public let body: Body

    /// The status code (RFC 9110 §15).
    public var status: Int { head.status }
    /// The header fields (RFC 9110 §6.3).
    public var headers: HTTPFields { head.headers }

    init(head: HTTPClientResponseHead, stream: ResponseStream) {
        self.head = head
        self.body = Body(stream: stream)
    }
}

extension HTTPClientResponse {
    /// The response body as an `AsyncSequence` of `ByteBuffer`s, with backpressure: the socket is
    /// not read while nobody asks for the next part (at most about 1 MiB waits in memory).
    ///
    /// It can be iterated once. Once the iteration ended, ``trailers`` holds the trailer
    /// fields (RFC 9112 §7.1.2) and ``metrics`` the request's metrics. An error ends the
    /// iteration by throwing a ``ClientError`` (after the parts received before it).
    ///
    /// Cancelling the Swift task that iterates cancels the request at once. So does dropping
    /// the iterator before the end, or dropping the body without iterating it: the connection
    /// is closed rather than left paused.
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = ByteBuffer
        public typealias Failure = ClientError

        let stream: ResponseStream
        private let lifetime: BodyLifetime

        init(stream: ResponseStream) {
            self.stream = stream
            self.lifetime = BodyLifetime(stream: stream)
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(stream: stream, first: stream.makeIterator())
        }

        /// The trailer fields, once the body was read to its end (nil before, or after a failure).
        public var trailers: HTTPFields? { stream.trailers }

        /// The request's metrics, once it ended (nil before).
        public var metrics: HTTPClientMetrics? { stream.metrics }

        /// Reads the whole body into one buffer. A body longer than `maxBytes` cancels the
        /// request and fails in the `receive` phase.
        public func collect(upTo maxBytes: Int) async throws(ClientError) -> ByteBuffer {
            var collected = ByteBuffer()
            var iterator = makeAsyncIterator()
            while let part = try await iterator.next() {
                guard collected.readableBytes + part.readableBytes <= maxBytes else {
                    let cancelled = ClientError(.cancelled, detail: "the body is larger than \(maxBytes) bytes")
                    stream.cancel(cancelled)
                    throw ClientError(.unexpectedResponse, phase: .receive, cause: cancelled, detail: "the body is larger than \(maxBytes) bytes")
                }
                if collected.readableBytes == 0 { collected = part } else { collected.writeBuffer(part) }
            }
            return collected
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            private let stream: ResponseStream
            /// Nil for a second iterator, which only throws.
            private let lifetime: IteratorLifetime?

            init(stream: ResponseStream, first: Bool) {
                self.stream = stream
                self.lifetime = first ? IteratorLifetime(stream: stream) : nil
            }

            public mutating func next() async throws(ClientError) -> ByteBuffer? {
                try await next(isolation: nil)
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(ClientError) -> ByteBuffer? {
                guard lifetime != nil else {
                    throw ClientError(.invalidRequest, detail: "a response body can be iterated once")
                }
                if Task.isCancelled { stream.cancel(Self.cancelled) }
                switch stream.next() {
                case .part(let part, _): return part
                case .end: return nil
                case .error(let error): throw error
                case .wait: break
                }
                let stream = self.stream
                let result = await withTaskCancellationHandler {
                    await withCheckedContinuation(isolation: actor) { waiter in stream.waitForPart(waiter) }
                } onCancel: {
                    stream.cancel(Self.cancelled)
                }
                TSanHandoff.acquire(stream)  // the part was written by the loop that resumed us
                return try result.get()
            }

            static var cancelled: ClientError { ClientError(.cancelled, detail: "the Swift task was cancelled") }
        }
    }
}

/// Cancels the request when every copy of a body that was never iterated is gone.
private final class BodyLifetime: Sendable {
    let stream: ResponseStream
    init(stream: ResponseStream) { self.stream = stream }
    deinit {
        if !stream.iteratorMade { stream.cancel(ClientError(.cancelled, detail: "the response body was dropped unread")) }
    }
}

/// Cancels the request when the body's iterator is dropped before the end (a no-op after it).
private final class IteratorLifetime: Sendable {
    let stream: ResponseStream
    init(stream: ResponseStream) { self.stream = stream }
    deinit { stream.cancel(ClientError(.cancelled, detail: "the response body's iterator was dropped before the end")) }
}
