import CourierCore
import FoundationEssentials
import Synchronization

/// A credential that knows when it must be refreshed (Alamofire's `AuthenticationCredential`),
/// e.g. an OAuth access token close to its expiry.
public protocol AuthenticationCredential: Sendable {
    /// Refresh before the next request uses it.
    var requiresRefresh: Bool { get }
}

/// Applies and refreshes one kind of credential (Alamofire's `Authenticator`).
public protocol Authenticator: Sendable {
    associatedtype Credential: AuthenticationCredential

    /// Puts `credential` on `request` (usually an `Authorization` field, RFC 9110 §11.6.2).
    func apply(_ credential: Credential, to request: inout Request) throws
    /// A fresh credential for `credential` (a refresh-token exchange, say).
    func refresh(_ credential: Credential) async throws -> Credential
    /// Whether `failure` means the credential was refused (by default: a 401 response,
    /// RFC 9110 §15.5.2).
    func isAuthenticationFailure(_ failure: RetryContext) -> Bool
    /// Whether `request` carried `credential` — false when it was sent with an older one that
    /// another request has already replaced, so it is retried with the new one at once.
    func isRequest(_ request: Request, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    public func isAuthenticationFailure(_ failure: RetryContext) -> Bool { failure.response?.statusCode == 401 }
}

/// Token refresh that survives concurrent 401s (Alamofire's `AuthenticationInterceptor`, minus
/// its known storms, Alamofire#3297 and #3735).
///
/// - Every attempt waits for a refresh in flight and then carries the newest credential; a
///   credential that ``AuthenticationCredential/requiresRefresh`` is refreshed before use.
/// - When many requests get 401 at once, exactly one refresh runs. The others wait for it and
///   are retried with its result. A 401 for a request sent with a credential already replaced
///   is retried at once, with no refresh.
/// - More than ``RefreshWindow/maximumAttempts`` refreshes within ``RefreshWindow/interval``
///   fail the request with ``CourierError/Code/excessiveAuthenticationRefresh``: a server that
///   refuses every fresh credential must not be asked for ever.
/// - A refresh that throws fails every request waiting on it with
///   ``CourierError/Code/authenticationRefreshFailed`` (the underlying error is the
///   authenticator's); no credential at all fails with
///   ``CourierError/Code/authenticationCredentialMissing``.
public final class AuthenticationInterceptor<A: Authenticator>: RequestInterceptor, @unchecked Sendable {
    /// At most `maximumAttempts` refreshes within `interval` seconds.
    public struct RefreshWindow: Sendable {
        public var interval: Double
        public var maximumAttempts: Int
        public init(interval: Double = 30, maximumAttempts: Int = 5) {
            self.interval = interval
            self.maximumAttempts = maximumAttempts
        }
    }

    public let authenticator: A
    public let refreshWindow: RefreshWindow
    private let state: Mutex<State>

    private enum RefreshStep {
        case join(Task<A.Credential, any Error>)
        case done(A.Credential)
        case excessive
    }

    private struct State {
        var credential: A.Credential?
        /// The one refresh in flight, which every waiter awaits.
        var refresh: Task<A.Credential, any Error>?
        /// When refreshes started, within the window.
        var refreshStarts: [Deadline] = []
        /// Retries that joined a refresh in flight (for tests that must know every waiter joined).
        var joins = 0
    }

    // `@unchecked Sendable`: the only mutable state is `state`, a Mutex.
    public init(authenticator: A, credential: A.Credential? = nil, refreshWindow: RefreshWindow = RefreshWindow()) {
        self.authenticator = authenticator
        self.refreshWindow = refreshWindow
        self.state = Mutex(State(credential: credential))
    }

    /// The current credential; setting it replaces it (a login).
    public var credential: A.Credential? {
        get { state.withLock { $0.credential } }
        set { state.withLock { $0.credential = newValue } }
    }

    /// How many refreshes ran (within the window or not): for tests and monitoring.
    public var refreshCount: Int { refreshTotal.load(ordering: .relaxed) }

    /// How many retries joined a refresh that another had started.
    var joinCount: Int { state.withLock { $0.joins } }
    private let refreshTotal = Atomic<Int>(0)

    public func adapt(_ request: Request, context: AdaptationContext) async throws -> Request {
        var credential = try await current()
        if credential.requiresRefresh { credential = try await refreshed(replacing: credential) }
        var adapted = request
        do { try authenticator.apply(credential, to: &adapted) } catch let error as CourierError { throw error } catch {
            throw CourierError(.requestAdaptationFailed, underlying: error, failingURL: request.url, detail: "the authenticator could not apply the credential")
        }
        return adapted
    }

    public func retry(_ failure: RetryContext) async -> RetryDecision {
        guard authenticator.isAuthenticationFailure(failure) else { return .doNotRetry }
        do {
            let (credential, inFlight) = state.withLock { state in
                if state.refresh != nil { state.joins += 1 }
                return (state.credential, state.refresh)
            }
            // A refresh is running: its result decides for this request too.
            if let inFlight {
                _ = try await Self.joined(inFlight)
                return .retry
            }
            guard let credential else {
                throw CourierError(.authenticationCredentialMissing, detail: "the authentication interceptor has no credential")
            }
            // Sent with a credential someone already replaced: the new one may do.
            guard authenticator.isRequest(failure.request, authenticatedWith: credential) else { return .retry }
            _ = try await refreshed(replacing: credential)
            return .retry
        } catch let error as CourierError {
            return .doNotRetryWithError(error)
        } catch {
            return .doNotRetryWithError(CourierError(.authenticationRefreshFailed, underlying: error, failingURL: failure.request.url))
        }
    }

    /// The credential once no refresh is in flight.
    private func current() async throws -> A.Credential {
        while true {
            let (credential, refresh) = state.withLock { ($0.credential, $0.refresh) }
            if let refresh {
                _ = try? await refresh.value
                continue
            }
            guard let credential else {
                throw CourierError(.authenticationCredentialMissing, detail: "the authentication interceptor has no credential")
            }
            return credential
        }
    }

    /// The credential after the one refresh of `old`: started here if none is in flight (and
    /// `old` is still current), else joined.
    private func refreshed(replacing old: A.Credential) async throws -> A.Credential {
        let step: RefreshStep = state.withLock { state in
            if let refresh = state.refresh {
                state.joins += 1
                return .join(refresh)
            }
            if let current = state.credential, !authenticator.isSameCredential(current, old) { return .done(current) }
            let now = Deadline.now()
            let window = UInt64(max(0, min(refreshWindow.interval, 1e9)) * 1e9)
            let windowStart = Deadline(uptimeNanoseconds: now.uptimeNanoseconds > window ? now.uptimeNanoseconds - window : 0)
            state.refreshStarts.removeAll { $0 < windowStart }
            guard state.refreshStarts.count < refreshWindow.maximumAttempts else { return .excessive }
            state.refreshStarts.append(now)
            refreshTotal.add(1, ordering: .relaxed)
            let authenticator = self.authenticator
            // The result is published (or a failed refresh cleared) before any waiter sees it,
            // so a waiter that resumes finds the new credential and no refresh in flight. The
            // task cannot publish before it is stored: publishing takes this lock.
            let refresh = Task(executorPreference: InterceptionExecutor.shared) { [weak self] in
                let result: Result<A.Credential, any Error>
                do { result = .success(try await authenticator.refresh(old)) } catch { result = .failure(error) }
                self?.state.withLock { state in
                    if case .success(let fresh) = result { state.credential = fresh }
                    state.refresh = nil
                }
                return try result.get()
            }
            state.refresh = refresh
            return .join(refresh)
        }
        switch step {
        case .done(let credential):
            return credential
        case .excessive:
            throw CourierError(.excessiveAuthenticationRefresh,
                               detail: "more than \(refreshWindow.maximumAttempts) refreshes within \(refreshWindow.interval) s")
        case .join(let refresh):
            return try await Self.joined(refresh)
        }
    }

    /// The result of a refresh, its failure as ``CourierError/Code/authenticationRefreshFailed``.
    private static func joined(_ refresh: Task<A.Credential, any Error>) async throws(CourierError) -> A.Credential {
        do { return try await refresh.value } catch let error as CourierError { throw error } catch {
            throw CourierError(.authenticationRefreshFailed, underlying: error, detail: "the credential could not be refreshed")
        }
    }
}

extension Authenticator {
    /// Whether two credentials are the same one: a request carrying `a` is authenticated with `b`.
    func isSameCredential(_ a: Credential, _ b: Credential) -> Bool {
        var probe = Request(url: Self.probeURL)
        guard (try? apply(a, to: &probe)) != nil else { return false }
        return isRequest(probe, authenticatedWith: b)
    }

    private static var probeURL: HTTPURL { try! HTTPURL("http://credential.invalid/") }  // a constant valid URL
}
