import CourierCore
import Dispatch
import Synchronization
import Testing
@testable import CourierPosix

/// A resolver stub that blocks every lookup until the test releases it, and counts calls.
private final class BlockingLookup: Sendable {
    let calls = Atomic<Int>(0)
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let answer: Result<[SocketAddress], ResolverError>

    init(answer: Result<[SocketAddress], ResolverError>) { self.answer = answer }

    func lookup(_ key: DNSCacheKey) -> Result<[SocketAddress], ResolverError> {
        calls.add(1, ordering: .relaxed)
        entered.signal()
        release.wait()
        return answer
    }
}

/// A clock the test moves by hand.
private final class ManualClock: Sendable {
    let nanoseconds = Atomic<UInt64>(1_000_000_000)
    func now() -> Deadline { Deadline(uptimeNanoseconds: nanoseconds.load(ordering: .relaxed)) }
    func advance(_ amount: TimeAmount) { nanoseconds.add(UInt64(amount.nanoseconds), ordering: .relaxed) }
}

/// What the deliveries brought, and a semaphore per delivery.
private final class Deliveries: Sendable {
    let received = Mutex<[(Result<[SocketAddress], ResolverError>, ResolutionSource)]>([])
    let arrived = DispatchSemaphore(value: 0)

    func deliver(_ result: Result<[SocketAddress], ResolverError>, _ source: ResolutionSource) {
        received.withLock { $0.append((result, source)) }
        arrived.signal()
    }

    var sources: [ResolutionSource] { received.withLock { $0.map(\.1) } }
}

@Suite struct DNSCacheTests {
    let address = try! SocketAddress(ipAddress: "192.0.2.7", port: 443)
    let key = DNSCacheKey(host: "coalesce.example", port: 443, family: .ipv4)

    private func makeCache(_ stub: BlockingLookup, clock: ManualClock = ManualClock()) -> DNSCache {
        DNSCache(configuration: .default, clock: { clock.now() },
                 start: { DispatchQueue.global().async(execute: $0) }, lookup: { stub.lookup($0) })
    }

    @Test func aSecondWaiterAttachesToTheLookupInFlight() {
        let stub = BlockingLookup(answer: .success([address]))
        let cache = makeCache(stub)
        let deliveries = Deliveries()
        cache.resolve(cache.ticket(for: key)) { deliveries.deliver($0, $1) }
        stub.entered.wait()
        // The first lookup is blocked in the stub; the second waiter joins it.
        cache.resolve(cache.ticket(for: key)) { deliveries.deliver($0, $1) }
        cache.resolve(cache.ticket(for: key)) { deliveries.deliver($0, $1) }
        #expect(stub.calls.load(ordering: .relaxed) == 1)
        stub.release.signal()
        for _ in 0..<3 { deliveries.arrived.wait() }
        #expect(stub.calls.load(ordering: .relaxed) == 1)
        #expect(deliveries.sources == [.lookup, .coalesced, .coalesced])
        #expect(deliveries.received.withLock { $0.allSatisfy { (try? $0.0.get()) == [address] } })
        // Now cached: answered at once, on this thread, still one call.
        cache.resolve(cache.ticket(for: key)) { deliveries.deliver($0, $1) }
        deliveries.arrived.wait()
        #expect(deliveries.sources.last == .cache)
        #expect(stub.calls.load(ordering: .relaxed) == 1)
    }

    @Test func anExpiredAnswerIsLookedUpAgain() {
        let stub = BlockingLookup(answer: .success([address]))
        let clock = ManualClock()
        let cache = makeCache(stub, clock: clock)
        let deliveries = Deliveries()
        stub.release.signal()
        cache.resolve(cache.ticket(for: key)) { deliveries.deliver($0, $1) }
        deliveries.arrived.wait()
        clock.advance(.seconds(60))
        stub.release.signal()
        cache.resolve(cache.ticket(for: key)) { deliveries.deliver($0, $1) }
        deliveries.arrived.wait()
        #expect(stub.calls.load(ordering: .relaxed) == 2)
        #expect(deliveries.sources == [.lookup, .lookup])
    }

    @Test func aCancelledTicketIsNotDeliveredAndTheOthersAre() {
        let stub = BlockingLookup(answer: .success([address]))
        let cache = makeCache(stub)
        let cancelled = Deliveries()
        let kept = Deliveries()
        let first = cache.ticket(for: key)
        cache.resolve(first) { cancelled.deliver($0, $1) }
        cache.resolve(cache.ticket(for: key)) { kept.deliver($0, $1) }
        cache.cancel(first)
        stub.release.signal()
        kept.arrived.wait()
        #expect(kept.sources == [.coalesced])
        #expect(cancelled.sources.isEmpty)
        #expect(cache.count == 1)
    }
}

/// The resolver with a cache, through an event loop.
@Suite(.serialized) struct ResolverCacheTests {
    @Test func theResolverAnswersTheSecondLookupFromItsCache() throws {
        try expectNoLeakedDescriptors { try resolveTwice() }
    }

    private func resolveTwice() throws {
        let loop = try EventLoop(name: "dns-cache-test")
        defer { loop.shutdown() }
        let resolver = Resolver(cache: .default)
        let sources = Mutex<[ResolutionSource]>([])
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            resolver.resolveWithSource(host: "localhost", port: 80, family: .ipv4, on: loop) { result, source in
                if case .success = result { sources.withLock { $0.append(source) } }
                done.signal()
            }
            done.wait()
        }
        #expect(sources.withLock { $0 } == [.lookup, .cache])
        #expect(resolver.cache?.count == 1)
        // An IP literal bypasses the cache.
        resolver.resolveWithSource(host: "127.0.0.1", port: 80, on: loop) { _, source in
            sources.withLock { $0.append(source) }
            done.signal()
        }
        done.wait()
        #expect(sources.withLock { $0.last } == .literal)
        #expect(resolver.cache?.count == 1)
    }
}
