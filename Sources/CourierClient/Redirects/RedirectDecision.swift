import CourierHTTP1

/// What a request carries as a body, as far as following a redirect is concerned.
public enum RedirectBody: Hashable, Sendable {
    /// No body.
    case none
    /// A body that can be sent again (bytes in memory, a file).
    case replayable
    /// A body that is read once from a stream and cannot be sent again.
    case stream
}

/// One request made in a redirect chain.
public struct RedirectVisit: Hashable, Sendable {
    public var method: HTTPMethod
    public var url: HTTPURL

    public init(method: HTTPMethod, url: HTTPURL) {
        self.method = method
        self.url = url
    }
}

/// The request to make next when a redirect is followed.
public struct RedirectedRequest: Hashable, Sendable {
    /// The method for the new request (GET after a 303, or after a 301/302 to a POST).
    public var method: HTTPMethod
    /// The resolved Location, without fragment.
    public var url: HTTPURL
    /// The fields to send: the original ones, minus body fields when the body is dropped, minus
    /// credentials when the origin changes, with Host rewritten when the origin changes.
    public var headers: HTTPFields
    /// Whether the original body is sent again (307/308, and 301/302 other than POST).
    public var keepsBody: Bool
}

/// The outcome of ``RedirectConfiguration/decide(method:url:headers:body:status:location:history:)``.
public enum RedirectDecision: Hashable, Sendable {
    /// Make this request next.
    case follow(RedirectedRequest)
    /// Return the response as it is.
    case doNotFollow(NotFollowedReason)

    public enum NotFollowedReason: Hashable, Sendable {
        /// Not 301, 302, 303, 307 or 308. (300, 304, 305 and 306 are never followed.)
        case notARedirect
        /// ``RedirectConfiguration/follow`` is false.
        case disabled
        /// The response has no Location field, or an empty one.
        case noLocation
        /// A 307, 308 (or a 301/302 to a method other than POST) would have to resend a body
        /// that is read from a stream and cannot be replayed. Like Go's net/http, the redirect
        /// response is returned rather than turned into an error.
        case bodyNotReplayable
    }
}

extension RedirectConfiguration {
    /// Fields that describe the body, removed whenever the body is dropped (RFC 9110 §15.4,
    /// and the Fetch standard's "request-body-header names").
    static let bodyFieldNames = [
        "Content-Length", "Content-Type", "Transfer-Encoding", "Content-Encoding", "Content-Language",
        "Content-Location",
    ]

    /// Fields that carry credentials for one origin, removed when a redirect changes origin.
    /// Cookies for the new origin are the cookie store's business, not this function's.
    static let credentialFieldNames = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Decides whether and how to follow a redirect response (RFC 9110 §15.4).
    ///
    /// Rules:
    /// - Only 301, 302, 303, 307 and 308 are followed.
    /// - 301 and 302 turn POST into GET and drop the body, as every browser and curl do
    ///   (§15.4.2, §15.4.3); other methods keep their method and body.
    /// - 303 turns every method but HEAD into GET and drops the body (§15.4.4).
    /// - 307 and 308 keep method and body (§15.4.8, §15.4.9).
    /// - A relative Location is resolved against `url` (RFC 3986 §5). Fragments are dropped:
    ///   RFC 9110 §10.2.2 has a Location without fragment inherit the original one, but a
    ///   fragment is never sent, so ``HTTPURL`` does not keep one at all. Spaces and non-ASCII
    ///   bytes in a Location are percent-encoded first, as curl and browsers do; control bytes
    ///   make it invalid.
    /// - A change of origin (scheme, host or port) drops Authorization, Cookie and
    ///   Proxy-Authorization, and the user information of `url` (its credentials) stays behind;
    ///   a Location on the same origin without user information inherits that of `url`. A Host
    ///   field set by the caller is kept for the same origin (a virtual-host override, as curl
    ///   does) and rewritten to the new URL's otherwise; without one, the encoder adds Host from
    ///   the new URL.
    /// - The same method and URL requested twice in one chain is a loop.
    ///
    /// - Parameters:
    ///   - method, url, headers, body: the request that received the redirect.
    ///   - status: the response status code.
    ///   - location: the response's Location field value, if any.
    ///   - history: the requests made before this one in the same chain, oldest first (empty
    ///     for the first redirect). Its count is the number of redirects already followed.
    public func decide(
        method: HTTPMethod, url: HTTPURL, headers: HTTPFields, body: RedirectBody, status: Int, location: String?,
        history: [RedirectVisit]
    ) throws(RedirectError) -> RedirectDecision {
        guard RedirectConfiguration.isFollowable(status: status) else { return .doNotFollow(.notARedirect) }
        guard follow else { return .doNotFollow(.disabled) }
        guard let location, let trimmed = RedirectConfiguration.trimmed(location) else {
            return .doNotFollow(.noLocation)
        }
        guard history.count < maximum else { throw .tooManyRedirects(history.count + 1) }

        var target: HTTPURL
        do {
            target = try url.resolving(RedirectConfiguration.percentEncodingSpacesAndNonASCII(trimmed))
        } catch where error.reason == .unsupportedScheme {
            throw .unsupportedScheme(HTTPURLError.loggable(location))
        } catch {
            throw .invalidLocation(HTTPURLError(reason: error.reason, input: location))
        }
        try checkTarget(target, from: url, location: location)

        let newMethod: HTTPMethod
        switch status {
        case 301, 302: newMethod = method == .POST ? .GET : method
        case 303: newMethod = method == .HEAD ? .HEAD : .GET
        default: newMethod = method  // 307, 308
        }
        let dropsBody = status == 303 || newMethod != method
        if !dropsBody, body == .stream { return .doNotFollow(.bodyNotReplayable) }

        try RedirectConfiguration.checkLoop(RedirectVisit(method: newMethod, url: target), from: RedirectVisit(method: method, url: url), history: history)

        var newHeaders = headers
        if dropsBody {
            for name in RedirectConfiguration.bodyFieldNames { newHeaders.remove(name: name) }
        }
        if target.origin == url.origin {
            // User information is the credentials of its origin: kept for the same origin (a
            // relative Location keeps it already), never carried to another one.
            if target.rawUserInfo == nil, let userInfo = url.rawUserInfo { target = target.replacingUserInfo(userInfo) }
        } else {
            // Everything in `headers` came from the request that got the redirect. User
            // information of a target on another origin can only have been written in the
            // Location (a reference with an authority brings its own, RFC 3986 §5.2.2): none was
            // carried over, and what the server wrote is used as written.
            RedirectConfiguration.leaveCredentialsBehind(
                headers: &newHeaders, url: &target, from: url, carriedOver: headers, carriedUserInfo: nil)
        }
        return .follow(
            RedirectedRequest(method: newMethod, url: target, headers: newHeaders, keepsBody: !dropsBody && body != .none))
    }

    /// The statuses that are followed: 301, 302, 303, 307 and 308 (RFC 9110 §15.4; 300, 304,
    /// 305 and 306 never are).
    static func isFollowable(status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// Refuses a redirect target the configuration does not allow: a network URL leading to a
    /// Unix-domain socket, or a refused `https` → `http` downgrade. `location` is what the
    /// error names.
    func checkTarget(_ target: HTTPURL, from url: HTTPURL, location: String) throws(RedirectError) {
        // A server on the network must not send the client into a local socket.
        if target.scheme == .unix, !(url.scheme == .unix && target.origin == url.origin) {
            throw .unsupportedScheme(HTTPURLError.loggable(location))
        }
        if url.scheme == .https, target.scheme == .http, !allowHTTPSToHTTP {
            throw .httpsToHTTPDowngrade(target)
        }
    }

    /// Refuses `next` when it repeats `current` or a request of `history` (a loop).
    static func checkLoop(_ next: RedirectVisit, from current: RedirectVisit, history: [RedirectVisit]) throws(RedirectError) {
        if sameRequest(next, current) || history.contains(where: { sameRequest($0, next) }) {
            throw .loop(next.url)
        }
    }

    /// The one credential rule: credentials belong to their origin. When `url` (the next
    /// request's) has another origin than `source` (the request that got the redirect), every
    /// Authorization, Cookie and Proxy-Authorization field of `headers` whose values are those
    /// of `carriedOver` (the fields taken over from the earlier request) is removed, and so is
    /// user information of `url` equal to `carriedUserInfo`; a Host field taken over is
    /// rewritten to the new origin. Fields that differ from `carriedOver` were set for the new
    /// request on purpose and stay.
    static func leaveCredentialsBehind(
        headers: inout HTTPFields, url: inout HTTPURL, from source: HTTPURL, carriedOver: HTTPFields, carriedUserInfo: String?
    ) {
        guard url.origin != source.origin else { return }
        for name in credentialFieldNames {
            let values = headers.values(for: name)
            if !values.isEmpty, values == carriedOver.values(for: name) { headers.remove(name: name) }
        }
        if let userInfo = url.rawUserInfo, userInfo == carriedUserInfo { url = url.removingUserInfo() }
        let host = headers.values(for: "Host")
        if !host.isEmpty, host == carriedOver.values(for: "Host") {
            do {
                try headers.set(name: "Host", value: url.hostHeader)
            } catch {
                // hostHeader is built only from validated host and port bytes.
                preconditionFailure("an HTTPURL produced an invalid Host value: \(error)")
            }
        }
    }

    /// Checks a next request that a redirect handler put in place of `proposed`
    /// (``HTTPClientRedirectAnswer/modify(_:)``) with the rules ``decide`` applies: the same
    /// target checks and loop check, and the one credential rule
    /// (``leaveCredentialsBehind(headers:url:from:carriedOver:carriedUserInfo:)``) against what
    /// it took over from `proposed` (its fields, and its user information when that is the
    /// current origin's: a proposal on another origin has only what the Location wrote).
    /// Returns the URL and fields to send.
    func checkModified(
        method: HTTPMethod, url: HTTPURL, headers: HTTPFields, proposed: RedirectedRequest, from current: RedirectVisit,
        history: [RedirectVisit]
    ) throws(RedirectError) -> (url: HTTPURL, headers: HTTPFields) {
        try checkTarget(url, from: current.url, location: url.description)
        try RedirectConfiguration.checkLoop(RedirectVisit(method: method, url: url), from: current, history: history)
        var url = url
        var headers = headers
        RedirectConfiguration.leaveCredentialsBehind(
            headers: &headers, url: &url, from: current.url, carriedOver: proposed.headers,
            carriedUserInfo: proposed.url.origin == current.url.origin ? proposed.url.rawUserInfo : nil)
        return (url, headers)
    }

    /// Two requests are the same when method, origin and request-target match (an explicit
    /// default port and user information make no difference).
    static func sameRequest(_ a: RedirectVisit, _ b: RedirectVisit) -> Bool {
        a.method == b.method && a.url.origin == b.url.origin && a.url.requestTarget == b.url.requestTarget
    }

    /// `s` without leading and trailing SP and HTAB, or nil when nothing else is left.
    static func trimmed(_ s: String) -> String? {
        let utf8 = s.utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return nil }
        let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(s[first...last])
    }

    /// Percent-encodes spaces and bytes above 0x7F, leaving everything else, including control
    /// bytes, for the URL parser to judge.
    static func percentEncodingSpacesAndNonASCII(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 0x20 || $0 >= 0x80 }) else { return s }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in s.utf8 {
            if b == 0x20 || b >= 0x80 {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
