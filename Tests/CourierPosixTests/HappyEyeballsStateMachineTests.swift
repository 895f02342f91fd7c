import Testing
import CourierCore
@testable import CourierPosix

@Suite struct HappyEyeballsStateMachineTests {
    let v6a = try! SocketAddress(ipAddress: "::1", port: 80)
    let v6b = try! SocketAddress(ipAddress: "2001:db8::1", port: 80)
    let v4a = try! SocketAddress(ipAddress: "127.0.0.1", port: 80)
    let v4b = try! SocketAddress(ipAddress: "192.0.2.1", port: 80)
    let refused = PosixError(code: 111, call: "connect")

    @Test func ipv6AnswerFirstStartsAtOnce() {
        var m = HappyEyeballsStateMachine(host: "h")
        #expect(m.handle(.resolved(.ipv6, .success([v6a]))) == [.startAttempt(1, v6a, nextAttemptAfter: .milliseconds(250))])
        // The late A answer joins the queue but does not start an attempt while one is running.
        #expect(m.handle(.resolved(.ipv4, .success([v4a]))) == [])
        #expect(m.handle(.attemptDelayElapsed) == [.startAttempt(2, v4a, nextAttemptAfter: .milliseconds(250))])
        #expect(m.handle(.attemptSucceeded(2)) == [.cancelAttemptDelay, .succeed(winner: 2, close: [1])])
        #expect(m.isFinished)
        #expect(m.handle(.attemptSucceeded(1)) == [])
    }

    @Test func ipv4AnswerFirstWaitsTheResolutionDelay() {
        var m = HappyEyeballsStateMachine(host: "h")
        #expect(m.handle(.resolved(.ipv4, .success([v4a]))) == [.scheduleResolutionDelay(.milliseconds(50))])
        #expect(m.handle(.resolutionDelayElapsed) == [.startAttempt(1, v4a, nextAttemptAfter: .milliseconds(250))])
        // AAAA arrives during the attempt; tried next when the attempt delay passes.
        #expect(m.handle(.resolved(.ipv6, .success([v6a]))) == [])
        #expect(m.handle(.attemptDelayElapsed) == [.startAttempt(2, v6a, nextAttemptAfter: .milliseconds(250))])
    }

    @Test func ipv6WithinTheResolutionDelayGoesFirst() {
        var m = HappyEyeballsStateMachine(host: "h")
        _ = m.handle(.resolved(.ipv4, .success([v4a, v4b])))
        #expect(m.handle(.resolved(.ipv6, .success([v6a, v6b]))) == [.startAttempt(1, v6a, nextAttemptAfter: .milliseconds(250))])
        #expect(m.handle(.resolutionDelayElapsed) == [])
        var order: [SocketAddress] = []
        for _ in 0..<3 {
            for case .startAttempt(_, let address, _) in m.handle(.attemptDelayElapsed) { order.append(address) }
        }
        #expect(order == [v4a, v6b, v4b], "families alternate after the first IPv6 address")
    }

    @Test func failureStartsTheNextAttemptImmediately() {
        var m = HappyEyeballsStateMachine(host: "h")
        _ = m.handle(.resolved(.ipv6, .success([v6a])))
        _ = m.handle(.resolved(.ipv4, .success([v4a])))
        #expect(m.handle(.attemptFailed(1, refused)) == [.cancelAttemptDelay, .startAttempt(2, v4a, nextAttemptAfter: .milliseconds(250))])
        #expect(m.handle(.attemptFailed(2, refused)) == [.cancelAttemptDelay, .fail(.connectionFailed(refused), close: [])])
    }

    @Test func bothLookupsFailing() {
        var m = HappyEyeballsStateMachine(host: "h")
        let error = ResolverError.lookupFailed(host: "h", code: -2, message: "Name or service not known")
        #expect(m.handle(.resolved(.ipv6, .failure(.noAddresses(host: "h")))) == [])
        #expect(m.handle(.resolved(.ipv4, .failure(error))) == [.fail(.resolution(error), close: [])])
    }

    @Test func onlyIPv4AfterIPv6Fails() {
        var m = HappyEyeballsStateMachine(host: "h")
        #expect(m.handle(.resolved(.ipv6, .failure(.noAddresses(host: "h")))) == [])
        #expect(m.handle(.resolved(.ipv4, .success([v4a]))) == [.startAttempt(1, v4a, nextAttemptAfter: .milliseconds(250))])
    }

    @Test func timeoutAndCancelCloseEveryAttempt() {
        var m = HappyEyeballsStateMachine(host: "h")
        _ = m.handle(.resolved(.ipv6, .success([v6a])))
        _ = m.handle(.resolved(.ipv4, .success([v4a])))
        _ = m.handle(.attemptDelayElapsed)
        #expect(m.handle(.timedOut) == [.cancelAttemptDelay, .fail(.timeout, close: [1, 2])])
        var c = HappyEyeballsStateMachine(host: "h")
        _ = c.handle(.resolved(.ipv6, .success([v6a])))
        #expect(c.handle(.cancelled) == [.cancelAttemptDelay, .fail(.cancelled, close: [1])])
        #expect(c.handle(.timedOut) == [])
    }
}
