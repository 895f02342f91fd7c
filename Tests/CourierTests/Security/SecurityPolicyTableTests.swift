import Courier
import CourierClient
import Testing

/// Per-host lookup in a ``SecurityPolicyTable``. No sockets.
@Suite struct SecurityPolicyTableTests {
    typealias H = PinningHarness

    static func policies() throws -> (a: SecurityPolicy, b: SecurityPolicy, c: SecurityPolicy) {
        (try SecurityPolicy(publicKeyPins: [H.pin("valid.pem")]),
         try SecurityPolicy(publicKeyPins: [H.pin("intermediate.pem")]),
         try SecurityPolicy(publicKeyPins: [H.pin("ca.pem")]))
    }

    @Test func exactHostsThenTheMostSpecificWildcardThenTheDefault() throws {
        let (a, b, c) = try Self.policies()
        let table = SecurityPolicyTable()
        try table.setPolicy(a, forHost: "api.example.com")
        try table.setPolicy(b, forHost: "*.example.com")
        try table.setPolicy(c, forHost: "*.eu.example.com")
        #expect(table.policy(forHost: "api.example.com") == a)
        #expect(table.policy(forHost: "API.Example.COM.") == a, "case and a trailing dot do not matter")
        #expect(table.policy(forHost: "www.example.com") == b)
        #expect(table.policy(forHost: "a.b.example.com") == b, "a wildcard covers deeper subdomains")
        #expect(table.policy(forHost: "x.eu.example.com") == c, "the most specific wildcard wins")
        #expect(table.policy(forHost: "example.com") == .default, "a wildcard does not cover its domain itself")
        #expect(table.policy(forHost: "badexample.com") == .default)
        #expect(table.policy(forHost: "other.org") == .default)
        table.defaultPolicy = a
        #expect(table.policy(forHost: "other.org") == a)
    }

    @Test func ipLiteralsMatchExactlyOnly() throws {
        let (a, b, _) = try Self.policies()
        let table = SecurityPolicyTable()
        try table.setPolicy(a, forHost: "127.0.0.1")
        try table.setPolicy(b, forHost: "[::1]")
        #expect(table.policy(forHost: "127.0.0.1") == a)
        #expect(table.policy(forHost: "::1") == b, "brackets do not matter")
        try table.setPolicy(b, forHost: "*.0.0.1")
        #expect(table.policy(forHost: "127.0.0.2") == .default, "a wildcard never matches an IP literal")
    }

    @Test func invalidPatternsAreRefused() throws {
        let table = SecurityPolicyTable()
        for pattern in ["", "*", "*.", "*.com", "a.*.com", "**.example.com", "*.1.2.3.4", "*..example.com"] {
            #expect { try table.setPolicy(.default, forHost: pattern) } throws: {
                ($0 as? CourierError)?.code == .invalidSecurityPolicy
            }
        }
    }

    @Test func removingAnEntryFallsBack() throws {
        let (a, b, _) = try Self.policies()
        let table = SecurityPolicyTable()
        try table.setPolicy(a, forHost: "www.example.com")
        try table.setPolicy(b, forHost: "*.example.com")
        #expect(table.removePolicy(forHost: "WWW.example.com") == a)
        #expect(table.policy(forHost: "www.example.com") == b)
        #expect(table.removePolicy(forHost: "*.example.com") == b)
        #expect(table.policy(forHost: "www.example.com") == .default)
        #expect(table.removePolicy(forHost: "nothing.example") == nil)
    }

    @Test func applySetsTheHostsTLSConfiguration() throws {
        let table = SecurityPolicyTable()
        let pinned = try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [H.certificate("ca.pem")])
        try table.setPolicy(pinned, forHost: "pinned.example")
        var request = try HTTPClientRequest(method: .GET, url: "https://pinned.example/x")
        try table.apply(to: &request, base: H.base)
        #expect(request.tls == pinned.tlsConfiguration(base: H.base))
        var other = try HTTPClientRequest(method: .GET, url: "https://other.example/x")
        try table.apply(to: &other, base: H.base)
        #expect(other.tls == nil, "settings the policy does not change stay the client's (one pool key)")
    }
}
