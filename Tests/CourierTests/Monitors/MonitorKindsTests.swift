import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// The composite, closure and logging monitors.
@Suite(.serialized) struct MonitorKindsTests {
    @Test func aCompositeFansEveryEventOutToEachMemberInOrder() throws {
        let first = RecordingMonitor(), second = RecordingMonitor()
        let marker = QueueMarker(label: "courier.tests.composite")
        let composite = CompositeEventMonitor([first, second], queue: marker.queue)
        let onQueue = Recorder<Bool>()
        var probe = ClosureEventMonitor(queue: marker.queue)
        probe.onTaskCompleted = { _ in onQueue.append(marker.isCurrent) }
        try withSession(configure: { $0.eventMonitors = [CompositeEventMonitor([composite, probe], queue: marker.queue)] }) { manager, server in
            server.route("/a") { _, connection in try connection.respond(body: "a") }
            server.route("/b") { _, connection in try connection.respond(status: 404, body: "b") }
            _ = try runData(manager, Request(url: url(server, "/a")))
            _ = try runData(manager, Request(url: url(server, "/b")))
            #expect(waitUntil { onQueue.count == 2 })
            let expected = [
                "created", "resumed", "attempt 1 GET /a", "head GET /a", "response 200", "data", "metrics 1", "completed 200",
                "created", "resumed", "attempt 1 GET /b", "head GET /b", "response 404", "data", "metrics 1", "completed 404",
            ]
            #expect(first.merged == expected)
            #expect(second.merged == expected)
            #expect(onQueue.all == [true, true], "members run on the composite's queue")
        }
    }

    @Test func aClosureMonitorCallsTheClosuresThatAreSet() throws {
        let marker = QueueMarker(label: "courier.tests.closure-monitor")
        var monitor = ClosureEventMonitor(queue: marker.queue)
        let seen = Recorder<String>()
        let onQueue = Recorder<Bool>()
        let done = TestEvent()
        monitor.onTaskResumed = { task in seen.append("resumed \(task.originalRequest.url.path)") }
        monitor.onResponse = { _, response in seen.append("response \(response.statusCode) \(response.value(forHTTPHeaderField: "X-Id") ?? "")") }
        monitor.onData = { _, data in seen.append("data \(String(decoding: data, as: UTF8.self))") }
        monitor.onMetrics = { _, metrics in seen.append("metrics attempts=\(metrics.attemptCount)") }
        monitor.onTaskCompleted = { completion in
            seen.append("completed \(completion.serializedObject as? String ?? "?")")
            onQueue.append(marker.isCurrent)
            done.signal()
        }
        try withSession(configure: { $0.eventMonitors = [monitor] }) { manager, server in
            server.route("/c") { _, connection in try connection.respond(headers: [("X-Id", "7")], body: "body") }
            let response: DataResponse<String> = try run { finish in
                manager.dataTask(with: Request(url: url(server, "/c")), serializer: StringResponseSerializer(), completionHandler: finish)
            }
            #expect(response.value == "body")
            #expect(done.wait(timeout: .seconds(20)))
            #expect(seen.all == ["resumed /c", "response 200 7", "data body", "metrics attempts=1", "completed body"])
            #expect(onQueue.all == [true])
        }
    }

    @Test func theLoggingMonitorWritesOneLinePerRequestWithoutCredentials() throws {
        let lines = Recorder<String>()
        let written = TestEvent()
        let logger = LoggingEventMonitor { line in
            lines.append(line)
            written.signal()
        }
        try withSession(configure: { $0.eventMonitors = [logger] }) { manager, server in
            server.route("/log") { _, connection in try connection.respond(body: "twelve bytes") }
            var components = try #require(URLComponents(url: url(server, "/log?page=2"), resolvingAgainstBaseURL: false))
            components.user = "ann"
            components.password = "s3cret"
            let response = try runData(manager, Request(url: try #require(components.url)))
            #expect(response.error == nil)
            #expect(written.wait(timeout: .seconds(20)))
            let line = try #require(lines.all.first)
            #expect(lines.count == 1)
            #expect(line.hasPrefix("GET http://ann:***@\(server.baseURL.dropFirst("http://".count))/log?page=2 status=200 "), "\(line)")
            #expect(!line.contains("s3cret"))
            let fields = Dictionary(line.split(separator: " ").dropFirst(2).compactMap { field -> (String, String)? in
                let pair = field.split(separator: "=", maxSplits: 1)
                return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
            let metrics = try #require(response.metrics)
            #expect(fields["sent"] == String(metrics.transactionMetrics[0].bytesSent))
            #expect(fields["received"] == String(metrics.transactionMetrics[0].bytesReceived))
            #expect(Int(fields["received"] ?? "") ?? 0 > 12, "the head and the twelve body bytes")
            #expect(fields["attempts"] == "1" && fields["retries"] == "0" && fields["redirects"] == "0")
            for phase in ["connect", "request", "wait", "response", "total"] {
                #expect(fields[phase]?.hasSuffix("ms") == true, "\(phase) is timed: \(line)")
            }
            #expect(fields["tls"] == "-", "a plain http request has no handshake")
        }
    }

    @Test func theLoggingMonitorCountsAttemptsAndRetries() throws {
        let lines = Recorder<String>()
        let written = TestEvent()
        let logger = LoggingEventMonitor { line in
            lines.append(line)
            written.signal()
        }
        try withSession(configure: { configuration in
            configuration.eventMonitors = [logger]
            configuration.interceptor = RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0)
        }) { manager, server in
            server.route("/down") { _, connection in try connection.respond(status: 503, body: "no") }
            let response = try runData(manager, Request(url: url(server, "/down")))
            #expect(response.response?.statusCode == 503)
            #expect(written.wait(timeout: .seconds(20)))
            let line = try #require(lines.all.first)
            #expect(line.contains(" status=503 "), "\(line)")
            #expect(line.contains(" attempts=3 retries=2 "), "\(line)")
        }
    }
}
