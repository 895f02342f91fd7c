import Testing
@testable import CourierPosix

/// One round's bookkeeping, fed canned replies.
@Suite struct PathEvaluationTests {
    typealias Reply = RouteNetlink.Message

    static func link(_ index: Int32, _ name: String, loopback: Bool) -> RouteNetlink.LinkReply {
        .init(index: index, flags: loopback ? 0x49 : 0x1043, name: name)
    }

    @Test func theFirstRoutedDestinationNamesTheInterface() {
        var round = PathEvaluation(destinations: PathTarget.internetProbes, loopbackSatisfies: false)
        let requests = round.routeRequests(firstSequence: 10)
        #expect(requests.count == 2)
        // IPv4 unreachable, IPv6 via interface 2.
        #expect(round.receive(.error(sequence: 10, code: 101), nextSequence: 12).isEmpty)
        let links = round.receive(.route(sequence: 11, .init(family: 10, type: 1, outputInterface: 2)), nextSequence: 12)
        #expect(links == [RouteNetlink.linkRequest(index: 2, sequence: 12)])
        #expect(!round.isComplete)
        _ = round.receive(.link(sequence: 12, Self.link(2, "eth0", loopback: false)), nextSequence: 13)
        #expect(round.isComplete)
        #expect(round.status == .satisfied(interface: "eth0"))
    }

    @Test func loopbackRoutesCountOnlyWhenAllowed() {
        for allowed in [false, true] {
            var round = PathEvaluation(destinations: [RouteDestination("1.1.1.1")!], loopbackSatisfies: allowed)
            _ = round.routeRequests(firstSequence: 1)
            let links = round.receive(.route(sequence: 1, .init(family: 2, type: 1, outputInterface: 1)), nextSequence: 2)
            #expect(links.count == 1)
            _ = round.receive(.link(sequence: 2, Self.link(1, "lo", loopback: true)), nextSequence: 3)
            #expect(round.isComplete)
            #expect(round.status == (allowed ? .satisfied(interface: "lo") : .unsatisfied))
        }
    }

    @Test func everyDestinationUnreachableIsUnsatisfiedWithoutLinkLookups() {
        var round = PathEvaluation(destinations: PathTarget.internetProbes, loopbackSatisfies: true)
        _ = round.routeRequests(firstSequence: 5)
        #expect(round.receive(.error(sequence: 6, code: 113), nextSequence: 7).isEmpty)
        #expect(round.receive(.error(sequence: 5, code: 101), nextSequence: 7).isEmpty)
        #expect(round.isComplete && round.status == .unsatisfied)
    }

    @Test func strayAndDuplicateRepliesAreIgnored() {
        var round = PathEvaluation(destinations: [RouteDestination("10.0.0.1")!, RouteDestination("10.0.0.2")!], loopbackSatisfies: true)
        _ = round.routeRequests(firstSequence: 1)
        #expect(!round.expects(99))
        #expect(round.receive(.route(sequence: 99, .init(family: 2, type: 1, outputInterface: 4)), nextSequence: 3).isEmpty)
        _ = round.receive(.route(sequence: 1, .init(family: 2, type: 1, outputInterface: 4)), nextSequence: 3)
        // Both routes use interface 4: one link lookup.
        let links = round.receive(.route(sequence: 2, .init(family: 2, type: 1, outputInterface: 4)), nextSequence: 3)
        #expect(links.count == 1)
        // A link reply for another index than asked, then the vanished-interface error.
        _ = round.receive(.link(sequence: 3, Self.link(5, "eth1", loopback: false)), nextSequence: 4)
        #expect(round.isComplete && round.status == .unsatisfied)
    }

    @Test func noDestinationsCompletesAtOnce() {
        var round = PathEvaluation(destinations: [], loopbackSatisfies: true)
        #expect(round.routeRequests(firstSequence: 1).isEmpty)
        #expect(round.isComplete && round.status == .unsatisfied)
    }
}
