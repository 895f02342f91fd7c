import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Lifecycle events through `events()` streams and observers.
@Suite(.serialized) struct SessionEventTests {
    /// What a subscriber saw, in a comparable form.
    enum Seen: Sendable, Equatable {
        case resumed(Int)
        case suspended(Int)
        case completed(Int)
        case invalidated
    }

    static func seen(_ event: SessionEvent) -> Seen {
        switch event {
        case .taskResumed(let task): .resumed(task.taskIdentifier)
        case .taskSuspended(let task): .suspended(task.taskIdentifier)
        case .taskCompleted(let completion): .completed(completion.task.taskIdentifier)
        case .sessionInvalidated: .invalidated
        }
    }

    /// Collects a stream's events until a completion of `count` tasks has been seen.
    static func collect(_ stream: AsyncStream<SessionEvent>, completions count: Int) -> (Recorder<SessionEvent>, TestEvent) {
        let events = Recorder<SessionEvent>()
        let completions = Counter()
        let done = readEvents(stream) { event in
            events.append(event)
            if case .taskCompleted = event { completions.add(1) }
            return completions.value < count
        }
        return (events, done)
    }

    @Test func aStreamYieldsResumedThenCompletedWithTheResults() throws {
        try withSession { manager, server in
            server.route("/text") { _, connection in try connection.respond(headers: [("Content-Type", "text/plain")], body: "héllo") }
            server.route("/missing") { _, connection in try connection.respond(status: 404, body: "nope") }
            let (events, done) = Self.collect(manager.events(), completions: 2)
            let ok: DataResponse<String> = try run { finish in
                manager.dataTask(with: Request(url: url(server, "/text")), serializer: StringResponseSerializer(), completionHandler: finish)
            }
            let failed: DataResponse<String> = try run { finish in
                manager.dataTask(with: Request(url: url(server, "/missing")), serializer: StringResponseSerializer(), completionHandler: finish)
            }
            #expect(done.wait(timeout: .seconds(20)))
            #expect(ok.value == "héllo")
            #expect(failed.error?.code == .unacceptableStatusCode)
            let all = events.all
            let order = all.map(Self.seen)
            #expect(order.count == 4)
            guard case .resumed(let first) = order.first, case .completed(let firstDone) = order.dropFirst().first,
                  case .resumed(let second) = order.dropFirst(2).first, case .completed(let secondDone) = order.dropFirst(3).first else {
                Issue.record("unexpected order \(order)")
                return
            }
            #expect(first == firstDone && second == secondDone && first != second)

            guard case .taskCompleted(let success) = all[1], case .taskCompleted(let failure) = all[3] else { return }
            #expect(success.data == Data("héllo".utf8))
            #expect(success.serializedObject as? String == "héllo", "the serializer's value")
            #expect(success.error == nil)
            #expect(success.response?.statusCode == 200)
            #expect(success.metrics?.transactionMetrics.count == 1)
            #expect(success.fileURL == nil)
            #expect(failure.error?.code == .unacceptableStatusCode)
            #expect(failure.serializedObject == nil)
            #expect(failure.data == Data("nope".utf8), "the body is reported also when validation failed")
            #expect(failure.response?.statusCode == 404)
        }
    }

    @Test func aDownloadCompletionCarriesItsFile() throws {
        try withSession { manager, server in
            server.route("/f") { _, connection in try connection.respond(body: "file body") }
            let (events, done) = Self.collect(manager.events(), completions: 1)
            let response = try runDownload(manager, Request(url: url(server, "/f")))
            let file = try #require(response.fileURL)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(done.wait(timeout: .seconds(20)))
            let completion = events.all.compactMap { event -> TaskCompletion? in
                if case .taskCompleted(let completion) = event { completion } else { nil }
            }.first
            #expect(completion?.fileURL == file)
            #expect(completion?.serializedObject as? URL == file)
            #expect(completion?.data == nil)
        }
    }

    @Test func twoStreamsBothReceiveEverything() throws {
        try withSession { manager, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let (a, aDone) = Self.collect(manager.events(), completions: 2)
            let (b, bDone) = Self.collect(manager.events(), completions: 2)
            _ = try runData(manager, Request(url: url(server, "/x")))
            _ = try runData(manager, Request(url: url(server, "/x")))
            #expect(aDone.wait(timeout: .seconds(20)) && bDone.wait(timeout: .seconds(20)))
            let aSeen = a.all.map(Self.seen), bSeen = b.all.map(Self.seen)
            #expect(aSeen.count == 4)
            #expect(aSeen == bSeen, "each stream sees every event, in the same order")
        }
    }

    @Test func observersAreAddedAndRemoved() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            server.route("/x") { _, connection in try connection.respond(body: "x") }
            let first = Recorder<Seen>(), second = Recorder<Seen>()
            let onQueue = Recorder<Bool>()
            let firstToken = manager.addObserver { event in
                first.append(Self.seen(event))
                onQueue.append(marker.isCurrent)
            }
            let secondToken = manager.addObserver { second.append(Self.seen($0)) }
            #expect(firstToken != secondToken)
            let outcome = Outcome<Int>()
            let task = manager.dataTask(with: Request(url: url(server, "/x"))) { _ in }
            manager.addObserver { event in
                if case .taskCompleted(let completion) = event, completion.task === task { outcome.set(completion.task.taskIdentifier) }
            }
            task.resume()
            #expect(outcome.wait() == task.taskIdentifier)
            manager.completionQueue.sync {}  // every observer of that event has run
            #expect(first.all == [.resumed(task.taskIdentifier), .completed(task.taskIdentifier)])
            #expect(second.all == first.all)
            #expect(onQueue.all == [true, true], "observers run on the completion queue")

            manager.removeObserver(firstToken)
            let later = manager.dataTask(with: Request(url: url(server, "/x"))) { _ in }
            let laterDone = Outcome<Bool>()
            manager.addObserver { event in
                if case .taskCompleted(let completion) = event, completion.task === later { laterDone.set(true) }
            }
            later.resume()
            #expect(laterDone.wait() == true)
            manager.completionQueue.sync {}
            #expect(first.count == 2, "a removed observer hears nothing more")
            #expect(second.all.suffix(2) == [.resumed(later.taskIdentifier), .completed(later.taskIdentifier)])
        }
    }
}
