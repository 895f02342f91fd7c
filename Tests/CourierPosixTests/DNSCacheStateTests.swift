import Testing
import CourierCore
@testable import CourierPosix

/// The DNS cache's decisions as a value: an injected clock (`now`), no resolver, no sockets.
@Suite struct DNSCacheStateTests {
    let a = DNSCacheKey(host: "a.example", port: 443, family: .ipv4)
    let b = DNSCacheKey(host: "b.example", port: 443, family: .ipv4)
    let address = try! SocketAddress(ipAddress: "192.0.2.1", port: 443)
    let t0 = Deadline(uptimeNanoseconds: 1_000_000_000)
    let noName = ResolverError.lookupFailed(host: "a.example", code: -2, message: "Name or service not known")
    let tryAgain = ResolverError.lookupFailed(host: "a.example", code: -3, message: "Temporary failure in name resolution")

    func state(ttl: Int64 = 60, negative: Int64 = 5, capacity: Int = 8) -> DNSCacheState<Int> {
        DNSCacheState(configuration: DNSCacheConfiguration(ttl: .seconds(ttl), negativeTTL: .seconds(negative), capacity: capacity))
    }

    @Test func defaultsAreCurlsTTLAndAShortNegativeOne() {
        let configuration = DNSCacheConfiguration.default
        #expect(configuration.ttl == .seconds(60))
        #expect(configuration.negativeTTL == .seconds(5))
        #expect(configuration.capacity == 256)
    }

    @Test func aMissStartsOneLookupAndLaterWaitersJoinIt() {
        var cache = state()
        let first = cache.lookup(a, waiter: 1, now: t0)
        #expect(first == .startLookup)
        let second = cache.lookup(a, waiter: 2, now: t0)
        #expect(second == .joined)
        let third = cache.lookup(a, waiter: 3, now: t0 + .seconds(1))
        #expect(third == .joined)
        let delivered = cache.completed(a, .success([address]), now: t0 + .seconds(1))
        #expect(delivered == [1, 2, 3])
    }

    @Test func aPositiveAnswerIsServedUntilItsTTL() {
        var cache = state(ttl: 60)
        _ = cache.lookup(a, waiter: 1, now: t0)
        _ = cache.completed(a, .success([address]), now: t0)
        let fresh = cache.lookup(a, waiter: 2, now: t0 + .seconds(59))
        #expect(fresh == .hit(.success([address])))
        let expired = cache.lookup(a, waiter: 3, now: t0 + .seconds(60))
        #expect(expired == .startLookup)
    }

    @Test func aNegativeAnswerIsServedBriefly() {
        var cache = state(negative: 5)
        _ = cache.lookup(a, waiter: 1, now: t0)
        let delivered = cache.completed(a, .failure(noName), now: t0)
        #expect(delivered == [1])
        let fresh = cache.lookup(a, waiter: 2, now: t0 + .seconds(4))
        #expect(fresh == .hit(.failure(noName)))
        let expired = cache.lookup(a, waiter: 3, now: t0 + .seconds(5))
        #expect(expired == .startLookup)
    }

    @Test func noAddressesIsANegativeAnswerToo() {
        var cache = state()
        _ = cache.lookup(a, waiter: 1, now: t0)
        _ = cache.completed(a, .failure(.noAddresses(host: "a.example")), now: t0)
        let again = cache.lookup(a, waiter: 2, now: t0)
        #expect(again == .hit(.failure(.noAddresses(host: "a.example"))))
    }

    @Test func transientFailuresAreNotCached() {
        var cache = state()
        _ = cache.lookup(a, waiter: 1, now: t0)
        let delivered = cache.completed(a, .failure(tryAgain), now: t0)
        #expect(delivered == [1])
        #expect(cache.count == 0)
        let again = cache.lookup(a, waiter: 2, now: t0)
        #expect(again == .startLookup)
        #expect(!ResolverError.cancelled.isNegativeAnswer)
        #expect(!tryAgain.isNegativeAnswer)
        #expect(noName.isNegativeAnswer)
    }

    @Test func aZeroTTLCoalescesButKeepsNothing() {
        var cache = state(ttl: 0, negative: 0)
        _ = cache.lookup(a, waiter: 1, now: t0)
        let joined = cache.lookup(a, waiter: 2, now: t0)
        #expect(joined == .joined)
        let delivered = cache.completed(a, .success([address]), now: t0)
        #expect(delivered == [1, 2])
        #expect(cache.count == 0)
    }

    @Test func keysDifferByFamilyAndPort() {
        var cache = state()
        _ = cache.lookup(a, waiter: 1, now: t0)
        _ = cache.completed(a, .success([address]), now: t0)
        let v6 = cache.lookup(DNSCacheKey(host: a.host, port: 443, family: .ipv6), waiter: 2, now: t0)
        #expect(v6 == .startLookup)
        let otherPort = cache.lookup(DNSCacheKey(host: a.host, port: 80, family: .ipv4), waiter: 3, now: t0)
        #expect(otherPort == .startLookup)
    }

    @Test func aCancelledWaiterIsNotDeliveredButTheAnswerIsKept() {
        var cache = state()
        _ = cache.lookup(a, waiter: 1, now: t0)
        _ = cache.lookup(a, waiter: 2, now: t0)
        cache.cancel(a, waiter: 1)
        let delivered = cache.completed(a, .success([address]), now: t0)
        #expect(delivered == [2])
        let hit = cache.lookup(a, waiter: 3, now: t0)
        #expect(hit == .hit(.success([address])))
    }

    @Test func aLateAnswerForAKeyNotResolvingIsIgnored() {
        var cache = state()
        let delivered = cache.completed(a, .success([address]), now: t0)
        #expect(delivered.isEmpty)
        #expect(cache.count == 0)
    }

    @Test func theSizeIsBoundedExpiredFirstThenOldest() {
        var cache = state(ttl: 10, capacity: 3)
        let keys = (0..<5).map { DNSCacheKey(host: "h\($0)", port: 443, family: .ipv4) }
        // h0 answered at t0 (expires t0+10), h1 and h2 at t0+5.
        _ = cache.lookup(keys[0], waiter: 0, now: t0)
        _ = cache.completed(keys[0], .success([address]), now: t0)
        for i in 1...2 {
            _ = cache.lookup(keys[i], waiter: i, now: t0 + .seconds(5))
            _ = cache.completed(keys[i], .success([address]), now: t0 + .seconds(5))
        }
        #expect(cache.count == 3)
        // At t0+11 h0 has expired: it makes room for h3.
        _ = cache.lookup(keys[3], waiter: 3, now: t0 + .seconds(11))
        #expect(cache.count == 3)
        #expect(cache.entries[keys[0]] == nil)
        _ = cache.completed(keys[3], .success([address]), now: t0 + .seconds(11))
        // Nothing expired now: the oldest answer (h1) goes.
        _ = cache.lookup(keys[4], waiter: 4, now: t0 + .seconds(12))
        #expect(cache.count == 3)
        #expect(cache.entries[keys[1]] == nil)
        let h2 = cache.lookup(keys[2], waiter: 5, now: t0 + .seconds(12))
        #expect(h2 == .hit(.success([address])))
    }

    @Test func lookupsInFlightAreNeverEvicted() {
        var cache = state(capacity: 2)
        _ = cache.lookup(a, waiter: 1, now: t0)
        _ = cache.lookup(b, waiter: 2, now: t0)
        // Full of lookups in flight: a third still starts (nothing could be evicted).
        let c = DNSCacheKey(host: "c.example", port: 443, family: .ipv4)
        let third = cache.lookup(c, waiter: 3, now: t0)
        #expect(third == .startLookup)
        #expect(cache.count == 3)
        let delivered = cache.completed(a, .success([address]), now: t0)
        #expect(delivered == [1])
        // Back within the bound once answers can go: a's answer was the only one to evict.
        #expect(cache.count == 2)
        let joined = cache.lookup(b, waiter: 4, now: t0)
        #expect(joined == .joined)
    }

    @Test func removingAnswersKeepsLookupsInFlight() {
        var cache = state()
        _ = cache.lookup(a, waiter: 1, now: t0)
        _ = cache.completed(a, .success([address]), now: t0)
        _ = cache.lookup(b, waiter: 2, now: t0)
        cache.removeAnswers()
        #expect(cache.count == 1)
        let delivered = cache.completed(b, .success([address]), now: t0)
        #expect(delivered == [2])
    }

    @Test func sourcesCombineToTheCostliest() {
        #expect(ResolutionSource.cache.combined(with: .cache) == .cache)
        #expect(ResolutionSource.cache.combined(with: .lookup) == .lookup)
        #expect(ResolutionSource.coalesced.combined(with: .cache) == .coalesced)
        #expect(ResolutionSource.literal.combined(with: .literal) == .literal)
    }
}
