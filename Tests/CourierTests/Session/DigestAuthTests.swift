import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// Digest access authentication (RFC 7616) through the session against a scripted protection
/// space: the exchange, nonce counts across requests, stale nonces, challenge choice, and the
/// typed errors for credentials Courier cannot send.
@Suite(.serialized) struct DigestAuthTests {
    static let credential = Credential(user: "Mufasa", password: "Circle of Life")

    static func answering(_ manager: SessionManager, with credential: Credential = credential) -> Recorder<AuthenticationChallenge> {
        let seen = Recorder<AuthenticationChallenge>()
        manager.updateHooks { hooks in
            hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                seen.append(challenge)
                return .useCredential(credential)
            }
        }
        return seen
    }

    @Test func aDigestChallengeIsAnsweredAndCheckedByTheServer() throws {
        try withSession { manager, server in
            let digest = DigestServer()
            digest.install(on: server)
            let seen = Self.answering(manager)
            let response = try runData(manager, Request(url: url(server, "/private?x=1")))
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "welcome")
            let challenge = try #require(seen.all.first)
            #expect(seen.count == 1)
            #expect(challenge.scheme == "Digest" && challenge.realm == "http-auth@example.org")
            #expect(challenge.previousFailureCount == 0)
            #expect(server.requests.count == 2)
            let answer = try #require(digest.answers.first)
            #expect(answer.nc == "00000001" && answer.qop == "auth" && answer.algorithm == "SHA-256")
            #expect(answer.opaque == "opaque-1", "opaque is echoed (RFC 7616 §3.4)")
            #expect((answer.cnonce ?? "").count == 32)
            #expect(server.requests.last?.header("Authorization")?.contains(#"uri="/private?x=1""#) == true)
            #expect(response.metrics?.transactionMetrics.count == 2)
        }
    }

    @Test func laterRequestsReuseTheNonceWithAGrowingCount() throws {
        try withSession { manager, server in
            let digest = DigestServer()
            digest.install(on: server)
            let seen = Self.answering(manager)
            for _ in 0..<3 {
                let response = try runData(manager, Request(url: url(server, "/private")))
                #expect(response.response?.statusCode == 200)
            }
            #expect(seen.count == 1, "asked once; the next requests answer before being challenged")
            #expect(server.requests.count == 4)
            #expect(digest.answers.map(\.nc) == ["00000001", "00000002", "00000003"])
            #expect(Set(digest.answers.map(\.nonce)) == ["nonce-1"])
            #expect(Set(digest.answers.compactMap(\.cnonce)).count == 3, "a fresh cnonce each time")
        }
    }

    @Test func aStaleNonceIsAnsweredAgainWithoutAskingOrCountingAFailure() throws {
        try withSession { manager, server in
            let digest = DigestServer()
            digest.install(on: server)
            let seen = Self.answering(manager)
            #expect(try runData(manager, Request(url: url(server, "/private"))).response?.statusCode == 200)
            digest.expireNonce()
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(response.response?.statusCode == 200)
            #expect(seen.count == 1, "stale=true is not a refused credential (RFC 7616 §3.3)")
            // challenge, answer (nonce-1, 1), pre-emptive (nonce-1, 2) → stale, answer (nonce-2, 1)
            #expect(server.requests.count == 4)
            #expect(digest.answers.map(\.nonce) == ["nonce-1", "nonce-1", "nonce-2"])
            #expect(digest.answers.map(\.nc) == ["00000001", "00000002", "00000001"])
            #expect(response.metrics?.transactionMetrics.count == 2)
        }
    }

    @Test func aStaleNonceWithinOneTaskIsNotCountedAsAFailure() throws {
        try withSession { manager, server in
            // The first challenge's nonce has expired by the time its answer arrives.
            let digest = DigestServer()
            digest.install(on: server)
            digest.expireAfterNextChallenge()
            let seen = Recorder<Int>()
            manager.updateHooks { hooks in
                hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                    seen.append(challenge.previousFailureCount)
                    return .useCredential(Self.credential)
                }
            }
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(response.response?.statusCode == 200)
            #expect(seen.all == [0], "the stale answer is repeated without the hook")
            #expect(server.requests.count == 3)
            #expect(digest.answers.map(\.nonce) == ["nonce-1", "nonce-2"])
            #expect(digest.answers.map(\.nc) == ["00000001", "00000001"])
        }
    }

    @Test func aServerThatAlwaysCallsTheNonceStaleIsNotAskedForever() throws {
        try withSession { manager, server in
            let served = Counter()
            server.route("/private") { request, connection in
                served.add(1)
                let stale = request.header("Authorization") != nil
                try connection.respond(status: 401, headers: [("WWW-Authenticate", #"Digest realm="r", nonce="n\#(served.value)", qop="auth", stale=\#(stale)"#)], body: "")
            }
            let seen = Self.answering(manager)
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(response.response?.statusCode == 401)
            #expect(seen.count == 1)
            // The challenge, the hook's answer, then ten stale retries (the same bound as failures).
            #expect(server.requests.count == 2 + 10)
        }
    }

    @Test func theStrongestDigestIsPreferredOverBasic() throws {
        try withSession { manager, server in
            let digest = DigestServer { nonce, stale in
                [#"Basic realm="http-auth@example.org""#,
                 #"Digest realm="http-auth@example.org", qop="auth", algorithm=MD5, nonce="\#(nonce)", stale=\#(stale)"#
                    + #", Digest realm="http-auth@example.org", qop="auth", algorithm=SHA-256, nonce="\#(nonce)""#]
            }
            digest.install(on: server)
            let seen = Self.answering(manager)
            #expect(try runData(manager, Request(url: url(server, "/private"))).response?.statusCode == 200)
            let challenge = try #require(seen.all.first)
            #expect(challenge.scheme == "Digest")
            #expect(challenge.answered[parameter: "algorithm"]?.value == "SHA-256")
            #expect(challenge.offered.map(\.scheme) == ["Basic", "Digest", "Digest"])
            #expect(digest.answers.map(\.algorithm) == ["SHA-256"])
        }
    }

    @Test func theRFC2069FormIsUsedWhenTheServerOffersNoQop() throws {
        try withSession { manager, server in
            let digest = DigestServer { nonce, _ in [#"Digest realm="http-auth@example.org", nonce="\#(nonce)""#] }
            digest.install(on: server)
            _ = Self.answering(manager)
            #expect(try runData(manager, Request(url: url(server, "/private"))).response?.statusCode == 200)
            let answer = try #require(digest.answers.first)
            #expect(answer.qop == nil && answer.nc == nil && answer.cnonce == nil && answer.algorithm == "MD5")
        }
    }

    @Test func wrongDigestCredentialsCountAsFailuresAndAreForgotten() throws {
        try withSession { manager, server in
            let digest = DigestServer()
            digest.install(on: server)
            let counts = Recorder<Int>()
            manager.updateHooks { hooks in
                hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                    counts.append(challenge.previousFailureCount)
                    let password = challenge.previousFailureCount == 0 ? "wrong" : "Circle of Life"
                    return .useCredential(Credential(user: "Mufasa", password: password))
                }
            }
            let first = try runData(manager, Request(url: url(server, "/private")))
            #expect(first.response?.statusCode == 200)
            #expect(counts.all == [0, 1])
            #expect(server.requests.count == 3)
            // The good credential is the one remembered.
            let second = try runData(manager, Request(url: url(server, "/private")))
            #expect(second.response?.statusCode == 200)
            #expect(server.requests.count == 4)
            #expect(counts.count == 2)
        }
    }

    @Test func aCredentialForASchemeCourierCannotAnswerFailsTheTask() throws {
        for (header, named) in [(#"Bearer realm="api""#, "Bearer"), (#"Digest realm="r", nonce="n", algorithm=SHA-512"#, "SHA-512"),
                                (#"Digest realm="r", nonce="n", qop="auth-int""#, "auth-int")] {
            try withSession { manager, server in
                server.route("/private") { _, connection in
                    try connection.respond(status: 401, headers: [("WWW-Authenticate", header)], body: "no")
                }
                _ = Self.answering(manager)
                let response = try runData(manager, Request(url: url(server, "/private")))
                let error = try #require(response.error)
                #expect(error.code == .unsupportedAuthenticationScheme)
                #expect(error.phase == .serialize)
                #expect("\(error)".contains(named), "\(error)")
                #expect(server.requests.count == 1, "nothing was sent with the credential")
            }
        }
    }

    @Test func aUserNameThatWouldInjectAFieldIsRefused() throws {
        try withSession { manager, server in
            DigestServer().install(on: server)
            _ = Self.answering(manager, with: Credential(user: "Mufasa\r\nX-Injected: 1", password: "Circle of Life"))
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(response.error?.code == .invalidHeader)
            #expect(server.requests.count == 1)
            #expect(!"\(String(describing: response.error))".contains("Circle"), "the password is not printed")
        }
    }
}
