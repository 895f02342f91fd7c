import CourierClient
import CourierCore
import Synchronization

/// The Digest nonces a session answered, per origin (or proxy), with the credential and how
/// many requests carried each nonce (RFC 7616 §3.4: `nc` counts the requests, this one
/// included, that sent the nonce; the server uses it to detect replays). A later request to the
/// same origin reuses the nonce with the next count, as RFC 7616 §3.5 allows, instead of
/// taking a 401 first; a `stale=true` challenge (§3.3) is answered with the remembered
/// credential and the new nonce.
final class DigestNonces: Sendable {
    struct Entry {
        var challenge: DigestChallenge
        var credential: Credential
        var count: UInt32
    }

    private struct Key: Hashable {
        var origin: HTTPOrigin
        var proxy: Bool
    }

    private let entries = Mutex<[Key: Entry]>([:])

    /// Records that `credential` answers `challenge` now; returns the `nc` to send: 1 for a nonce
    /// not seen before, else one more than last time.
    func remember(_ challenge: DigestChallenge, credential: Credential, origin: HTTPOrigin, proxy: Bool) -> UInt32 {
        entries.withLock { entries in
            let key = Key(origin: origin, proxy: proxy)
            var entry = entries[key] ?? Entry(challenge: challenge, credential: credential, count: 0)
            if entry.challenge.nonce != challenge.nonce || entry.credential != credential {
                entry = Entry(challenge: challenge, credential: credential, count: 0)
            }
            entry.challenge = challenge
            entry.count &+= 1
            entries[key] = entry
            return entry.count
        }
    }

    /// The remembered answer for a request to `origin` with its next count, counted now; nil
    /// when there is none.
    func next(origin: HTTPOrigin, proxy: Bool) -> Entry? {
        entries.withLock { entries in
            let key = Key(origin: origin, proxy: proxy)
            guard var entry = entries[key] else { return nil }
            entry.count &+= 1
            entries[key] = entry
            return entry
        }
    }

    /// The credential last used for `origin`, if any.
    func credential(origin: HTTPOrigin, proxy: Bool) -> Credential? {
        entries.withLock { $0[Key(origin: origin, proxy: proxy)]?.credential }
    }

    /// The server refused the remembered credential: forget it.
    func forget(origin: HTTPOrigin, proxy: Bool) {
        _ = entries.withLock { $0.removeValue(forKey: Key(origin: origin, proxy: proxy)) }
    }
}

extension DigestNonces {
    /// `request` with the Digest answer remembered for its origin and the nonce's next count
    /// (RFC 7616 §3.4), when there is one and the request carries no credentials of its own
    /// (an `Authorization` field or user information in its URL); otherwise `request`.
    func authorizing(_ request: Request) -> Request {
        guard !request.headers.contains("Authorization"), let url = request.httpURL, url.user == nil,
              let entry = next(origin: url.origin, proxy: false) else { return request }
        guard let field = try? HTTPField.digestAuthorization(
            entry.challenge, credential: entry.credential, request: request, proxy: false, nonceCount: entry.count) else { return request }
        return request.replacingField(field)
    }
}
