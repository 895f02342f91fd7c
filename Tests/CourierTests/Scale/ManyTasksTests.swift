import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// 10,000 data tasks through one manager: every task ends and is released, no descriptor is
/// left open (withSession checks), and memory does not grow with the number of tasks.
@Suite(.serialized) struct ManyTasksTests {
    /// Runs `count` tasks, at most `window` at a time, and returns weak references to them.
    static func run(_ manager: SessionManager, _ server: ScriptedServer, count: Int, window: Int = 64) -> [WeakBox] {
        let slots = DispatchSemaphore(value: window)
        let group = DispatchGroup()
        let failures = Counter()
        var tasks: [WeakBox] = []
        tasks.reserveCapacity(count)
        for index in 0..<count {
            // The test server records every request; forget them so its log does not count.
            if index % 1_000 == 0 { server.clearRequestLog() }
            slots.wait()
            group.enter()
            let task = manager.dataTask(with: Request(url: url(server, "/item/\(index % 100)"))) { response in
                if response.value.map({ String(decoding: $0, as: UTF8.self) }) != "item" { failures.add(1) }
                slots.signal()
                group.leave()
            }
            tasks.append(WeakBox(task))
            task.resume()
        }
        group.wait()
        #expect(failures.value == 0, "\(failures.value) tasks failed")
        return tasks
    }

    @Test func tenThousandTasksLeaveNoTasksDescriptorsOrMemoryBehind() throws {
        try withSession { manager, server in
            server.setDefaultHandler { _, connection in try connection.respond(body: "item") }
            // Warm up: connections, caches, allocator pools.
            _ = Self.run(manager, server, count: 2_000)
            let residentBefore = ProcessMemory.resident
            let tasks = Self.run(manager, server, count: 10_000)
            let residentAfter = ProcessMemory.resident
            #expect(manager.tasks.isEmpty, "no task stays registered")
            // Every task is released once its completion has run and the threads that delivered
            // it (event loop, serialization queue) have dropped their references — moments after
            // the last completion, so the check allows a bounded wait; a leak never gets there.
            manager.completionQueue.sync {}
            let released = waitUntil(timeout: .seconds(5)) { tasks.allSatisfy { $0.object == nil } }
            let alive = tasks.filter { $0.object != nil }.count
            #expect(released, "\(alive) tasks are still alive")
            #expect(manager.openConnectionCount <= 6, "the pool kept at most 6 connections")
            let growth = residentAfter - residentBefore
            print("10,000 tasks: RSS \(residentBefore / 1024) KiB → \(residentAfter / 1024) KiB")
            #if !COURIER_SANITIZED
            // Not under a sanitizer: ThreadSanitizer's shadow memory and AddressSanitizer's
            // quarantine of freed blocks grow with every allocation made, so RSS says nothing
            // about the code there (the plain run checks it).
            #expect(growth < 2 * 1024 * 1024, "RSS grew by \(growth / 1024) KiB over 10,000 tasks")
            #endif
        }
    }
}

final class WeakBox: @unchecked Sendable {
    // @unchecked: written once in init; `weak` reads are atomic in the Swift runtime.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
