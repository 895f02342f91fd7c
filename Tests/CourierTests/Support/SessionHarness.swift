import Courier
import CourierCore
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// Runs a session test: serialised with every other descriptor-counting test, with a fresh
/// loopback server, and checked for leaked descriptors once the session is invalidated — by the
/// test itself or afterwards — and its `sessionInvalidated` event (the last one, after the
/// connections are closed) was seen by an observer added first, so tests may replace the hooks.
func withSession(
    configure: (inout SessionConfiguration) -> Void = { _ in },
    tls: ServerTLS? = nil,
    completionQueue: DispatchQueue? = nil,
    _ body: (SessionManager, ScriptedServer) throws -> Void
) throws {
    try FileDescriptors.exclusively {
        try withSessionHoldingDescriptorLock(configure: configure, tls: tls, completionQueue: completionQueue, body)
    }
}

/// ``withSession(configure:tls:completionQueue:_:)`` for a test that already holds
/// `FileDescriptors.exclusively` (it opened descriptors of its own first, which must not be
/// opened while another test counts).
func withSessionHoldingDescriptorLock(
    configure: (inout SessionConfiguration) -> Void = { _ in },
    tls: ServerTLS? = nil,
    completionQueue: DispatchQueue? = nil,
    _ body: (SessionManager, ScriptedServer) throws -> Void
) throws {
    try FileDescriptors.expectNoLeakedDescriptors {
        var configuration = SessionConfiguration()
        configuration.client.eventLoopThreads = 2
        configure(&configuration)
        let manager = try SessionManager(configuration: configuration, completionQueue: completionQueue)
        let invalidated = TestEvent()
        manager.addObserver { event in
            if case .sessionInvalidated = event { invalidated.signal() }
        }
        let server = try ScriptedServer(tls: tls)
        defer {
            manager.invalidate(cancelingTasks: true)
            #expect(invalidated.wait(timeout: .seconds(20)), "the session did not become invalid")
            server.shutdown()
        }
        try body(manager, server)
    }
}

/// Invalidates `manager` (cancelling its tasks) and waits until it reports being invalid.
func invalidateAndWait(_ manager: SessionManager, sourceLocation: SourceLocation = #_sourceLocation) {
    let invalid = TestEvent()
    manager.updateHooks { hooks in
        let previous = hooks.sessionDidBecomeInvalid
        hooks.sessionDidBecomeInvalid = { error in
            previous?(error)
            invalid.signal()
        }
    }
    manager.invalidate(cancelingTasks: true)
    #expect(invalid.wait(timeout: .seconds(20)), "the session did not become invalid", sourceLocation: sourceLocation)
}

/// A value set once from another thread, waited for with a timeout.
final class Outcome<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let done = TestEvent()

    init() {}

    func set(_ newValue: Value) {
        value.withLock { $0 = newValue }
        done.signal()
    }

    /// The value, or nil when it did not arrive within `seconds`.
    func wait(seconds: Int = 20) -> Value? {
        guard done.wait(timeout: .seconds(seconds)) else { return nil }
        return value.withLock { $0 }
    }
}

/// A thread-safe list that tests append to from callbacks.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    init() {}

    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// Runs a data task to its end and returns its response (fails the test on timeout).
func runData(_ manager: SessionManager, _ request: Request, sourceLocation: SourceLocation = #_sourceLocation) throws -> DataResponse<Data> {
    let outcome = Outcome<DataResponse<Data>>()
    manager.dataTask(with: request) { outcome.set($0) }.resume()
    return try #require(outcome.wait(), "the task did not complete", sourceLocation: sourceLocation)
}

func url(_ server: ScriptedServer, _ path: String) -> URL {
    URL(string: server.baseURL + path)!
}

/// Deterministic test bytes (a repeating pattern that is not all the same byte).
func patternBytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 >> 8) }
}

/// A key that tells whether code runs on a given queue.
final class QueueMarker: Sendable {
    let key = DispatchSpecificKey<Int>()
    let queue: DispatchQueue

    init(label: String = "courier.tests.completion") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: 1)
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
}

/// A counter shared across threads.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    init() {}

    func add(_ amount: Int) { storage.add(amount, ordering: .relaxed) }
    var value: Int { storage.load(ordering: .relaxed) }
}
