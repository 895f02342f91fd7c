@testable import Courier
import CourierCore
import FoundationEssentials
import Testing

/// `EventSourceReconnection`, the value that decides when an ``EventSource`` connects, reads,
/// waits and stops (WHATWG HTML §9.2.3), driven without sockets.
@Suite struct EventSourceReconnectionTests {
    static let url = URL(string: "http://example.test/events")!

    static func response(_ status: Int, _ contentType: String? = "text/event-stream") -> Response {
        var headers = HTTPFields()
        if let contentType { try? headers.append(name: "Content-Type", value: contentType) }
        return Response(url: url, statusCode: status, headers: headers)
    }

    static func transport(_ phase: CourierError.Phase) -> CourierError {
        CourierError(.transport, phase: phase, failingURL: url, detail: "test")
    }

    /// The action as a short string, so the tests read as tables.
    static func describe(_ action: EventSourceReconnection.Action) -> String {
        switch action {
        case .connect(let id): return "connect(\(id))"
        case .read: return "read"
        case .wait(let delay): return "wait(\(delay))"
        case .stop: return "stop"
        case .fail(let error): return "fail(\(error.code))"
        }
    }

    func open(_ machine: inout EventSourceReconnection) {
        #expect(Self.describe(machine.start()) == "connect()")
        #expect(Self.describe(machine.responseArrived(Self.response(200))) == "read")
    }

    @Test func itConnectsReadsAndReconnectsWithTheLastEventIDAfterTheDefaultDelay() {
        var machine = EventSourceReconnection(EventSourceConfiguration())
        open(&machine)
        machine.lastEventID = "42"
        #expect(Self.describe(machine.streamEnded()) == "wait(\(Duration.seconds(3)))")
        #expect(Self.describe(machine.delayElapsed()) == "connect(42)")
        #expect(Self.describe(machine.responseArrived(Self.response(200))) == "read")
    }

    @Test func theFirstConnectionSendsTheConfiguredLastEventID() {
        var machine = EventSourceReconnection(EventSourceConfiguration(lastEventID: "resume-7"))
        #expect(Self.describe(machine.start()) == "connect(resume-7)")
        #expect(Self.describe(machine.start()) == "stop", "start is once")
    }

    @Test func theServersRetryReplacesTheDelayWithinTheCap() {
        var machine = EventSourceReconnection(EventSourceConfiguration(retryInterval: .seconds(60), maximumRetryInterval: .seconds(5)))
        #expect(machine.reconnectionTime == .seconds(5), "the configured delay is capped too")
        open(&machine)
        machine.retryField(milliseconds: 10)
        #expect(Self.describe(machine.streamEnded()) == "wait(\(Duration.milliseconds(10)))")
        #expect(Self.describe(machine.delayElapsed()) == "connect()")
        #expect(Self.describe(machine.responseArrived(Self.response(200))) == "read")
        machine.retryField(milliseconds: Int.max)
        #expect(Self.describe(machine.streamEnded()) == "wait(\(Duration.seconds(5)))")
    }

    @Test func status204StopsWithoutAnError() {
        var machine = EventSourceReconnection(EventSourceConfiguration())
        _ = machine.start()
        #expect(Self.describe(machine.responseArrived(Self.response(204, nil))) == "stop")
        #expect(Self.describe(machine.delayElapsed()) == "stop", "nothing after the end")
    }

    @Test func anyStatusBut200Fails() {
        for status in [201, 206, 301, 400, 404, 500, 503] {
            var machine = EventSourceReconnection(EventSourceConfiguration())
            _ = machine.start()
            guard case .fail(let error) = machine.responseArrived(Self.response(status)) else {
                Issue.record("status \(status) did not fail")
                continue
            }
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.response?.statusCode == status)
        }
    }

    @Test func aContentTypeOtherThanTextEventStreamFails() {
        for contentType in ["text/plain", "application/json", "text/event-streams", nil] {
            var machine = EventSourceReconnection(EventSourceConfiguration())
            _ = machine.start()
            guard case .fail(let error) = machine.responseArrived(Self.response(200, contentType)) else {
                Issue.record("\(contentType ?? "no content type") did not fail")
                continue
            }
            #expect(error.code == .unacceptableContentType)
            #expect(error.response?.statusCode == 200)
        }
        for contentType in ["text/event-stream; charset=utf-8", "Text/Event-Stream", " text/event-stream "] {
            var machine = EventSourceReconnection(EventSourceConfiguration())
            _ = machine.start()
            #expect(Self.describe(machine.responseArrived(Self.response(200, contentType))) == "read", "\(contentType)")
        }
    }

    @Test func transportFailuresReconnect() {
        for phase in [CourierError.Phase.resolve, .connect, .send, .receive, .parse, .decode] {
            var machine = EventSourceReconnection(EventSourceConfiguration(retryInterval: .milliseconds(5)))
            _ = machine.start()
            #expect(Self.describe(machine.failed(Self.transport(phase))) == "wait(\(Duration.milliseconds(5)))", "\(phase)")
            #expect(Self.describe(machine.delayElapsed()) == "connect()")
            #expect(Self.describe(machine.responseArrived(Self.response(200))) == "read")
            #expect(Self.describe(machine.failed(Self.transport(phase))) == "wait(\(Duration.milliseconds(5)))", "\(phase) while reading")
        }
        var machine = EventSourceReconnection(EventSourceConfiguration())
        _ = machine.start()
        #expect(Self.describe(machine.failed(CourierError(.resourceTimeout, phase: .receive))) == "wait(\(Duration.seconds(3)))")
    }

    @Test func failuresAReconnectionCannotCureEndTheStream() {
        let errors = [
            CourierError(.cancelled), CourierError(.sessionInvalidated), CourierError(.serverTrustRejected),
            CourierError(.invalidURL), CourierError(.invalidHeader), CourierError(.redirectRefused),
            CourierError(.eventTooLarge), Self.transport(.tls), Self.transport(.redirect), Self.transport(.cancelled),
        ]
        for error in errors {
            var machine = EventSourceReconnection(EventSourceConfiguration())
            open(&machine)
            #expect(Self.describe(machine.failed(error)) == "fail(\(error.code))", "\(error)")
            #expect(Self.describe(machine.delayElapsed()) == "stop")
        }
    }

    @Test func cancellationWhileWaitingEndsTheStream() {
        var machine = EventSourceReconnection(EventSourceConfiguration())
        open(&machine)
        _ = machine.streamEnded()
        #expect(Self.describe(machine.failed(CourierError(.cancelled))) == "fail(cancelled)")
    }

    @Test func reconnectAttemptsAreLimitedWhenConfiguredAndAnOpenStreamResetsTheCount() {
        var machine = EventSourceReconnection(EventSourceConfiguration(retryInterval: .zero, maximumReconnectAttempts: 2))
        _ = machine.start()
        #expect(Self.describe(machine.failed(Self.transport(.connect))) == "wait(\(Duration.zero))")
        _ = machine.delayElapsed()
        #expect(Self.describe(machine.failed(Self.transport(.connect))) == "wait(\(Duration.zero))")
        _ = machine.delayElapsed()
        #expect(Self.describe(machine.responseArrived(Self.response(200))) == "read")
        #expect(machine.failedAttempts == 0)
        // A stream that opened and then broke is not a failed attempt.
        #expect(Self.describe(machine.failed(Self.transport(.receive))) == "wait(\(Duration.zero))")
        _ = machine.delayElapsed()
        #expect(Self.describe(machine.failed(Self.transport(.connect))) == "wait(\(Duration.zero))")
        _ = machine.delayElapsed()
        #expect(Self.describe(machine.failed(Self.transport(.connect))) == "wait(\(Duration.zero))")
        _ = machine.delayElapsed()
        #expect(Self.describe(machine.failed(Self.transport(.connect))) == "fail(transport)")
    }

    @Test func withoutALimitItReconnectsForever() {
        var machine = EventSourceReconnection(EventSourceConfiguration(retryInterval: .zero))
        _ = machine.start()
        for _ in 0..<1000 {
            #expect(Self.describe(machine.failed(Self.transport(.connect))) == "wait(\(Duration.zero))")
            #expect(Self.describe(machine.delayElapsed()) == "connect()")
        }
    }
}
