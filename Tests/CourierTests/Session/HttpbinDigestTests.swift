import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// Digest access authentication (RFC 7616) against a server Courier did not write: httpbin's
/// `/digest-auth/auth/user/passwd/{MD5,SHA-256}` under gunicorn, started here and always stopped.
/// Skipped, with the reason recorded, where gunicorn is not installed (`make deps` installs
/// `httpbin` and `gunicorn` from PyPI).
@Suite(.serialized) struct HttpbinDigestTests {
    @Test(.enabled(if: HttpbinServer.executable != nil, "gunicorn is not installed: `make deps` installs httpbin and gunicorn from PyPI"))
    func digestAgainstHttpbin() throws {
        let executable = try #require(HttpbinServer.executable)
        let httpbin = try HttpbinServer(executable: executable)
        defer { httpbin.stop() }
        for algorithm in ["MD5", "SHA-256"] {
            try withSession { manager, _ in
                let challenges = Recorder<AuthenticationChallenge>()
                manager.updateHooks { hooks in
                    hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                        challenges.append(challenge)
                        return .useCredential(Credential(user: "user", password: "passwd"))
                    }
                }
                let target = try #require(URL(string: httpbin.baseURL + "/digest-auth/auth/user/passwd/\(algorithm)"))
                let response = try runData(manager, Request(url: target))
                let body = response.value.map { String(decoding: $0, as: UTF8.self) } ?? ""
                #expect(response.response?.statusCode == 200, "\(algorithm): \(String(describing: response.error)) \(body)")
                #expect(body.contains("\"authenticated\": true") || body.contains("\"authenticated\":true"), "\(algorithm): \(body)")
                let challenge = try #require(challenges.all.first)
                #expect(challenges.count == 1)
                #expect(challenge.scheme == "Digest")
                #expect(challenge.answered[parameter: "algorithm"]?.value == algorithm)
                #expect(response.metrics?.transactionMetrics.count == 2)
                // The next request answers the remembered nonce at once, with nc=00000002.
                let again = try runData(manager, Request(url: target))
                #expect(again.response?.statusCode == 200, "\(algorithm): \(String(describing: again.error))")
                #expect(again.metrics?.transactionMetrics.count == 1)
                #expect(again.request.value(forHTTPHeaderField: "Authorization")?.contains("nc=00000002") == true)
                #expect(challenges.count == 1)
            }
        }
        // A wrong password is refused: the hook is asked again, and its default handling
        // delivers the 401.
        try withSession { manager, _ in
            let counts = Recorder<Int>()
            manager.updateHooks { hooks in
                hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                    counts.append(challenge.previousFailureCount)
                    return challenge.previousFailureCount == 0 ? .useCredential(Credential(user: "user", password: "wrong")) : .performDefaultHandling
                }
            }
            let target = try #require(URL(string: httpbin.baseURL + "/digest-auth/auth/user/passwd/SHA-256"))
            let refused = try runData(manager, Request(url: target))
            #expect(refused.response?.statusCode == 401, "\(String(describing: refused.error))")
            #expect(counts.all == [0, 1])
        }
    }
}
