import Courier
import CourierCore
import CourierTestSupport
import Synchronization

/// A scripted Digest protection space (RFC 7616) on a ``ScriptedServer`` route: it challenges,
/// checks every answer by computing it again (including `uri` against the request-target), refuses
/// a `nc` that does not grow for its nonce (a replay), and answers `stale=true` (with a fresh
/// nonce) for a correct answer with a nonce it expired.
final class DigestServer: Sendable {
    struct Answer: Sendable {
        var nonce: String, nc: String?, cnonce: String?, qop: String?, algorithm: String?, opaque: String?, username: String?
    }

    private struct State {
        var nonce = "nonce-1"
        var serial = 1
        var expired: Set<String> = []
        var lastCount: [String: UInt32] = [:]
        var answers: [Answer] = []
        var expireAfterNextChallenge = false
    }

    let user: String, password: String, realm: String
    /// The `WWW-Authenticate` values of a challenge, given the nonce and whether it is a stale one.
    let challenges: @Sendable (_ nonce: String, _ stale: Bool) -> [String]
    private let state = Mutex(State())

    init(user: String = "Mufasa", password: String = "Circle of Life", realm: String = "http-auth@example.org",
         challenges: @escaping @Sendable (_ nonce: String, _ stale: Bool) -> [String] = { nonce, stale in
             [#"Digest realm="http-auth@example.org", qop="auth", algorithm=SHA-256, nonce="\#(nonce)", opaque="opaque-1", stale=\#(stale ? "true" : "false")"#]
         }) {
        self.user = user
        self.password = password
        self.realm = realm
        self.challenges = challenges
    }

    /// Every well-formed Digest answer received, in order.
    var answers: [Answer] { state.withLock { $0.answers } }

    /// The current nonce becomes stale; a new one is issued with the next challenge.
    func expireNonce() {
        state.withLock { state in
            state.expired.insert(state.nonce)
            state.serial += 1
            state.nonce = "nonce-\(state.serial)"
        }
    }

    /// The nonce of the next challenge expires as soon as it is sent: its answer gets
    /// `stale=true`.
    func expireAfterNextChallenge() { state.withLock { $0.expireAfterNextChallenge = true } }

    func install(on server: ScriptedServer, path: String = "/private") {
        server.route(path) { [self] request, connection in
            switch verdict(request) {
            case .accepted:
                try connection.respond(body: "welcome")
            case .challenge(let stale):
                let nonce = state.withLock { $0.nonce }
                if state.withLock({ state in defer { state.expireAfterNextChallenge = false }; return state.expireAfterNextChallenge }) {
                    expireNonce()
                }
                try connection.respond(status: 401, headers: challenges(nonce, stale).map { ("WWW-Authenticate", $0) }, body: "who are you")
            }
        }
    }

    private enum Verdict { case accepted, challenge(stale: Bool) }

    private func verdict(_ request: RecordedRequest) -> Verdict {
        guard let header = request.header("Authorization"),
              let credentials = try? AuthChallenge.parse(Array(header.utf8)).first, credentials.hasScheme("Digest") else {
            return .challenge(stale: false)
        }
        func value(_ name: String) -> String? { credentials[parameter: name]?.value }
        guard let nonce = value("nonce"), let response = value("response") else { return .challenge(stale: false) }
        let answer = Answer(
            nonce: nonce, nc: value("nc"), cnonce: value("cnonce"), qop: value("qop"), algorithm: value("algorithm"),
            opaque: value("opaque"), username: value("username"))
        state.withLock { $0.answers.append(answer) }
        let hash: HashFunction = switch value("algorithm")?.uppercased() {
        case "SHA-256": .sha256
        case "SHA-512-256": .sha512_256
        default: .md5
        }
        let h = { (text: String) in hash.hexHash(Array(text.utf8)) }
        let ha1 = h("\(user):\(realm):\(password)")
        let ha2 = h("\(request.method):\(request.target)")
        let expected = answer.qop == nil
            ? h("\(ha1):\(nonce):\(ha2)")
            : h("\(ha1):\(nonce):\(answer.nc ?? ""):\(answer.cnonce ?? ""):\(answer.qop ?? ""):\(ha2)")
        guard response == expected, value("uri") == request.target, value("realm") == realm, answer.username == user else {
            return .challenge(stale: false)
        }
        return state.withLock { state in
            if state.expired.contains(nonce) { return .challenge(stale: true) }
            guard nonce == state.nonce else { return .challenge(stale: false) }
            if let nc = answer.nc {
                guard let count = UInt32(nc, radix: 16), count > state.lastCount[nonce, default: 0] else { return .challenge(stale: false) }
                state.lastCount[nonce] = count
            }
            return .accepted
        }
    }
}
