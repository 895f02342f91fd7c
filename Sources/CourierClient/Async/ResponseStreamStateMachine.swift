import CourierCore
import CourierHTTP1

/// The bridge between one request's delegate calls (on an event loop) and the `async` caller
/// that awaits the head and then iterates the body (``HTTPClientResponse/Body``).
///
/// A value: every event returns what to do, and ``ResponseStream`` performs it (under no lock).
/// `HeadWaiter` and `BodyWaiter` are the suspended callers (continuations in the driver, plain
/// values in the unit tests).
///
/// Backpressure: body parts that arrive while nobody asks are buffered; once `highWater` bytes
/// are buffered the connection is told to pause (it stops reading the socket), and reading
/// resumes when the consumer has taken the buffer down to `lowWater` bytes. So at most
/// `highWater` plus one part is held, whatever the consumer does.
struct ResponseStreamStateMachine<HeadWaiter, BodyWaiter> {
    /// How the request ended, while parts it delivered are still buffered.
    enum End {
        case finished(HTTPFields, HTTPClientMetrics)
        case failed(ClientError, HTTPClientMetrics?)
    }

    struct Streaming {
        /// Buffered parts, oldest first, from `first` on (popping moves `first`, not the array).
        var parts: [ByteBuffer] = []
        var first = 0
        var bufferedBytes = 0
        /// The connection was told to pause and has not been resumed.
        var paused = false
        /// A consumer waiting for a part (only while nothing is buffered).
        var waiter: BodyWaiter?
        /// The request ended; what is buffered is still handed out first.
        var end: End?

        var isEmpty: Bool { first == parts.count }

        mutating func pop() -> ByteBuffer {
            let part = parts[first]
            parts[first] = ByteBuffer()
            first += 1
            bufferedBytes -= part.readableBytes
            if first == parts.count {
                parts.removeAll(keepingCapacity: true)
                first = 0
            }
            return part
        }
    }

    enum State {
        /// The request has not started.
        case idle
        /// The request runs; the caller of `execute` may be waiting for the head.
        case waitingForHead(HeadWaiter)
        /// The head was handed out; parts flow to the body's iterator.
        case streaming(Streaming)
        /// The body ended and everything was handed out (the end too, or it is next).
        case finished(trailers: HTTPFields, metrics: HTTPClientMetrics)
        /// The request failed or the consumer gave up; `reported` once the error was thrown.
        case failed(ClientError, metrics: HTTPClientMetrics?, reported: Bool)
    }

    enum Action {
        case none
        /// Start the transport request.
        case startRequest
        case succeedHead(HeadWaiter, HTTPClientResponseHead)
        case failHead(HeadWaiter, ClientError)
        /// Resume a waiting consumer with a part, the end (nil) or an error.
        case resumeBody(BodyWaiter, Result<ByteBuffer?, ClientError>)
        /// Resume a waiting consumer with a part, and resume reading the socket.
        case resumeBodyAndReading(BodyWaiter, ByteBuffer)
        /// Resume reading the socket (the connection was paused).
        case resumeReading
        /// Cancel the transport request, and resume whoever waits with `error`.
        case cancelRequest(failHead: HeadWaiter?, failBody: BodyWaiter?, error: ClientError)
    }

    /// What a consumer asking for the next part gets at once.
    enum Next {
        case part(ByteBuffer, resumeReading: Bool)
        case end
        case error(ClientError)
        /// Nothing yet: suspend and call ``waitForPart(_:)``.
        case wait
    }

    private(set) var state: State = .idle
    let highWater: Int
    let lowWater: Int
    /// Whether an iterator was made (the body is single-pass).
    private(set) var iteratorMade = false

    init(highWater: Int = 1024 * 1024, lowWater: Int = 512 * 1024) {
        precondition(lowWater < highWater, "lowWater must be below highWater")
        self.highWater = highWater
        self.lowWater = lowWater
    }

    // MARK: The `async` caller

    /// `execute` waits for the head.
    mutating func start(_ waiter: HeadWaiter) -> Action {
        switch state {
        case .idle:
            state = .waitingForHead(waiter)
            return .startRequest
        case .failed(let error, let metrics, _):
            // Cancelled before it started: no request is made.
            state = .failed(error, metrics: metrics, reported: true)
            return .failHead(waiter, error)
        case .waitingForHead, .streaming, .finished:
            // `start` is called once, by `execute`.
            return .failHead(waiter, ClientError(.invalidRequest, detail: "the response stream was started twice"))
        }
    }

    /// An iterator is made; false when one was made already (the body is single-pass).
    mutating func makeIterator() -> Bool {
        defer { iteratorMade = true }
        return !iteratorMade
    }

    /// The consumer asks for the next part.
    mutating func next() -> Next {
        switch state {
        case .idle, .waitingForHead:
            // The body exists only once the head was handed out.
            return .error(ClientError(.invalidRequest, detail: "the body was read before the head arrived"))
        case .streaming(var streaming):
            if streaming.isEmpty {
                if streaming.waiter != nil {
                    return .error(ClientError(.invalidRequest, detail: "the body is being read concurrently"))
                }
                return .wait
            }
            let part = streaming.pop()
            if streaming.isEmpty, let end = streaming.end {
                switch end {
                case .finished(let trailers, let metrics): state = .finished(trailers: trailers, metrics: metrics)
                case .failed(let error, let metrics): state = .failed(error, metrics: metrics, reported: false)
                }
                return .part(part, resumeReading: false)
            }
            let resume = streaming.paused && streaming.bufferedBytes <= lowWater
            if resume { streaming.paused = false }
            state = .streaming(streaming)
            return .part(part, resumeReading: resume)
        case .finished:
            return .end
        case .failed(let error, let metrics, let reported):
            if reported { return .end }
            state = .failed(error, metrics: metrics, reported: true)
            return .error(error)
        }
    }

    /// After ``next()`` said `.wait`: the consumer suspends as `waiter` (state may have moved).
    mutating func waitForPart(_ waiter: BodyWaiter) -> Action {
        guard case .streaming(var streaming) = state, streaming.isEmpty, streaming.waiter == nil else {
            switch next() {
            case .part(let part, let resumeReading):
                return resumeReading ? .resumeBodyAndReading(waiter, part) : .resumeBody(waiter, .success(part))
            case .end: return .resumeBody(waiter, .success(nil))
            case .error(let error): return .resumeBody(waiter, .failure(error))
            case .wait: return .none  // not reached: `.wait` only with an empty, waiter-less stream
            }
        }
        streaming.waiter = waiter
        let resume = streaming.paused
        streaming.paused = false
        state = .streaming(streaming)
        return resume ? .resumeReading : .none
    }

    /// The Swift task was cancelled, or the consumer dropped the body before its end.
    mutating func cancel(_ error: ClientError) -> Action {
        switch state {
        case .idle:
            state = .failed(error, metrics: nil, reported: false)
            return .none
        case .waitingForHead(let waiter):
            state = .failed(error, metrics: nil, reported: true)
            return .cancelRequest(failHead: waiter, failBody: nil, error: error)
        case .streaming(let streaming):
            state = .failed(error, metrics: nil, reported: streaming.waiter != nil)
            guard streaming.end == nil else {
                // The request already ended: only the buffered parts are dropped.
                if let waiter = streaming.waiter { return .resumeBody(waiter, .failure(error)) }
                return .none
            }
            return .cancelRequest(failHead: nil, failBody: streaming.waiter, error: error)
        case .finished, .failed:
            return .none
        }
    }

    // MARK: The delegate (on the loop)

    mutating func receivedHead(_ head: HTTPClientResponseHead) -> Action {
        guard case .waitingForHead(let waiter) = state else { return .none }
        state = .streaming(Streaming())
        return .succeedHead(waiter, head)
    }

    /// A body part; also says whether the connection should pause.
    mutating func receivedBodyPart(_ part: ByteBuffer) -> (Action, HTTPClientBodyDemand) {
        guard case .streaming(var streaming) = state, streaming.end == nil else {
            // Cancelled (the request is being cancelled): read no more.
            return (.none, .pause)
        }
        if let waiter = streaming.waiter {
            streaming.waiter = nil
            state = .streaming(streaming)
            return (.resumeBody(waiter, .success(part)), .more)
        }
        streaming.parts.append(part)
        streaming.bufferedBytes += part.readableBytes
        // Still paused (a part read before the pause took effect): stay paused.
        let pause = streaming.paused || streaming.bufferedBytes >= highWater
        if pause { streaming.paused = true }
        state = .streaming(streaming)
        return (.none, pause ? .pause : .more)
    }

    mutating func finished(trailers: HTTPFields, metrics: HTTPClientMetrics) -> Action {
        switch state {
        case .streaming(var streaming):
            guard streaming.isEmpty else {
                streaming.end = .finished(trailers, metrics)
                state = .streaming(streaming)
                return .none
            }
            state = .finished(trailers: trailers, metrics: metrics)
            if let waiter = streaming.waiter { return .resumeBody(waiter, .success(nil)) }
            return .none
        case .waitingForHead:
            // The execution always reports a head before it finishes; without one this is a failure.
            return failed(ClientError(.unexpectedResponse, detail: "no response head"), metrics: metrics)
        case .failed(let error, _, let reported):
            state = .failed(error, metrics: metrics, reported: reported)
            return .none
        case .idle, .finished:
            return .none
        }
    }

    mutating func failed(_ error: ClientError, metrics: HTTPClientMetrics) -> Action {
        switch state {
        case .waitingForHead(let waiter):
            state = .failed(error, metrics: metrics, reported: true)
            return .failHead(waiter, error)
        case .streaming(var streaming):
            guard streaming.isEmpty else {
                // Parts received before the failure are handed out first, then the error.
                streaming.end = .failed(error, metrics)
                state = .streaming(streaming)
                return .none
            }
            state = .failed(error, metrics: metrics, reported: streaming.waiter != nil)
            if let waiter = streaming.waiter { return .resumeBody(waiter, .failure(error)) }
            return .none
        case .failed(let first, _, let reported):
            // The consumer's cancellation came first: keep its error, take the metrics.
            state = .failed(first, metrics: metrics, reported: reported)
            return .none
        case .idle, .finished:
            return .none
        }
    }

    // MARK: Reading the end

    /// The trailer fields, once the body ended and was read to its end.
    var trailers: HTTPFields? {
        if case .finished(let trailers, _) = state { return trailers }
        return nil
    }

    /// The metrics, once the request ended (successfully or not).
    var metrics: HTTPClientMetrics? {
        switch state {
        case .finished(_, let metrics): return metrics
        case .failed(_, let metrics, _): return metrics
        case .streaming(let streaming):
            switch streaming.end {
            case .finished(_, let metrics)?: return metrics
            case .failed(_, let metrics)?: return metrics
            case nil: return nil
            }
        case .idle, .waitingForHead: return nil
        }
    }
}
