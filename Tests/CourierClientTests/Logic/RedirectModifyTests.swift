import CourierHTTP1
import Testing

@testable import CourierClient

/// A handler's modified request is checked by the rules ``RedirectConfiguration/decide`` applies
/// (RFC 9110 §15.4), and the one credential rule keeps credentials with their origin.
@Suite struct RedirectModifyTests {
    static func url(_ s: String) -> HTTPURL {
        do { return try HTTPURL(s) } catch { preconditionFailure("bad test URL \(s): \(error)") }
    }

    static let credentials: HTTPFields = ["Authorization": "Bearer a", "Cookie": "c=1", "Proxy-Authorization": "Basic p", "Accept": "*/*"]

    /// The proposal for a same-origin redirect of a GET with `credentials`.
    static func sameOriginProposal(_ configuration: RedirectConfiguration = .default, from source: String = "http://a.test/from") throws -> RedirectedRequest {
        let decision = try configuration.decide(
            method: .GET, url: url(source), headers: credentials, body: .none, status: 302, location: "/to", history: [])
        guard case .follow(let next) = decision else { preconditionFailure("not followed: \(decision)") }
        return next
    }

    @Test func sameOriginProposalKeepsCredentials() throws {
        let next = try Self.sameOriginProposal()
        #expect(next.headers[first: "Authorization"] == "Bearer a")
        #expect(next.headers[first: "Cookie"] == "c=1")
    }

    @Test func modifyToAnotherOriginDropsCarriedCredentials() throws {
        let proposed = try Self.sameOriginProposal()
        let (url, headers) = try RedirectConfiguration.default.checkModified(
            method: .GET, url: Self.url("http://b.test/elsewhere"), headers: proposed.headers, proposed: proposed,
            from: RedirectVisit(method: .GET, url: Self.url("http://a.test/from")), history: [])
        #expect(url == Self.url("http://b.test/elsewhere"))
        for name in RedirectConfiguration.credentialFieldNames { #expect(!headers.contains(name), "\(name)") }
        #expect(headers[first: "Accept"] == "*/*")
    }

    @Test func credentialsTheHandlerSetAreKept() throws {
        let proposed = try Self.sameOriginProposal()
        var headers = proposed.headers
        try headers.set(name: "Authorization", value: "Bearer for-b")
        let checked = try RedirectConfiguration.default.checkModified(
            method: .GET, url: Self.url("http://b.test/"), headers: headers, proposed: proposed,
            from: RedirectVisit(method: .GET, url: Self.url("http://a.test/from")), history: [])
        #expect(checked.headers[first: "Authorization"] == "Bearer for-b")
        // Not set by the handler: still left behind.
        #expect(!checked.headers.contains("Cookie"))
    }

    @Test func sameOriginModifyKeepsCredentials() throws {
        let proposed = try Self.sameOriginProposal()
        var headers = proposed.headers
        try headers.append(name: "X-Added", value: "1")
        let checked = try RedirectConfiguration.default.checkModified(
            method: .POST, url: Self.url("http://a.test/other"), headers: headers, proposed: proposed,
            from: RedirectVisit(method: .GET, url: Self.url("http://a.test/from")), history: [])
        #expect(checked.headers == headers)
    }

    @Test func carriedUserInfoStaysBehind() throws {
        let proposed = try Self.sameOriginProposal(from: "http://u:p@a.test/from")
        #expect(proposed.url.user == "u")
        // The handler moved the proposed URL to another origin, keeping its user information.
        let moved = try proposed.url.resolving("//u:p@b.test/to")
        let checked = try RedirectConfiguration.default.checkModified(
            method: .GET, url: moved, headers: HTTPFields(), proposed: proposed,
            from: RedirectVisit(method: .GET, url: Self.url("http://u:p@a.test/from")), history: [])
        #expect(checked.url.user == nil)
        #expect(checked.url.host == "b.test")
    }

    @Test func userInfoTheLocationWroteOnAnotherOriginIsKept() throws {
        let decision = try RedirectConfiguration.default.decide(
            method: .GET, url: Self.url("http://u:p@a.test/from"), headers: HTTPFields(), body: .none, status: 302,
            location: "http://u:p@b.test/to", history: [])
        guard case .follow(let proposed) = decision else { Issue.record("not followed: \(decision)"); return }
        #expect(proposed.url.user == "u")
        // The handler keeps the proposed URL and adds a field: the Location's user information stays.
        var headers = proposed.headers
        try headers.append(name: "X-Added", value: "1")
        let checked = try RedirectConfiguration.default.checkModified(
            method: .GET, url: proposed.url, headers: headers, proposed: proposed,
            from: RedirectVisit(method: .GET, url: Self.url("http://u:p@a.test/from")), history: [])
        #expect(checked.url.user == "u")
        #expect(checked.url.password == "p")
    }

    @Test func carriedHostIsRewritten() throws {
        let decision = try RedirectConfiguration.default.decide(
            method: .GET, url: Self.url("http://a.test/from"), headers: ["Host": "virtual.test"], body: .none, status: 302,
            location: "/to", history: [])
        guard case .follow(let proposed) = decision else { Issue.record("not followed"); return }
        #expect(proposed.headers[first: "Host"] == "virtual.test")
        let checked = try RedirectConfiguration.default.checkModified(
            method: .GET, url: Self.url("http://b.test:8080/"), headers: proposed.headers, proposed: proposed,
            from: RedirectVisit(method: .GET, url: Self.url("http://a.test/from")), history: [])
        #expect(checked.headers[first: "Host"] == "b.test:8080")
    }

    @Test func modifiedLoopIsRefused() throws {
        let proposed = try Self.sameOriginProposal()
        #expect(throws: RedirectError.loop(Self.url("http://a.test/from"))) {
            try RedirectConfiguration.default.checkModified(
                method: .GET, url: Self.url("http://a.test/from"), headers: HTTPFields(), proposed: proposed,
                from: RedirectVisit(method: .GET, url: Self.url("http://a.test/from")), history: [])
        }
        #expect(throws: RedirectError.loop(Self.url("http://a.test/first"))) {
            try RedirectConfiguration.default.checkModified(
                method: .GET, url: Self.url("http://a.test/first"), headers: HTTPFields(), proposed: proposed,
                from: RedirectVisit(method: .GET, url: Self.url("http://a.test/from")),
                history: [RedirectVisit(method: .GET, url: Self.url("http://a.test/first"))])
        }
    }

    @Test func modifiedDowngradeIsRefusedWhenTheConfigurationRefusesIt() throws {
        let configuration = RedirectConfiguration(allowHTTPSToHTTP: false)
        let proposed = try Self.sameOriginProposal(configuration, from: "https://a.test/from")
        #expect(throws: RedirectError.httpsToHTTPDowngrade(Self.url("http://a.test/to"))) {
            try configuration.checkModified(
                method: .GET, url: Self.url("http://a.test/to"), headers: HTTPFields(), proposed: proposed,
                from: RedirectVisit(method: .GET, url: Self.url("https://a.test/from")), history: [])
        }
    }

    @Test func modifiedNetworkToUnixSocketIsRefused() throws {
        let proposed = try Self.sameOriginProposal()
        let unix = Self.url("http+unix://%2Fvar%2Frun%2Fdocker.sock/")
        #expect(throws: RedirectError.self) {
            try RedirectConfiguration.default.checkModified(
                method: .GET, url: unix, headers: HTTPFields(), proposed: proposed,
                from: RedirectVisit(method: .GET, url: Self.url("http://a.test/from")), history: [])
        }
    }
}
