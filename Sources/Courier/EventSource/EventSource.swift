import CourierCore

/// A Server-Sent Events stream (WHATWG HTML §9.2, `EventSource`): the events of a
/// `text/event-stream` response as an `AsyncSequence`, reconnecting with `Last-Event-ID` when
/// the server closes the stream or the connection breaks. Made by
/// ``SessionManager/eventSource(for:configuration:)``; nothing is sent until it is iterated, and
/// each iteration is a stream of its own.
///
/// - The body is parsed by ``EventStreamParser`` (WHATWG HTML §9.2.6), as it arrives, with
///   backpressure: the socket is read only while the sequence is iterated.
/// - A reconnection waits the reconnection time: the configuration's
///   ``EventSourceConfiguration/retryInterval`` until the server sends `retry`.
/// - The sequence ends on a 204 response, and throws ``CourierError`` for any other status but
///   200 (`unacceptableStatusCode`), a Content-Type other than `text/event-stream`
///   (`unacceptableContentType`), an event larger than
///   ``EventSourceConfiguration/maximumEventBytes`` (`eventTooLarge`), and failures a
///   reconnection cannot cure (trust, TLS, an invalid request).
/// - Cancelling the iterating Swift task, or dropping the iterator, closes the connection; the
///   sequence then throws `cancelled`.
///
/// ```swift
/// for try await event in manager.eventSource(for: Request(url: url)) {
///     print(event.type, event.data)
/// }
/// ```
public struct EventSource: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    public typealias Failure = CourierError

    let session: SessionManager
    let request: Request
    let configuration: EventSourceConfiguration

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(session: session, request: Self.streamRequest(request), configuration: configuration)
    }

    /// `Accept: text/event-stream` and `Cache-Control: no-cache` (WHATWG HTML §9.2.2, the request
    /// an `EventSource` makes), unless the request sets them itself.
    static func streamRequest(_ request: Request) -> Request {
        var request = request
        if !request.headers.contains("Accept") { try? request.setValue("text/event-stream", forHTTPHeaderField: "Accept") }
        if !request.headers.contains("Cache-Control") { try? request.setValue("no-cache", forHTTPHeaderField: "Cache-Control") }
        return request
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let session: SessionManager
        let request: Request
        let configuration: EventSourceConfiguration
        var reconnection: EventSourceReconnection
        /// What to do next; nil once the sequence ended.
        var action: EventSourceReconnection.Action?
        /// The open stream's body and its parser.
        var body: ResponseBytes.AsyncIterator?
        var parser: EventStreamParser
        /// Events parsed but not returned yet, from `pendingIndex` on.
        var pending: [ServerSentEvent] = []
        var pendingIndex = 0

        init(session: SessionManager, request: Request, configuration: EventSourceConfiguration) {
            self.session = session
            self.request = request
            self.configuration = configuration
            reconnection = EventSourceReconnection(configuration)
            action = reconnection.start()
            parser = EventStreamParser(maximumEventBytes: configuration.maximumEventBytes)
        }

        public mutating func next() async throws(CourierError) -> ServerSentEvent? {
            while true {
                if pendingIndex < pending.count {
                    defer { pendingIndex += 1 }
                    return pending[pendingIndex]
                }
                guard let current = action else { return nil }
                switch current {
                case .connect(let lastEventID):
                    await connect(lastEventID: lastEventID)
                case .read:
                    await read()
                case .wait(let delay):
                    do { try await Task.sleep(for: delay) } catch {
                        action = reconnection.failed(CourierError(.cancelled, failingURL: request.url, detail: "the task was cancelled"))
                        continue
                    }
                    action = reconnection.delayElapsed()
                case .stop:
                    action = nil
                    return nil
                case .fail(let error):
                    action = nil
                    body = nil
                    throw error
                }
            }
        }

        /// Sends the request (with `Last-Event-ID` when there is one) and judges the response.
        private mutating func connect(lastEventID: String) async {
            var request = request
            if !lastEventID.isEmpty {
                // An ID the field syntax refuses (a control character) cannot be sent; the
                // request then goes without one rather than with an older one.
                request.headers.remove(name: "Last-Event-ID")
                try? request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID")
            }
            do {
                let (bytes, response) = try await session.bytes(for: request)
                action = reconnection.responseArrived(response)
                if case .read? = action {
                    body = bytes.makeAsyncIterator()
                    parser = EventStreamParser(maximumEventBytes: configuration.maximumEventBytes, lastEventID: lastEventID)
                }
            } catch {
                action = reconnection.failed(error)
            }
        }

        /// Reads one piece of the body and parses it.
        private mutating func read() async {
            guard var iterator = body else {
                action = reconnection.streamEnded()
                return
            }
            let chunk: ByteBuffer?
            do { chunk = try await iterator.next() } catch {
                body = nil
                action = reconnection.failed(error)
                return
            }
            guard let chunk else {
                // The server ended the stream; an event still open is dropped (WHATWG HTML §9.2.6).
                body = nil
                action = reconnection.streamEnded()
                return
            }
            body = iterator
            // `next()` reads only once every parsed event was returned.
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
            var outputs: [EventStreamParser.Output] = []
            var failure: CourierError?
            do { try parser.feed(chunk, into: &outputs) } catch { failure = error }
            for output in outputs {
                switch output {
                case .event(let event): pending.append(event)
                case .retry(let milliseconds): reconnection.retryField(milliseconds: milliseconds)
                }
            }
            reconnection.lastEventID = parser.lastEventID
            if let failure {
                body = nil
                action = reconnection.failed(failure.with(response: nil, body: nil, failingURL: request.url))
            }
        }
    }
}
