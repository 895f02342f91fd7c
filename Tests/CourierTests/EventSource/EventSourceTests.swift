import Courier
import CourierCore
import CourierTestSupport
import FoundationEssentials
import Synchronization
import Testing

/// `SessionManager.eventSource(for:)` against the scripted loopback server: events as they
/// arrive, reconnection with `Last-Event-ID` after the server's `retry`, and the ways a stream
/// ends (204, a wrong status or content type, an event past its bound, cancellation).
@Suite(.serialized) struct EventSourceTests {
    static let eventStream = [("Content-Type", "text/event-stream")]

    /// A reconnection waits with `Task.sleep`, which makes Dispatch open its timer descriptor on
    /// first use (once per process): open it before the descriptors are counted.
    static func openDispatchTimerDescriptor() {
        _ = AsyncCall { () async throws(Never) in try? await Task.sleep(for: .milliseconds(1)) }.wait()
    }

    /// Reads `source` until `count` events arrived (then drops the iterator) or it ends.
    static func collect(_ source: EventSource, count: Int = .max) -> AsyncCall<[ServerSentEvent], CourierError> {
        AsyncCall { () async throws(CourierError) -> [ServerSentEvent] in
            var events: [ServerSentEvent] = []
            guard count > 0 else { return events }
            for try await event in source {
                events.append(event)
                if events.count == count { break }
            }
            return events
        }
    }

    @Test func eventsArriveAsTheServerSendsThem() throws {
        try withSession { manager, server in
            server.route("/events") { _, connection in
                try connection.sendChunkedHead(headers: Self.eventStream)
                // Cut inside fields, between a CR and its LF, and inside a multi-byte character.
                for piece in ["\u{FEFF}: hello\r", "\nevent: greeting\ndata: hel", "lo\r", "\n\r", "\nid: 1\ndata: ü", "ber\ndata: two lines\n\n", "data: third\n\n"] {
                    try connection.sendChunk(Array(piece.utf8))
                }
                try connection.endChunks()
            }
            let source = manager.eventSource(for: Request(url: url(server, "/events")))
            let events = try #require(Self.collect(source, count: 3).wait()).get()
            #expect(events == [
                ServerSentEvent(type: "greeting", data: "hello"),
                ServerSentEvent(data: "über\ntwo lines", lastEventID: "1"),
                ServerSentEvent(data: "third", lastEventID: "1"),
            ])
            let request = try #require(server.requests.first)
            #expect(request.header("Accept") == "text/event-stream")
            #expect(request.header("Cache-Control") == "no-cache")
            #expect(request.header("Last-Event-ID") == nil)
            #expect(server.requests.count == 1)
        }
    }

    @Test func itReconnectsWithLastEventIDAfterTheServersRetry() throws {
        Self.openDispatchTimerDescriptor()
        try withSession { manager, server in
            let secondArrived = Mutex<ContinuousClock.Instant?>(nil)
            server.route("/events") { request, connection in
                if request.header("Last-Event-ID") == nil {
                    // The server ends the stream and closes the connection.
                    connection.closeAfterResponse = true
                    try connection.sendChunkedHead(headers: Self.eventStream)
                    try connection.sendChunk(Array("retry: 10\nid: 1\ndata: one\n\nid: 2\ndata: unfinished\n".utf8))
                    try connection.endChunks()
                } else {
                    secondArrived.withLock { $0 = .now }
                    try connection.sendChunked(headers: Self.eventStream, chunks: [Array("id: 3\ndata: two\n\n".utf8)])
                }
            }
            // A minute by default: only the server's 10 ms lets the test finish in time.
            let configuration = EventSourceConfiguration(retryInterval: .seconds(60))
            let source = manager.eventSource(for: Request(url: url(server, "/events")), configuration: configuration)
            let firstReceived = Mutex<ContinuousClock.Instant?>(nil)
            let call = AsyncCall { () async throws(CourierError) -> [ServerSentEvent] in
                var events: [ServerSentEvent] = []
                for try await event in source {
                    if events.isEmpty { firstReceived.withLock { $0 = .now } }
                    events.append(event)
                    if events.count == 2 { break }
                }
                return events
            }
            let events = try #require(call.wait(), "the stream did not reconnect after the server's retry").get()
            #expect(events == [ServerSentEvent(data: "one", lastEventID: "1"), ServerSentEvent(data: "two", lastEventID: "3")])
            #expect(server.requests.count == 2)
            // The unfinished event's id was never committed: the reconnection resumes from 1.
            #expect(server.requests.map { $0.header("Last-Event-ID") } == [nil, "1"])
            #expect(server.connectionsAccepted == 2)
            let first = try #require(firstReceived.withLock { $0 })
            let second = try #require(secondArrived.withLock { $0 })
            #expect(second - first >= .milliseconds(10), "reconnected after \(second - first)")
        }
    }

    @Test func itReconnectsWhenTheConnectionBreaks() throws {
        Self.openDispatchTimerDescriptor()
        try withSession { manager, server in
            server.route("/events") { request, connection in
                if request.header("Last-Event-ID") == nil {
                    try connection.sendChunkedHead(headers: Self.eventStream)
                    try connection.sendChunk(Array("retry: 1\nid: a\ndata: before\n\n".utf8))
                    connection.reset()
                } else {
                    try connection.sendChunked(headers: Self.eventStream, chunks: [Array("data: after\n\n".utf8)])
                }
            }
            let source = manager.eventSource(for: Request(url: url(server, "/events")), configuration: EventSourceConfiguration(retryInterval: .seconds(60)))
            let events = try #require(Self.collect(source, count: 2).wait()).get()
            #expect(events == [ServerSentEvent(data: "before", lastEventID: "a"), ServerSentEvent(data: "after", lastEventID: "a")])
            #expect(server.requests.map { $0.header("Last-Event-ID") } == [nil, "a"])
        }
    }

    @Test func status204EndsTheStreamWithoutReconnecting() throws {
        try withSession { manager, server in
            server.route("/events") { _, connection in try connection.respond(status: 204) }
            let source = manager.eventSource(for: Request(url: url(server, "/events")), configuration: EventSourceConfiguration(retryInterval: .zero))
            let events = try #require(Self.collect(source).wait()).get()
            #expect(events.isEmpty)
            #expect(server.requests.count == 1)
        }
    }

    @Test func aWrongContentTypeFailsWithTheResponse() throws {
        try withSession { manager, server in
            server.route("/events") { _, connection in
                try connection.respond(headers: [("Content-Type", "text/plain")], body: "data: not an event\n\n")
            }
            let source = manager.eventSource(for: Request(url: url(server, "/events")), configuration: EventSourceConfiguration(retryInterval: .zero))
            let result = try #require(Self.collect(source).wait())
            guard case .failure(let error) = result else {
                Issue.record("a text/plain response was read as an event stream: \(result)")
                return
            }
            #expect(error.code == .unacceptableContentType)
            #expect(error.response?.statusCode == 200)
            #expect(error.response?.mimeType == "text/plain")
            #expect(server.requests.count == 1)
        }
    }

    @Test func anErrorStatusFailsWithTheResponse() throws {
        try withSession { manager, server in
            server.route("/events") { _, connection in
                try connection.respond(status: 503, headers: Self.eventStream, body: "data: busy\n\n")
            }
            let source = manager.eventSource(for: Request(url: url(server, "/events")), configuration: EventSourceConfiguration(retryInterval: .zero))
            let result = try #require(Self.collect(source).wait())
            guard case .failure(let error) = result else {
                Issue.record("a 503 was read as an event stream: \(result)")
                return
            }
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.response?.statusCode == 503)
            #expect(server.requests.count == 1)
        }
    }

    @Test func anEventPastTheBoundFailsTheStreamAndClosesTheConnection() throws {
        try withSession { manager, server in
            let closed = Outcome<Bool>()
            server.route("/events") { _, connection in
                try connection.sendChunkedHead(headers: Self.eventStream)
                try connection.sendChunk(Array("data: small\n\n".utf8))
                try connection.sendChunk(Array(("data: " + String(repeating: "x", count: 200)).utf8))
                closed.set(connection.waitForPeerClose())
            }
            let configuration = EventSourceConfiguration(retryInterval: .zero, maximumEventBytes: 100)
            let source = manager.eventSource(for: Request(url: url(server, "/events")), configuration: configuration)
            let events = Recorder<ServerSentEvent>()
            let call = AsyncCall { () async throws(CourierError) in
                for try await event in source { events.append(event) }
            }
            let result = try #require(call.wait())
            guard case .failure(let error) = result else {
                Issue.record("an event past the bound was accepted")
                return
            }
            #expect(error.code == .eventTooLarge)
            #expect(events.all == [ServerSentEvent(data: "small")])
            #expect(closed.wait() == true, "the client did not close the connection")
            #expect(server.requests.count == 1)
        }
    }

    @Test func cancellingTheTaskClosesTheConnection() throws {
        try withSession { manager, server in
            let closed = Outcome<Bool>()
            server.route("/events") { _, connection in
                try connection.sendChunkedHead(headers: Self.eventStream)
                try connection.sendChunk(Array("data: first\n\n".utf8))
                closed.set(connection.waitForPeerClose(timeout: .seconds(20)))
            }
            let source = manager.eventSource(for: Request(url: url(server, "/events")))
            let first = TestEvent()
            let call = AsyncCall { () async throws(CourierError) -> Int in
                var count = 0
                for try await _ in source {
                    count += 1
                    first.signal()
                }
                return count
            }
            #expect(first.wait(timeout: .seconds(20)))
            call.cancel()
            let result = try #require(call.wait(), "cancelling did not end the stream")
            guard case .failure(let error) = result else {
                Issue.record("a cancelled stream ended without an error: \(result)")
                return
            }
            #expect(error.code == .cancelled)
            #expect(closed.wait() == true, "the server did not see the connection close")
            #expect(server.requests.count == 1, "a cancelled stream does not reconnect")
        }
    }

    @Test func theHTTPSessionManagerOpensAStreamByPath() throws {
        try withHTTPSession(baseURLPath: "/api/") { manager, server in
            server.route("/api/events") { _, connection in
                try connection.sendChunked(headers: Self.eventStream, chunks: [Array("event: tick\ndata: 1\n\n".utf8)])
            }
            let source = try manager.eventSource("events", parameters: ["topic": "a b"])
            let events = try #require(Self.collect(source, count: 1).wait()).get()
            #expect(events == [ServerSentEvent(type: "tick", data: "1")])
            #expect(server.requests.first?.target == "/api/events?topic=a%20b")
        }
    }
}
