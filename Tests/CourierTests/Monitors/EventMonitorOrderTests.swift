import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// The order in which a monitor sees a task's lifecycle points, on its own queue, against the
/// scripted loopback server.
@Suite(.serialized) struct EventMonitorOrderTests {
    @Test func aPlainGetIsCreatedResumedStartedAnsweredAndCompleted() throws {
        let monitor = RecordingMonitor()
        try withSession(configure: { $0.eventMonitors = [monitor] }) { manager, server in
            server.route("/plain") { _, connection in try connection.respond(body: "hello") }
            let response = try runData(manager, Request(url: url(server, "/plain")))
            #expect(response.value == Data("hello".utf8))
            #expect(monitor.done.wait(timeout: .seconds(20)))
            #expect(monitor.merged == ["created", "resumed", "attempt 1 GET /plain", "head GET /plain", "response 200", "data", "metrics 1", "completed 200"])
            #expect(monitor.deliveredOffQueue == 0, "every event runs on the monitor's queue")
        }
        #expect(monitor.all.last == "invalidated", "the session's invalidation comes last")
    }

    /// `didSendRequestHead` carries the head as written (with the `Host` the transport added)
    /// and the connection as measured by then: new, then reused, and no response time yet.
    @Test func aSentHeadCarriesTheHeadAsWrittenAndTheConnectionSoFar() throws {
        let monitor = RecordingMonitor(completions: 2)
        try withSession(configure: { $0.eventMonitors = [monitor] }) { manager, server in
            server.route("/one") { _, connection in try connection.respond(body: "1") }
            _ = try runData(manager, Request(url: url(server, "/one")))
            _ = try runData(manager, Request(url: url(server, "/one")))
            #expect(monitor.done.wait(timeout: .seconds(20)))
            let heads = monitor.sentHeads.withLock { $0 }
            try #require(heads.count == 2)
            #expect(heads[0].head.method == .GET && heads[0].head.target == .origin("/one"))
            #expect(heads[0].head.headers[first: "Host"] == server.authority)
            #expect(!heads[0].metrics.reusedConnection && heads[0].metrics.connectEnd != nil)
            #expect(heads[0].metrics.remoteAddress?.port == server.port)
            #expect(heads[1].metrics.reusedConnection, "the second request went out on the kept-alive connection")
            #expect(heads.allSatisfy { $0.metrics.requestStart != nil && $0.metrics.responseStart == nil })
        }
    }

    @Test func aRedirectIsReportedBetweenTheAttemptAndTheFinalResponse() throws {
        let monitor = RecordingMonitor()
        try withSession(configure: { $0.eventMonitors = [monitor] }) { manager, server in
            server.route("/from") { _, connection in try connection.respond(status: 302, headers: [("Location", "/to")]) }
            server.route("/to") { _, connection in try connection.respond(body: "there") }
            let response = try runData(manager, Request(url: url(server, "/from")))
            #expect(response.value == Data("there".utf8))
            #expect(monitor.done.wait(timeout: .seconds(20)))
            #expect(monitor.merged == [
                "created", "resumed", "attempt 1 GET /from", "head GET /from", "redirect 302 -> /to", "head GET /to", "response 200", "data",
                "metrics 2", "completed 200",
            ])
        }
    }

    /// An adapter of the caller's (one that changes nothing) beside the retry policy: each
    /// attempt is adapted, then retried once.
    @Test func aRetriedRequestReportsTheDecisionAndASecondAttempt() throws {
        struct Unchanged: RequestAdapter {
            func adapt(_ request: Request, context: AdaptationContext) async throws -> Request { request }
        }
        let monitor = RecordingMonitor()
        try withSession(configure: { configuration in
            configuration.eventMonitors = [monitor]
            configuration.interceptor = Interceptor(adapters: [Unchanged()], retriers: [RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0)])
        }) { manager, server in
            let calls = Counter()
            server.route("/flaky") { _, connection in
                calls.add(1)
                if calls.value == 1 {
                    try connection.respond(status: 503, body: "busy")
                } else {
                    try connection.respond(body: "fine")
                }
            }
            let response = try runData(manager, Request(url: url(server, "/flaky")))
            #expect(response.value == Data("fine".utf8))
            #expect(monitor.done.wait(timeout: .seconds(20)))
            #expect(monitor.merged == [
                "created", "resumed", "adapted", "attempt 1 GET /flaky", "head GET /flaky", "response 503",
                "retry after 0.0 (unacceptableStatusCode)", "adapted", "attempt 2 GET /flaky", "head GET /flaky", "response 200", "data", "metrics 2", "completed 200",
            ])
        }
    }

    @Test func aCancelledTaskReportsTheCancelBeforeItsCompletion() throws {
        let monitor = RecordingMonitor()
        try withSession(configure: { $0.eventMonitors = [monitor] }) { manager, server in
            let release = TestEvent()
            server.route("/slow") { _, connection in
                try connection.sendHead(headers: [("Content-Length", "10")])
                try connection.stall(until: release, timeout: .seconds(20))
            }
            defer { release.signal() }
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/slow"))) { outcome.set($0) }
            task.resume()
            #expect(monitor.responded.wait(timeout: .seconds(20)))
            task.cancel()
            task.cancel()  // a second cancel changes nothing and is not reported
            let response = try #require(outcome.wait())
            #expect(response.error?.code == .cancelled)
            #expect(monitor.done.wait(timeout: .seconds(20)))
            #expect(monitor.merged == [
                "created", "resumed", "attempt 1 GET /slow", "head GET /slow", "response 200", "cancelled", "metrics 1", "completed cancelled",
            ])
        }
    }

    @Test func aTaskCancelledBeforeItStartsMakesNoAttempt() throws {
        let monitor = RecordingMonitor()
        try withSession(configure: { $0.eventMonitors = [monitor] }) { manager, server in
            let outcome = Outcome<DataResponse<Data>>()
            let task = manager.dataTask(with: Request(url: url(server, "/never"))) { outcome.set($0) }
            task.cancel()
            let response = try #require(outcome.wait())
            #expect(response.error?.code == .cancelled)
            #expect(monitor.done.wait(timeout: .seconds(20)))
            #expect(monitor.merged == ["created", "cancelled", "metrics 0", "completed cancelled"])
            #expect(server.requests.isEmpty)
        }
    }

    @Test func hooksObserversAndMonitorsAllSeeOneTask() throws {
        let monitor = RecordingMonitor()
        let marker = QueueMarker()
        try withSession(configure: { $0.eventMonitors = [monitor] }, completionQueue: marker.queue) { manager, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let order = Recorder<String>()
            manager.updateHooks { hooks in
                hooks.dataTaskDidReceiveData = { _, _ in order.append("data hook") }
                hooks.taskDidFinishCollectingMetrics = { _, _ in order.append("metrics hook") }
                hooks.taskDidComplete = { _, _ in order.append("complete hook") }
            }
            manager.addObserver { event in
                switch event {
                case .taskResumed: order.append("resumed event")
                case .taskCompleted: order.append("completed event")
                default: break
                }
            }
            let outcome = Outcome<Bool>()
            manager.dataTask(with: Request(url: url(server, "/x"))) { _ in
                order.append("handler")
                outcome.set(marker.isCurrent)
            }.resume()
            #expect(outcome.wait() == true)
            #expect(monitor.done.wait(timeout: .seconds(20)))
            #expect(order.all == ["resumed event", "data hook", "metrics hook", "complete hook", "completed event", "handler"],
                    "hooks and observers keep their places on the completion queue, before the completion handler")
            #expect(monitor.merged.last == "completed 200")
        }
    }
}
