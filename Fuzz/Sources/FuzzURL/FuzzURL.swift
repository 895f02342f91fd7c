// Fuzzes HTTPURL parsing and reference resolution (RFC 3986) and the redirect decision
// (RedirectConfiguration.decide, RFC 9110 §15.4) for hostile Location values.
//
// Properties checked on every input:
// - nothing traps (the parser, resolution, decide's own preconditions);
// - a refused string gives an HTTPURLError whose `input` is safe to log (visible ASCII only);
// - an accepted URL serialises idempotently: HTTPURL(absoluteString) is the same value with the
//   same absoluteString; its parts are what the type documents (target bytes, a path without
//   dot segments, a valid port, a lowercase name); `description` redacts the credentials;
//   `removingUserInfo()` keeps everything else; resolving "" gives the URL back;
// - whatever the client builds from an accepted URL before sending is encodable and parses back
//   to the same thing: the origin-form request with its Host, the absolute form sent to a proxy
//   (http), and the CONNECT request that opens a tunnel (RFC 9112 §3.2.3: `uri-host ":" port`,
//   brackets for IPv6);
// - resolution: an empty or fragment-only reference gives the base; a reference without an
//   authority keeps the base's origin and user information; resolving the result's own
//   absoluteString gives the result; the result passes every check above;
// - a followed redirect: its URL is the resolved Location; the method and body follow the status
//   rules; a stream body is never resent; https → http only when allowed; never into a Unix
//   socket from elsewhere; never a request already made in the chain; on a change of origin no
//   Authorization, Cookie or Proxy-Authorization field goes along, a caller's Host field names
//   the new URL, and user information in the new URL can only have come from the Location text
//   (on the same origin, a Location without any inherits the request's);
//   other fields are unchanged; the redirected request is encodable whenever the original was;
// - a redirect that is not followed or is refused says why, consistently with the inputs, and
//   its error never prints a password (the request URL's or the Location's).
//
// Input layout (read in order; past the end every byte reads as 0):
//   byte b   base: b % 10 < 9 → bases[b % 10], else the URL string below when it parses
//   byte r   status (r & 7: 301 302 303 307 308 300 304 200), method ((r >> 3) & 7), body
//            ((r >> 6) % 3: none, replayable, stream)
//   byte c   configuration: bit 0 set → follow disabled, bit 1 set → https → http refused,
//            bits 2–4 maximum (10 16 0 1 2 3 5 50), bits 5–7 location absent when all set
//   byte f   fields of the original request, one bit each: Authorization, Cookie,
//            Proxy-Authorization, Host (the base's), Host (another name), Content-Type,
//            Content-Length (the framing's), X-Keep
//   byte h   history: bits 0–1 length; then 2 bits per visit (the current request, the target,
//            a base URL, the base's root)
//   URL      a length byte and that many bytes (parsed on its own)
//   Location the rest (parsed on its own, resolved against the base, and decided on)
import CourierClient
import CourierCore
import CourierHTTP1
import FuzzSupport

private let bases = [
    "http://a/b/c/d;p?q",  // RFC 3986 §5.4's base
    "https://user:pass@example.com:8443/dir/file?x=1",
    "http://[2001:db8::1]:8080/v6/path",
    "https://127.0.0.1/",
    "http+unix://%2Ftmp%2Fapp.sock/api/v1?q",
    "https://www.example.com/a/b/",
    "http://u@h.example/p",
    "http://example.com:80/",
    "https://[::ffff:192.0.2.1]/x",
]
private let statuses = [301, 302, 303, 307, 308, 300, 304, 200]
private let methods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .DELETE, .PATCH, .OPTIONS, .TRACE]
private let maxima = [10, 16, 0, 1, 2, 3, 5, 50]
private let credentialNames = ["Authorization", "Cookie", "Proxy-Authorization"]
private let bodyNames = [
    "Content-Length", "Content-Type", "Transfer-Encoding", "Content-Encoding", "Content-Language", "Content-Location",
]
private let bodyLength: UInt64 = 5

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let baseChoice = Int(reader.u8())
    let r = reader.u8()
    let c = reader.u8()
    let fieldMask = reader.u8()
    let h = reader.u8()
    let urlText = text(reader.lengthPrefixed())
    let location = text(reader.rest())

    let parsed = checkParse(urlText)
    _ = checkParse(location)

    let base: HTTPURL
    if baseChoice % 10 == 9, let parsed {
        base = parsed
    } else {
        base = try! HTTPURL(bases[baseChoice % 10 % bases.count])
    }
    let resolved = checkResolution(base, location)

    var configuration = RedirectConfiguration(maximum: maxima[Int(c >> 2) & 7])
    configuration.follow = c & 1 == 0
    configuration.allowHTTPSToHTTP = c & 2 == 0
    let body = [RedirectBody.none, .replayable, .stream][Int(r >> 6) % 3]
    let original = Original(
        method: methods[Int(r >> 3) & 7], url: base, headers: fields(fieldMask, base: base, body: body), body: body)
    var history: [RedirectVisit] = []
    for i in 0..<Int(h & 3) {
        switch (h >> (2 + 2 * i)) & 3 {
        case 0: history.append(RedirectVisit(method: original.method, url: base))
        case 1: if let resolved { history.append(RedirectVisit(method: .GET, url: resolved)) }
        case 2: history.append(RedirectVisit(method: .GET, url: try! HTTPURL(bases[i])))
        default: history.append(RedirectVisit(method: .GET, url: try! base.resolving("/")))
        }
    }
    checkRedirect(
        configuration, original, status: statuses[Int(r & 7)], location: c >> 5 == 7 ? nil : location,
        history: history)
    return 0
}

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

private func bytes(_ b: HTTPBytes) -> [UInt8] { b.withUnsafeBytes { Array($0) } }

// MARK: - Parsing

/// Parses `string`; checks the error or the accepted URL.
private func checkParse(_ string: String) -> HTTPURL? {
    do throws(HTTPURLError) {
        let url = try HTTPURL(string)
        checkAccepted(url, "HTTPURL(\(escaped(string.utf8)))")
        return url
    } catch {
        checkError(error, "HTTPURL(\(escaped(string.utf8)))")
        return nil
    }
}

private func checkError(_ error: HTTPURLError, _ context: @autoclosure () -> String) {
    fuzzCheck(
        error.input.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F },
        "\(context())\nthe error's input is not safe to log: \(escaped(error.input.utf8))")
}

/// The user information in `absoluteString`, without the `@`, or nil.
private func userInfo(_ url: HTTPURL) -> String? {
    let s = Array(url.absoluteString.utf8)
    let start = Array(url.scheme.rawValue.utf8).count + 3
    let end = s[start...].firstIndex(of: UInt8(ascii: "/")) ?? s.count
    guard let at = s[start..<end].lastIndex(of: UInt8(ascii: "@")) else { return nil }
    return text(Array(s[start..<at]))
}

private func isTargetByte(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7F && b != UInt8(ascii: "#") }

/// Everything an accepted URL promises.
private func checkAccepted(_ url: HTTPURL, _ context: @autoclosure () -> String) {
    let serialised = url.absoluteString
    func what() -> String { "\(context())\nurl \(escaped(serialised.utf8))" }

    // Idempotent serialisation.
    do throws(HTTPURLError) {
        let again = try HTTPURL(serialised)
        fuzzCheck(again == url, "\(what())\nparses back to a different value: \(escaped(again.absoluteString.utf8))")
        fuzzCheck(again.absoluteString == serialised, "\(what())\nserialises differently the second time: \(escaped(again.absoluteString.utf8))")
    } catch {
        fuzzFail("\(what())\nits own absoluteString is refused: \(error)")
    }

    // The parts.
    let target = Array(url.requestTarget.utf8)
    fuzzCheck(target.first == UInt8(ascii: "/") && target.allSatisfy(isTargetByte), "\(what())\nrequest target \(escaped(target))")
    fuzzCheck(url.path.utf8.first == UInt8(ascii: "/") && !url.path.utf8.contains(UInt8(ascii: "?")), "\(what())\npath \(escaped(url.path.utf8))")
    let segments = url.path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    fuzzCheck(
        !segments.contains { $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) },
        "\(what())\npath \(escaped(url.path.utf8)) keeps a dot segment")
    fuzzCheck(url.requestTarget == url.path + (url.query.map { "?" + $0 } ?? ""), "\(what())\nrequestTarget is not path and query")
    if let port = url.explicitPort { fuzzCheck((1...65535).contains(port), "\(what())\nport \(port)") }
    fuzzCheck(url.port == (url.explicitPort ?? url.scheme.defaultPort), "\(what())\neffective port \(url.port)")
    fuzzCheck(!url.host.isEmpty, "\(what())\nempty host")
    fuzzCheck(url.origin == HTTPOrigin(scheme: url.scheme, host: url.host, port: url.port), "\(what())\norigin \(url.origin)")
    switch url.hostKind {
    case .name:
        fuzzCheck(
            url.host.utf8.allSatisfy { b in !(b >= 65 && b <= 90) && isTargetByte(b) && !"/?@:[]%".utf8.contains(b) },
            "\(what())\nhost name \(escaped(url.host.utf8))")
    case .ipv4, .ipv6:
        fuzzCheck(url.isIPLiteral && (url.hostKind == .ipv6) == url.host.contains(":"), "\(what())\nIP literal \(url.host)")
    case .unixSocket:
        fuzzCheck(url.scheme == .unix && url.unixSocketPath == url.host && url.explicitPort == nil, "\(what())\nsocket")
    }
    fuzzCheck((url.scheme == .unix) == (url.hostKind == .unixSocket), "\(what())\nscheme \(url.scheme) with host kind \(url.hostKind)")

    // User information: kept as written, redacted in the description (the password becomes
    // `***`; user information without a password, often a token, is replaced whole), removable.
    let info = userInfo(url)
    fuzzCheck((info != nil) == (url.user != nil), "\(what())\nuser \(url.user ?? "nil") but user information \(info ?? "nil")")
    if let info {
        let colon = info.firstIndex(of: ":")
        let masked = serialised.replacingFirst(info + "@", with: (colon.map { info[..<$0] + ":***" } ?? "***") + "@")
        fuzzCheck(url.description == masked, "\(what())\ndescription \(escaped(url.description.utf8)) does not redact the credentials")
        fuzzCheck((url.password != nil) == (colon != nil), "\(what())\npassword \(url.password ?? "nil")")
    } else {
        fuzzCheck(url.description == serialised && url.password == nil, "\(what())\ndescription \(escaped(url.description.utf8))")
    }
    let bare = url.removingUserInfo()
    fuzzCheck(
        bare.user == nil && bare.password == nil && userInfo(bare) == nil && bare.origin == url.origin
            && bare.requestTarget == url.requestTarget && bare.hostHeader == url.hostHeader,
        "\(what())\nremovingUserInfo gave \(escaped(bare.absoluteString.utf8))")
    do throws(HTTPURLError) {
        let same = try url.resolving("")
        fuzzCheck(same == url, "\(what())\nresolving \"\" changed it")
    } catch {
        fuzzFail("\(what())\nresolving \"\" threw \(error)")
    }

    checkEncodable(url, method: .GET, headers: HTTPFields(), framing: .none, what)
}

/// What the client builds from `url` before sending: the request head in origin form with Host
/// (HTTPRequestExecution.makeHead), the absolute form for a forward proxy (http only), and the CONNECT
/// request for a tunnel (https through a proxy). Each must encode, and parse back to the same
/// target, Host and method.
private func checkEncodable(
    _ url: HTTPURL, method: HTTPMethod, headers: HTTPFields, framing: RequestBodyFraming, _ what: () -> String
) {
    let host = headers[first: "Host"] ?? url.hostHeader
    roundTrip(
        HTTPRequestHead(method: method, target: .origin(url.requestTarget), headers: headers), host: url.hostHeader,
        framing: framing, expectedTarget: url.requestTarget, expectedHost: host, what)
    guard url.scheme != .unix else { return }
    if url.scheme == .http {
        let absolute = url.absoluteFormTarget
        roundTrip(
            HTTPRequestHead(method: method, target: .absolute(absolute), headers: headers), host: url.hostHeader,
            framing: framing, expectedTarget: absolute, expectedHost: host, what)
        do throws(HTTPURLError) {
            let back = try HTTPURL(absolute)
            fuzzCheck(
                back.origin == url.origin && back.requestTarget == url.requestTarget && back.user == nil,
                "\(what())\nabsolute form \(escaped(absolute.utf8)) names \(escaped(back.absoluteString.utf8))")
        } catch {
            fuzzFail("\(what())\nabsolute form \(escaped(absolute.utf8)) is refused: \(error)")
        }
    }
    // RFC 9112 §3.2.3: authority-form is `uri-host ":" port`, an IPv6 host in brackets. The
    // encoder writes `.authority(host:port:)` as `host:port`, so the host must be the bracketed one.
    let authority = "\(url.bracketedHost):\(url.port)"
    roundTrip(
        HTTPRequestHead(method: .CONNECT, target: .authority(host: url.bracketedHost, port: url.port)), host: authority,
        framing: .none, expectedTarget: authority, expectedHost: authority, what)
    do throws(HTTPURLError) {
        let back = try HTTPURL("\(url.scheme.rawValue)://\(authority)/")
        fuzzCheck(back.origin == url.origin, "\(what())\nCONNECT target \(authority) names \(back.origin)")
    } catch {
        fuzzFail("\(what())\nCONNECT target \(authority) is not an authority: \(error)")
    }
}

private func roundTrip(
    _ head: HTTPRequestHead, host: String, framing: RequestBodyFraming, expectedTarget: String, expectedHost: String,
    _ what: () -> String
) {
    var buffer = ByteBuffer()
    do throws(HTTPEncodingError) {
        try HTTPRequestEncoder.encodeHead(head, host: host, framing: framing, into: &buffer)
    } catch {
        fuzzFail("\(what())\nthe encoder refuses \(head) with host \(escaped(host.utf8)): \(error)")
    }
    let wire = buffer.readableBytesArray()
    var parser = HTTPRequestParser()
    do throws(HTTPParserError) {
        guard case .head(let parsed) = try parser.next(&buffer) else {
            fuzzFail("\(what())\nno request head in \(escaped(wire))")
        }
        fuzzCheck(
            parsed.method == head.method && bytes(parsed.target) == Array(expectedTarget.utf8)
                && parsed.headers.first.map({ $0.name.equalsCaseInsensitive("host") && bytes($0.value) == Array(expectedHost.utf8) }) == true,
            "\(what())\nencoded \(escaped(wire))\nexpected target \(escaped(expectedTarget.utf8)) and Host \(escaped(expectedHost.utf8))")
    } catch {
        fuzzFail("\(what())\nthe parser refuses the encoded \(escaped(wire)): \(error)")
    }
}

// MARK: - Resolution

private func checkResolution(_ base: HTTPURL, _ reference: String) -> HTTPURL? {
    func what() -> String { "base \(escaped(base.absoluteString.utf8)) resolving \(escaped(reference.utf8))" }
    let resolved: HTTPURL
    do throws(HTTPURLError) {
        resolved = try base.resolving(reference)
    } catch {
        checkError(error, what())
        let r = Array(reference.utf8)
        fuzzCheck(!r.isEmpty && r.first != UInt8(ascii: "#") || error.reason == .controlCharacter || error.reason == .space
            || error.reason == .nonASCII || error.reason == .invalidPercentEncoding,
            "\(what())\nan empty or fragment-only reference was refused: \(error)")
        return nil
    }
    checkAccepted(resolved, what())
    let r = Array(reference.utf8)
    if r.isEmpty || r.first == UInt8(ascii: "#") {
        fuzzCheck(resolved == base, "\(what())\ngave \(escaped(resolved.absoluteString.utf8)), not the base")
    }
    if !hasScheme(r) && !r.starts(with: "//".utf8) {
        fuzzCheck(
            resolved.origin == base.origin && userInfo(resolved) == userInfo(base),
            "\(what())\na reference without authority gave \(escaped(resolved.absoluteString.utf8))")
    }
    do throws(HTTPURLError) {
        let again = try base.resolving(resolved.absoluteString)
        fuzzCheck(again == resolved, "\(what())\nresolving the result again gave \(escaped(again.absoluteString.utf8))")
    } catch {
        fuzzFail("\(what())\nresolving the result \(escaped(resolved.absoluteString.utf8)) again threw \(error)")
    }
    return resolved
}

/// RFC 3986 §4.2 / Appendix B: a reference has a scheme when a ":" comes before any "/", "?", "#".
private func hasScheme(_ r: [UInt8]) -> Bool {
    guard let i = r.firstIndex(where: { ":/?#".utf8.contains($0) }) else { return false }
    return r[i] == UInt8(ascii: ":") && i > 0
}

// MARK: - Redirects

private struct Original {
    var method: HTTPMethod
    var url: HTTPURL
    var headers: HTTPFields
    var body: RedirectBody
    var framing: RequestBodyFraming { body == .none ? .none : .contentLength(bodyLength) }
}

private func fields(_ mask: UInt8, base: HTTPURL, body: RedirectBody) -> HTTPFields {
    var fields = HTTPFields()
    let candidates: [(String, String)] = [
        ("Authorization", "Basic dXNlcjpwYXNz"), ("Cookie", "session=secret"), ("Proxy-Authorization", "Basic cHJveHk6cHc="),
        ("Host", base.hostHeader), ("Host", "virtual.example"), ("Content-Type", "text/plain"),
        ("Content-Length", body == .none ? "0" : "\(bodyLength)"), ("X-Keep", "kept"),
    ]
    for (i, (name, value)) in candidates.enumerated() where mask & (1 << i) != 0 {
        if name == "Host", fields.contains("Host") { continue }
        try! fields.append(name: name, value: value)
    }
    return fields
}

private func checkRedirect(
    _ configuration: RedirectConfiguration, _ original: Original, status: Int, location: String?, history: [RedirectVisit]
) {
    func what() -> String {
        """
        redirect \(status) for \(original.method) \(escaped(original.url.absoluteString.utf8)) body \(original.body) \
        fields \(Array(original.headers)) follow=\(configuration.follow) max=\(configuration.maximum) \
        allowHTTPSToHTTP=\(configuration.allowHTTPSToHTTP) history \(history.map { "\($0.method) \($0.url)" }) \
        Location \(location.map { escaped($0.utf8) } ?? "nil")
        """
    }
    let isRedirect = [301, 302, 303, 307, 308].contains(status)
    let blank = location.map { $0.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 } } ?? true
    let decision: RedirectDecision
    do throws(RedirectError) {
        decision = try configuration.decide(
            method: original.method, url: original.url, headers: original.headers, body: original.body, status: status,
            location: location, history: history)
    } catch {
        fuzzCheck(isRedirect && configuration.follow && !blank, "\(what())\nthrew \(error) for what is not a redirect to follow")
        // Credentials are never printed (RFC 3986 §7.5): neither the request URL's nor those of a
        // Location that is itself a URL. (Text of the Location elsewhere than in its user
        // information may be echoed, so a secret that also appears there is not looked for.)
        // The same text may stand in the path or query, which are printed: the error may show
        // it as often as the redacted request URL does, never more.
        let locationURL = location.flatMap { try? HTTPURL($0) }
        let locationText = location ?? ""
        for (secret, occurrencesAllowed) in [(userInfo(original.url), 0), (locationURL.flatMap(userInfo), 1)] {
            guard let secret, let colon = secret.firstIndex(of: ":"), secret.index(after: colon) != secret.endIndex,
                locationText.occurrences(of: secret + "@") == occurrencesAllowed
            else { continue }
            let printedElsewhere = original.url.description.occurrences(of: secret + "@")
            fuzzCheck("\(error)".occurrences(of: secret + "@") <= printedElsewhere, "\(what())\nthe error prints credentials: \(error)")
        }
        switch error {
        case .tooManyRedirects(let n):
            fuzzCheck(history.count >= configuration.maximum && n == history.count + 1, "\(what())\n\(error)")
        case .invalidLocation(let urlError):
            checkError(urlError, what())
        case .unsupportedScheme(let text):
            fuzzCheck(text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(what())\nunsafe to log: \(escaped(text.utf8))")
        case .httpsToHTTPDowngrade(let target):
            fuzzCheck(!configuration.allowHTTPSToHTTP && original.url.scheme == .https && target.scheme == .http, "\(what())\n\(error)")
        case .loop:
            break
        }
        return
    }
    switch decision {
    case .doNotFollow(let reason):
        switch reason {
        case .notARedirect: fuzzCheck(!isRedirect, "\(what())\nnotARedirect")
        case .disabled: fuzzCheck(isRedirect && !configuration.follow, "\(what())\ndisabled")
        case .noLocation: fuzzCheck(isRedirect && configuration.follow && blank, "\(what())\nnoLocation")
        case .bodyNotReplayable: fuzzCheck(isRedirect && original.body == .stream, "\(what())\nbodyNotReplayable")
        }
    case .follow(let next):
        checkFollowed(next, configuration, original, status: status, location: location ?? "", history: history, what)
    }
}

private func checkFollowed(
    _ next: RedirectedRequest, _ configuration: RedirectConfiguration, _ original: Original, status: Int,
    location: String, history: [RedirectVisit], _ context: () -> String
) {
    let target = next.url
    func what() -> String { "\(context())\nfollowed: \(next.method) \(escaped(target.absoluteString.utf8)) fields \(Array(next.headers)) keepsBody=\(next.keepsBody)" }
    fuzzCheck([301, 302, 303, 307, 308].contains(status) && configuration.follow, "\(what())\nfollowed a \(status)")
    fuzzCheck(history.count < configuration.maximum, "\(what())\nfollowed past the maximum")
    checkAccepted(target, what())

    // The URL is the Location resolved against the request's URL (decide may percent-encode
    // spaces and non-ASCII bytes first, and trims SP/HTAB; a Location with neither is used as is).
    // On the same origin, a Location without user information inherits the request's.
    let sameOrigin = target.origin == original.url.origin
    if !location.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 >= 0x80 }) {
        do throws(HTTPURLError) {
            let expected = try original.url.resolving(location)
            let expectedUserInfo = userInfo(expected) ?? (sameOrigin ? userInfo(original.url) : nil)
            fuzzCheck(
                expected.removingUserInfo() == target.removingUserInfo() && userInfo(target) == expectedUserInfo,
                "\(what())\nresolving the Location gives \(escaped(expected.absoluteString.utf8))")
        } catch {
            fuzzFail("\(what())\nfollowed a Location that does not resolve: \(error)")
        }
    }

    // Method and body (RFC 9110 §15.4).
    let expectedMethod: HTTPMethod
    switch status {
    case 301, 302: expectedMethod = original.method == .POST ? .GET : original.method
    case 303: expectedMethod = original.method == .HEAD ? .HEAD : .GET
    default: expectedMethod = original.method
    }
    let dropsBody = status == 303 || expectedMethod != original.method
    fuzzCheck(next.method == expectedMethod, "\(what())\nmethod \(next.method), expected \(expectedMethod)")
    fuzzCheck(next.keepsBody == (!dropsBody && original.body != .none), "\(what())\nkeepsBody")
    fuzzCheck(!(next.keepsBody && original.body == .stream), "\(what())\nresends a stream body")

    // Scheme rules.
    fuzzCheck(
        configuration.allowHTTPSToHTTP || !(original.url.scheme == .https && target.scheme == .http),
        "\(what())\nan https → http downgrade was followed")
    fuzzCheck(
        target.scheme != .unix || (original.url.scheme == .unix && target.origin == original.url.origin),
        "\(what())\nredirected into a Unix socket")

    // Never a request already made in this chain.
    let visits = history + [RedirectVisit(method: original.method, url: original.url)]
    fuzzCheck(
        !visits.contains { $0.method == next.method && $0.url.origin == target.origin && $0.url.requestTarget == target.requestTarget },
        "\(what())\nrepeats a request of the chain")

    // Fields: credentials never cross origins; Host follows the URL; body fields go with the body.
    for name in credentialNames {
        if sameOrigin {
            fuzzCheck(next.headers.values(for: name) == original.headers.values(for: name), "\(what())\n\(name) changed")
        } else {
            fuzzCheck(!next.headers.contains(name), "\(what())\n\(name) is sent to a new origin")
        }
    }
    if !sameOrigin, userInfo(target) != nil {
        fuzzCheck(location.contains("@"), "\(what())\nuser information reaches a new origin without being in the Location")
    }
    if original.headers.contains("Host") {
        let expected = sameOrigin ? original.headers.values(for: "Host") : [target.hostHeader]
        fuzzCheck(next.headers.values(for: "Host") == expected, "\(what())\nHost \(next.headers.values(for: "Host"))")
    } else {
        fuzzCheck(!next.headers.contains("Host"), "\(what())\na Host field appeared")
    }
    for name in bodyNames {
        fuzzCheck(
            next.headers.values(for: name) == (dropsBody ? [] : original.headers.values(for: name)),
            "\(what())\n\(name) \(next.headers.values(for: name))")
    }
    for field in original.headers where !(credentialNames + bodyNames + ["Host"]).contains(where: { field.name.caseInsensitiveEquals($0) }) {
        fuzzCheck(next.headers.values(for: field.name) == original.headers.values(for: field.name), "\(what())\n\(field.name) changed")
    }
    fuzzCheck(next.headers.count <= original.headers.count, "\(what())\nfields were added")

    // Encodable whenever the original request was.
    var probe = ByteBuffer()
    let originalHead = HTTPRequestHead(method: original.method, target: .origin(original.url.requestTarget), headers: original.headers)
    if (try? HTTPRequestEncoder.encodeHead(originalHead, host: original.url.hostHeader, framing: original.framing, into: &probe)) != nil {
        checkEncodable(target, method: next.method, headers: next.headers, framing: next.keepsBody ? original.framing : .none, what)
    }
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
        return utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { lower($0) == lower($1) }
    }

    fileprivate func occurrences(of needle: String) -> Int {
        let s = Array(utf8), n = Array(needle.utf8)
        guard !n.isEmpty, s.count >= n.count else { return 0 }
        return (0...(s.count - n.count)).filter { s[$0..<($0 + n.count)].elementsEqual(n) }.count
    }

    fileprivate func replacingFirst(_ old: String, with new: String) -> String {
        let s = Array(utf8), o = Array(old.utf8)
        guard !o.isEmpty, s.count >= o.count else { return self }
        for i in 0...(s.count - o.count) where s[i..<(i + o.count)].elementsEqual(o) {
            return String(decoding: s[..<i] + Array(new.utf8) + s[(i + o.count)...], as: UTF8.self)
        }
        return self
    }
}
