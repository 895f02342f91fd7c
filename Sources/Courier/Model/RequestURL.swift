import CourierClient
import FoundationEssentials

/// The URL of a ``Request`` or ``Response``: parsed once, into the transport's ``HTTPURL``, which
/// is what every layer below uses — the session's checks, the same-origin rule, the cache key,
/// the transport and its redirect driver. It is never turned into a string and parsed again.
///
/// Foundation's `URL` stays the API edge's convenience (``Request/url``, ``Response/url``):
/// - a URL the caller gave is kept as given, so reading it back returns it unchanged, and is
///   parsed once, when it is given;
/// - a URL Courier parsed itself (the serializers and ``HTTPSessionManager`` resolve paths into
///   ``HTTPURL`` directly; redirect hops arrive as ``HTTPURL``) gets its Foundation form only
///   when someone reads it.
///
/// A given URL that does not parse is kept with the reason, and the task that runs it fails in
/// its `serialize` phase with ``CourierError/Code/invalidURL`` (requests are not validated
/// until they run, as `NSURLRequest`'s are not).
struct RequestURL: Sendable {
    /// The one parsed form, or why the given URL has none.
    let parsed: Result<HTTPURL, HTTPURLError>
    /// The Foundation URL the caller gave, if the URL came from the caller.
    private let given: URL?
    /// The fragment of the URL the caller gave (percent-encoded): never sent (RFC 9110 §4.2.5),
    /// and not part of ``HTTPURL``, but kept in the Foundation form, as `NSURLRequest` keeps it.
    let fragment: String?

    /// A URL from the caller, parsed now.
    init(_ url: URL) {
        given = url
        fragment = url.fragment(percentEncoded: true)
        parsed = Result { () throws(HTTPURLError) in try HTTPURL(url.absoluteString) }
    }

    /// A URL Courier (or the caller) already parsed, with the fragment to keep beside it.
    init(_ url: HTTPURL, fragment: String? = nil) {
        given = nil
        self.fragment = fragment
        parsed = .success(url)
    }

    /// The parsed URL, or nil when the given URL has no ``HTTPURL`` form.
    var httpURL: HTTPURL? { try? parsed.get() }

    /// The URL as text: the parsed form's (normalised), else the given URL's.
    var string: String { httpURL?.absoluteString ?? foundation.absoluteString }

    /// The Foundation form: the given URL, else one made from the parsed URL now. Foundation
    /// percent-encodes the few visible characters ``HTTPURL`` keeps as written and it does not
    /// (`|`, `{`, `^`, …), so the made URL always exists; the `about:blank` fallback is never
    /// reached for a parsed URL.
    var foundation: URL {
        if let given { return given }
        guard case .success(let url) = parsed, let made = URL(string: url.absoluteString + (fragment.map { "#" + $0 } ?? "")) else {
            return URL(string: "about:blank")!  // a constant valid URL
        }
        return made
    }
}

extension RequestURL: Hashable {
    /// Equal when the Foundation forms are, as `Request`/`Response` values compared before.
    static func == (lhs: RequestURL, rhs: RequestURL) -> Bool {
        if let l = lhs.httpURL, let r = rhs.httpURL, lhs.given == nil, rhs.given == nil { return l == r && lhs.fragment == rhs.fragment }
        return lhs.foundation == rhs.foundation
    }

    func hash(into hasher: inout Hasher) { hasher.combine(foundation) }
}
