import Courier
import CourierTestSupport
import Dispatch
import FoundationEssentials
import Synchronization
import Testing

/// The hooks that decide about a response head: redirects (RFC 9110 §15.4) and authentication
/// challenges (RFC 9110 §11.6, Basic per RFC 7617). Each runs on the completion queue.
@Suite(.serialized) struct RedirectAndAuthHookTests {
    static func redirecting(_ server: ScriptedServer) {
        server.route("/from") { _, connection in
            try connection.respond(status: 302, headers: [("Location", "/to")], body: "moved")
        }
        server.route("/to") { request, connection in
            try connection.respond(body: "target " + (request.header("X-Rewritten") ?? "-"))
        }
        server.route("/rewritten") { request, connection in
            try connection.respond(body: "rewritten " + (request.header("X-Rewritten") ?? "-"))
        }
    }

    @Test func aRedirectIsFollowedByDefault() throws {
        try withSession { manager, server in
            Self.redirecting(server)
            let response = try runData(manager, Request(url: url(server, "/from")))
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "target -")
            #expect(response.response?.statusCode == 200)
            #expect(response.response?.url.path == "/to")
            #expect(response.request.url.path == "/to", "the last request made")
            #expect(server.requests.map(\.path) == ["/from", "/to"])
            #expect(response.metrics?.redirectCount == 1)
            #expect(response.metrics?.transactionMetrics.count == 2)
        }
    }

    @Test func theRedirectHookCanRewriteTheRequest() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            Self.redirecting(server)
            let seen = Recorder<(Int, String, String, Bool)>()
            manager.updateHooks { hooks in
                hooks.taskWillPerformHTTPRedirection = { _, response, proposed in
                    seen.append((response.statusCode, response.url.path, proposed.url.path, marker.isCurrent))
                    var rewritten = proposed
                    rewritten.url = URL(string: proposed.url.absoluteString.replacing("/to", with: "/rewritten"))!
                    try? rewritten.setValue("yes", forHTTPHeaderField: "X-Rewritten")
                    return rewritten
                }
            }
            let response = try runData(manager, Request(url: url(server, "/from")))
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "rewritten yes")
            #expect(server.requests.map(\.path) == ["/from", "/rewritten"])
            #expect(server.requests.last?.header("X-Rewritten") == "yes")
            let calls = seen.all
            #expect(calls.count == 1)
            #expect(calls.first?.0 == 302 && calls.first?.1 == "/from" && calls.first?.2 == "/to")
            #expect(calls.first?.3 == true, "the hook ran on the completion queue")
            #expect(response.metrics?.redirectCount == 1)
        }
    }

    /// One URL from hop to hop: a Location with bytes Foundation's URL would percent-encode
    /// (`|`, `[`, `]`) is sent exactly as the transport parsed it, with or without a redirect
    /// hook, and it is the task's current request as it is.
    @Test(arguments: [false, true])
    func aRedirectTargetIsSentAsTheTransportParsedIt(withHook: Bool) throws {
        try withSession { manager, server in
            server.route("/from") { _, connection in
                try connection.respond(status: 302, headers: [("Location", "/next|hop?k=[1]")], body: "")
            }
            server.route("/next|hop") { request, connection in
                try connection.respond(body: request.target)
            }
            let proposedTargets = Recorder<String>()
            if withHook {
                manager.updateHooks { hooks in
                    hooks.taskWillPerformHTTPRedirection = { _, _, proposed in
                        proposedTargets.append(proposed.httpURL?.requestTarget ?? "none")
                        return proposed
                    }
                }
            }
            let response = try runData(manager, Request(url: url(server, "/from")))
            #expect(server.requests.map(\.target) == ["/from", "/next|hop?k=[1]"])
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "/next|hop?k=[1]")
            #expect(response.request.httpURL?.requestTarget == "/next|hop?k=[1]")
            #expect(response.response?.httpURL?.requestTarget == "/next|hop?k=[1]")
            #expect(response.response?.url.absoluteString.hasSuffix("/next%7Chop?k=%5B1%5D") == true, "Foundation's form, made on read")
            #expect(proposedTargets.all == (withHook ? ["/next|hop?k=[1]"] : []))
        }
    }

    @Test func aNilFromTheRedirectHookDeliversTheRedirectResponse() throws {
        try withSession { manager, server in
            Self.redirecting(server)
            manager.updateHooks { $0.taskWillPerformHTTPRedirection = { _, _, _ in nil } }
            let response = try runData(manager, Request(url: url(server, "/from")))
            #expect(response.response?.statusCode == 302)
            #expect(response.response?.value(forHTTPHeaderField: "Location") == "/to")
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "moved", "the 302's own body")
            #expect(server.requests.map(\.path) == ["/from"])
            #expect(response.metrics?.redirectCount == 0)
        }
    }

    /// The default limit is NSURLSession's and Alamofire's: 16 followed, the 17th refused.
    @Test func moreThanSixteenRedirectsFail() throws {
        try withSession { manager, server in
            server.setDefaultHandler { request, connection in
                let n = Int(request.path.split(separator: "/").last ?? "") ?? 0
                try connection.respond(status: 302, headers: [("Location", "/loop/\(n + 1)")], body: "")
            }
            let hookCalls = Counter()
            manager.updateHooks { $0.taskWillPerformHTTPRedirection = { _, _, next in hookCalls.add(1); return next } }
            let response = try runData(manager, Request(url: url(server, "/loop/0")))
            let error = try #require(response.error)
            #expect(error.code == .redirectRefused)
            #expect(error.phase == .redirect)
            #expect(error.response?.statusCode == 302)
            #expect(server.requests.count == 17, "the first request and sixteen redirects")
            #expect(hookCalls.value == 16)
            #expect(response.metrics?.redirectCount == 16)
        }
    }

    // MARK: Authentication

    static func protected(_ server: ScriptedServer, user: String = "user", password: String = "secret") {
        let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        server.route("/private") { request, connection in
            if request.header("Authorization") == expected {
                try connection.respond(body: "welcome")
            } else {
                try connection.respond(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"x\", charset=\"UTF-8\"")], body: "who are you")
            }
        }
    }

    @Test func aChallengeAnsweredWithACredentialSucceeds() throws {
        let marker = QueueMarker()
        try withSession(completionQueue: marker.queue) { manager, server in
            Self.protected(server)
            let challenges = Recorder<(AuthenticationChallenge, Bool)>()
            manager.updateHooks { hooks in
                hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                    challenges.append((challenge, marker.isCurrent))
                    return .useCredential(Credential(user: "user", password: "secret"))
                }
            }
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "welcome")
            let (challenge, onQueue) = try #require(challenges.all.first)
            #expect(challenges.count == 1)
            #expect(onQueue)
            #expect(challenge.scheme == "Basic")
            #expect(challenge.realm == "x")
            #expect(challenge.previousFailureCount == 0)
            #expect(challenge.isProxy == false)
            #expect(challenge.host == "127.0.0.1")
            #expect(challenge.port == server.port)
            #expect(challenge.failureResponse.statusCode == 401)
            #expect(server.requests.count == 2)
            #expect(server.requests.first?.header("Authorization") == nil)
            #expect(server.requests.last?.header("Authorization") == "Basic dXNlcjpzZWNyZXQ=")
            #expect(response.metrics?.transactionMetrics.count == 2)
        }
    }

    @Test func wrongCredentialsCountAsFailures() throws {
        try withSession { manager, server in
            Self.protected(server)
            let counts = Recorder<Int>()
            manager.updateHooks { hooks in
                hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                    counts.append(challenge.previousFailureCount)
                    let password = challenge.previousFailureCount < 2 ? "wrong\(challenge.previousFailureCount)" : "secret"
                    return .useCredential(Credential(user: "user", password: password))
                }
            }
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(counts.all == [0, 1, 2])
            #expect(response.response?.statusCode == 200)
            #expect(server.requests.count == 4)
            #expect(server.requests[1].header("Authorization") == "Basic " + Data("user:wrong0".utf8).base64EncodedString())
            #expect(server.requests[2].header("Authorization") == "Basic " + Data("user:wrong1".utf8).base64EncodedString())
        }
    }

    @Test func aCredentialBasicCannotCarryFailsTheTaskInsteadOfBeingSent() throws {
        // RFC 7617 §2: a user-id with ":" would move the split between user-id and password, and
        // control characters are not allowed; such a credential is refused, never sent.
        for credential in [Credential(user: "us:er", password: "secret"), Credential(user: "user", password: "se\ncret")] {
            try withSession { manager, server in
                Self.protected(server)
                manager.updateHooks { $0.taskDidReceiveAuthenticationChallenge = { _, _ in .useCredential(credential) } }
                let response = try runData(manager, Request(url: url(server, "/private")))
                #expect(response.error?.code == .invalidHeader, "\(String(describing: response.error))")
                #expect(server.requests.count == 1, "only the unauthenticated request went out")
                #expect(!"\(String(describing: response.error))".contains("secret"), "the password is not printed")
            }
        }
    }

    @Test func defaultHandlingDeliversThe401() throws {
        try withSession { manager, server in
            Self.protected(server)
            let calls = Counter()
            manager.updateHooks { $0.taskDidReceiveAuthenticationChallenge = { _, _ in calls.add(1); return .performDefaultHandling } }
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(response.response?.statusCode == 401)
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "who are you")
            #expect(calls.value == 1)
            #expect(server.requests.count == 1)
        }
    }

    @Test func cancellingAChallengeCancelsTheTask() throws {
        try withSession { manager, server in
            Self.protected(server)
            manager.updateHooks { $0.taskDidReceiveAuthenticationChallenge = { _, _ in .cancel } }
            let response = try runData(manager, Request(url: url(server, "/private")))
            #expect(response.error?.code == .cancelled)
            #expect(response.error?.isCancelled == true)
            #expect(server.requests.count == 1)
        }
    }
}
