import CourierClient
import CourierCore
import CourierHTTP1
import Dispatch
import Testing

/// `execute(_:delegate:reusing:)`: an ended execution that nothing else refers to carries the
/// next request exactly as a new one would; any other spare is left alone and a new execution
/// is made.
@Suite(.serialized) struct ExecutionReuseTests {
    /// Returns once every loop of `client` has run a job queued now: the handler that ended the
    /// last request has returned by then, and with it the references its stack held.
    static func settle(_ client: HTTPClient) {
        let done = DispatchSemaphore(value: 0)
        for loop in client.eventLoopGroup.loops { loop.execute { done.signal() } }
        for _ in client.eventLoopGroup.loops { done.wait() }
    }

    /// Ends one request on `client` and returns its execution, unique to the caller.
    static func ended(_ client: HTTPClient, _ url: String, _ delegate: RecordingDelegate) throws -> HTTPRequestExecution {
        let execution = client.execute(try get(url), delegate: delegate)
        #expect(delegate.wait(seconds: 20), "the first request did not end")
        settle(client)
        return execution
    }

    @Test func anEndedExecutionCarriesTheNextRequest() throws {
        try withClientAndServer { client, server in
            server.route("/a") { _, connection in try connection.respond(body: "first") }
            server.route("/b") { _, connection in try connection.respond(headers: [("X-Second", "yes")], body: "second!") }
            let first = RecordingDelegate()
            var spare: HTTPRequestExecution? = try Self.ended(client, "\(server.baseURL)/a", first)
            let original = ObjectIdentifier(try #require(spare))

            let second = RecordingDelegate()
            let reused = client.execute(try get("\(server.baseURL)/b"), delegate: second, reusing: &spare)
            #expect(spare == nil, "the spare is handed over")
            #expect(ObjectIdentifier(reused) == original, "an ended, unreferenced execution is reused")
            #expect(second.wait(seconds: 20))
            #expect(second.error == nil)
            #expect(second.head?.headers[first: "X-Second"] == "yes")
            #expect(second.body == Array("second!".utf8))
            #expect(second.events.filter { $0 == .finished }.count == 1)
            let metrics = try #require(second.metrics)
            #expect(metrics.bodyBytesDelivered == 7, "metrics start from zero")
            #expect(metrics.reusedConnection)
            #expect(metrics.redirectCount == 0)
            // The first request's delegate heard nothing of the second.
            #expect(first.body == Array("first".utf8))
            #expect(first.events.filter { $0 == .finished }.count == 1)
            #expect(first.head?.headers[first: "X-Second"] == nil)
        }
    }

    /// The metrics lent to `didFinish` are the execution's again once it returned, and a reused
    /// execution on the same connection shows that connection's facts (kept across the reuse,
    /// hidden until the connection takes the request).
    @Test func theMetricsLentToDidFinishComeBackAndTheConnectionFactsFollowAReuse() throws {
        try withClientAndServer { client, server in
            server.route("/a") { _, connection in try connection.respond(body: "first") }
            let first = RecordingDelegate()
            var spare: HTTPRequestExecution? = try Self.ended(client, "\(server.baseURL)/a", first)
            do {
                let lent = try #require(first.metrics)
                let after = try #require(spare).metricsSoFar
                #expect(after.fetchStart == lent.fetchStart)
                #expect(after.responseEnd != nil && after.responseEnd == lent.responseEnd)
                #expect(after.bytesReceived > 0 && after.bytesReceived == lent.bytesReceived)
                #expect(after.bodyBytesDelivered == 5)
                #expect(after.remoteAddress?.port == server.port && after.remoteAddress == lent.remoteAddress)
            }
            let original = ObjectIdentifier(try #require(spare))

            let second = RecordingDelegate()
            let reused = client.execute(try get("\(server.baseURL)/a"), delegate: second, reusing: &spare)
            #expect(ObjectIdentifier(reused) == original)
            #expect(second.wait(seconds: 20))
            let metrics = try #require(second.metrics)
            #expect(metrics.reusedConnection)
            #expect(metrics.remoteAddress?.port == server.port)
            #expect(metrics.localAddress != nil)
            #expect(metrics.bodyBytesDelivered == 5)
        }
    }

    /// One request value sent again and again (what the execution and the connection keep
    /// derived from it is reused), then changed copies of it: each change reaches the wire, on
    /// the same connection, and the unchanged value sent after them is sent as it was.
    @Test func theSameRequestAgainAndChangedCopiesOfItAreEachSentAsTheyAre() throws {
        try withClientAndServer { client, server in
            server.route("/echo") { request, connection in
                let tag = request.headers.first { $0.name == "X-Tag" }?.value ?? "-"
                try connection.respond(body: "\(request.indexOnConnection) \(request.method) \(request.target) \(tag)")
            }
            let request = try get("\(server.baseURL)/echo?q=1")
            var tagged = request
            try tagged.headers.append(name: "X-Tag", value: "one")
            var retagged = request
            try retagged.headers.append(name: "X-Tag", value: "two")
            var moved = request
            moved.url = try HTTPURL("\(server.baseURL)/echo?q=2")
            let expected = [
                (request, "0 GET /echo?q=1 -"), (request, "1 GET /echo?q=1 -"), (tagged, "2 GET /echo?q=1 one"),
                (retagged, "3 GET /echo?q=1 two"), (moved, "4 GET /echo?q=2 -"), (request, "5 GET /echo?q=1 -"),
                (tagged, "6 GET /echo?q=1 one"),
            ]
            var spare: HTTPRequestExecution?
            var previous: HTTPRequestExecution?
            for (sent, body) in expected {
                let delegate = RecordingDelegate()
                let execution = client.execute(sent, delegate: delegate, reusing: &spare)
                #expect(delegate.wait(seconds: 20))
                #expect(delegate.error == nil)
                #expect(delegate.bodyString == body)
                Self.settle(client)
                spare = previous
                previous = execution
            }
            #expect(server.connectionsAccepted == 1)
        }
    }

    /// The checks a request must pass before a connection is asked for (no framing field set by
    /// the caller) are skipped only for the very request that passed them in this execution: a
    /// refused request is refused each time it is sent again, and a changed copy of a request
    /// that passed is checked anew.
    @Test func theChecksRunForEveryRequestThatHasNotPassedThem() throws {
        try withClientAndServer { client, server in
            server.route("/ok") { _, connection in try connection.respond(body: "ok") }
            let good = try get("\(server.baseURL)/ok")
            var bad = good
            try bad.headers.append(name: "Content-Length", value: "0")
            var spare: HTTPRequestExecution?
            var made: [ObjectIdentifier] = []
            for (sent, passes) in [(bad, false), (bad, false), (good, true), (good, true), (bad, false), (good, true)] {
                let delegate = RecordingDelegate()
                let execution = client.execute(sent, delegate: delegate, reusing: &spare)
                made.append(ObjectIdentifier(execution))
                #expect(delegate.wait(seconds: 20))
                if passes {
                    #expect(delegate.error == nil)
                    #expect(delegate.bodyString == "ok")
                } else {
                    #expect(delegate.error?.code == .invalidRequest)
                    #expect(delegate.bodyString == "")
                }
                Self.settle(client)
                spare = execution
            }
            #expect(Set(made).count == 1, "every request ran in the one execution")
            #expect(server.requests.count == 3, "a refused request never reaches the server")
        }
    }

    @Test func aReusedExecutionForgetsTheRedirectsOfItsLastRequest() throws {
        try withClientAndServer { client, server in
            server.route("/from") { _, connection in try connection.respond(status: 302, headers: [("Location", "/to")], body: "moved") }
            server.route("/to") { _, connection in try connection.respond(body: "landed") }
            server.route("/plain") { _, connection in try connection.respond(body: "plain") }
            let first = RecordingDelegate()
            var spare: HTTPRequestExecution? = try Self.ended(client, "\(server.baseURL)/from", first)
            #expect(first.metrics?.redirectCount == 1)
            #expect(first.hops.count == 1)

            let second = RecordingDelegate()
            _ = client.execute(try get("\(server.baseURL)/plain"), delegate: second, reusing: &spare)
            #expect(second.wait(seconds: 20))
            #expect(second.error == nil)
            #expect(second.body == Array("plain".utf8))
            #expect(second.metrics?.redirectCount == 0)
            #expect(second.hops.isEmpty)
            #expect(second.events == [.headSent, .head(200), .body(5), .finished])
        }
    }

    @Test func aSpareSomeoneElseHoldsIsLeftAlone() throws {
        try withClientAndServer { client, server in
            server.route("/a") { _, connection in try connection.respond(body: "first") }
            let first = RecordingDelegate()
            var spare: HTTPRequestExecution? = try Self.ended(client, "\(server.baseURL)/a", first)
            let held = try #require(spare)

            let second = RecordingDelegate()
            let made = client.execute(try get("\(server.baseURL)/a"), delegate: second, reusing: &spare)
            #expect(made !== held, "an execution the caller still holds is never reused")
            #expect(spare == nil)
            #expect(second.wait(seconds: 20))
            #expect(second.body == Array("first".utf8))
            #expect(first.events.filter { $0 == .finished }.count == 1)
        }
    }

    @Test func aSpareStillInFlightIsLeftAlone() throws {
        try withClientAndServer { client, server in
            let release = DispatchSemaphore(value: 0)
            server.route("/slow") { _, connection in
                // Bounded, so a failed test cannot leave the server's thread waiting forever.
                _ = release.wait(timeout: .now() + 20)
                try connection.respond(body: "slow")
            }
            server.route("/fast") { _, connection in try connection.respond(body: "fast") }
            let slow = RecordingDelegate()
            var spare: HTTPRequestExecution? = client.execute(try get("\(server.baseURL)/slow"), delegate: slow)
            let inFlight = ObjectIdentifier(try #require(spare))

            let fast = RecordingDelegate()
            let made = client.execute(try get("\(server.baseURL)/fast"), delegate: fast, reusing: &spare)
            #expect(ObjectIdentifier(made) != inFlight, "a request in flight keeps its execution")
            #expect(fast.wait(seconds: 20))
            #expect(fast.body == Array("fast".utf8))
            release.signal()
            #expect(slow.wait(seconds: 20))
            #expect(slow.body == Array("slow".utf8))
        }
    }

    @Test func aSpareOfAnotherClientIsLeftAlone() throws {
        try withClientAndServer { client, server in
            server.route("/a") { _, connection in try connection.respond(body: "first") }
            var configuration = HTTPClientConfiguration()
            configuration.eventLoopThreads = 1
            let other = try HTTPClient(configuration: configuration)
            defer { other.shutdown() }
            let first = RecordingDelegate()
            var spare: HTTPRequestExecution? = try Self.ended(other, "\(server.baseURL)/a", first)
            // Weak: it does not count as a holder, and it tells a reused object (still there)
            // from one dropped (gone; a new one may then be made at the same address).
            weak let original = spare

            let second = RecordingDelegate()
            let made = client.execute(try get("\(server.baseURL)/a"), delegate: second, reusing: &spare)
            #expect(original == nil, "an execution belongs to its client: the spare was dropped, not reused")
            #expect(made !== original)
            #expect(second.wait(seconds: 20))
            #expect(second.body == Array("first".utf8))
        }
    }
}
