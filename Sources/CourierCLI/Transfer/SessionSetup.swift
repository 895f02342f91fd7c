import Courier

/// The session curl's transport options describe: redirects, timeouts, TLS trust, client
/// certificate, pinning, proxy, cookies, retries, authentication and the HAR log.
struct SessionSetup {
    let options: CurlOptions

    /// The session configuration (the proxy decided per URL: `proxied` false for a `--noproxy` host).
    func configuration(monitor: TransferMonitor, cookies: CookieJar?, proxied: Bool) throws(CurlExit) -> SessionConfiguration {
        var configuration = SessionConfiguration()
        // The body goes to the output as it arrives; the task keeps none of it.
        configuration.retainsDataTaskBodies = false
        configuration.client.redirects = redirects
        configuration.client.decompression = options.compressed
        // One connection: a curl process transfers its URLs one after another and reuses it,
        // so one event loop serves it (a loop per core would only add threads to start and stop).
        configuration.client.eventLoopThreads = 1
        if let seconds = options.connectTimeout {
            configuration.client.timeouts.connect = .milliseconds(Int64(seconds * 1000))
            configuration.client.timeouts.tlsHandshake = .milliseconds(Int64(seconds * 1000))
        }
        // curl has no idle timeout; -m bounds the whole transfer.
        configuration.client.timeouts.idleRead = nil
        var tls = configuration.client.tls
        if let file = options.caCertificate { tls.trustRoots = [.file(file)] }
        if let directory = options.caPath { tls.trustRoots = (options.caCertificate == nil ? [] : tls.trustRoots) + [.directory(directory)] }
        if let certificate = options.certificate {
            // The key may sit in the same file.
            tls.certificateChainFile = certificate
            tls.privateKeyFile = options.key ?? certificate
            tls.privateKeyPassword = options.keyPassword
        }
        configuration.client.tls = tls
        configuration.client.proxy = proxied ? try proxy() : .none
        configuration.httpCookieStorage = cookies
        // The monitor feeds `--har`'s recorder itself.
        configuration.eventMonitors = [monitor]
        // `--retry`: each request carries its own ``CurlRetry`` (its `--retry-max-time` clock
        // starts with the transfer).
        return configuration
    }

    var redirects: RedirectConfiguration {
        options.followRedirects ? RedirectConfiguration(follow: true, maximum: max(0, options.maximumRedirects)) : .disabled
    }

    /// `--retry N` and its companions, as the library's ``RetryPolicy``: curl retries timeouts,
    /// 408, 429, 500, 502, 503 and 504; `--retry-all-errors` retries every failure.
    var retryPolicy: RetryPolicy {
        var policy = RetryPolicy(retryLimit: options.retry)
        if let delay = options.retryDelay {
            policy.exponentialBackoffBase = 1
            policy.exponentialBackoffScale = delay
            policy.maximumDelay = delay
        } else {
            // curl waits 1 s, doubling each time, up to 10 minutes.
            policy.exponentialBackoffBase = 2
            policy.exponentialBackoffScale = 1
            policy.maximumDelay = 600
        }
        if let limit = options.retryMaximumTime { policy.maximumDelay = min(policy.maximumDelay, limit) }
        if options.retryAllErrors {
            policy.retryableMethods = Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"].compactMap { HTTPMethod($0) })
            policy.retryableStatusCodes = Set(400..<600)
            policy.retriesNonIdempotentRequestsAfterBytesSent = true
        }
        return policy
    }

    /// `-x`: `http://`, `socks5://`, `socks5h://` (no scheme: http), as curl reads it.
    func proxy() throws(CurlExit) -> ProxyConfiguration {
        guard let text = options.proxy, !text.isEmpty else { return .environment }
        let value = text.contains("://") ? text : "http://" + text
        let server: ProxyServer
        do { server = try ProxyServer(parsing: value) } catch {
            throw CurlExit(CurlExit.couldNotResolveProxy, "Unsupported proxy syntax (phase connect) in '\(text)': \(error)")
        }
        return server.scheme.isSOCKS ? .socks5(server) : .http(server)
    }

    /// Whether `url` goes through the proxy (`--noproxy`).
    func usesProxy(for url: HTTPURL) -> Bool {
        guard let list = options.noProxy else { return true }
        return !NoProxyList(list).matches(url)
    }

    /// The default security policy: `-k` accepts any certificate, `--pinnedpubkey` pins
    /// `sha256//…` hashes (curl's syntax; several separated by `;`).
    func securityPolicy() throws(CurlExit) -> SecurityPolicy {
        do {
            if let pins = options.pinnedPublicKey {
                let hashes = pins.split(separator: ";").map { pin -> String in
                    let text = pin.trimmingSpaces
                    return text.hasPrefix("sha256//") ? "sha256/" + text.dropFirst(8) : String(text)
                }
                return try SecurityPolicy(publicKeyPins: hashes, allowInvalidCertificates: options.insecure,
                                          validatesDomainName: !options.insecure)
            }
            if options.insecure {
                return try SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: false)
            }
        } catch {
            throw CurlExit(CurlExit.badFunctionArgument, "Invalid TLS settings (phase trust): \(error)")
        }
        return .default
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
