import CourierClient
import FoundationEssentials

/// A request serializer built on an ``HTTPRequestSerializer`` (AFNetworking's subclasses of
/// `AFHTTPRequestSerializer`): its headers, timeout and URI methods configure the others too.
public protocol HTTPRequestSerializing: RequestSerializer {
    /// The HTTP serializer whose settings apply: default headers, timeout, URI methods, query rules.
    var http: HTTPRequestSerializer { get set }
}

extension HTTPRequestSerializing {
    /// AFNetworking's `requestWithMethod:URLString:parameters:error:`: a request for `urlString`
    /// with this serializer's timeout, then ``RequestSerializer/serialize(_:parameters:)``.
    ///
    /// - Throws: ``CourierError`` `.invalidURL` unless `urlString` is an absolute `http` or
    ///   `https` URL with a host (RFC 9110 §4.2); otherwise whatever serializing throws.
    ///
    /// Characters a URL may not hold are percent-encoded first, as Foundation's `URL(string:)`
    /// does; the string is then parsed once, into ``HTTPURL``.
    public func request(method: HTTPMethod, urlString: String, parameters: (any Sendable)?) throws(CourierError) -> Request {
        let url: HTTPURL
        do { url = try HTTPURL(URLStringEncoding.encodingInvalidCharacters(urlString)) } catch {
            throw CourierError(.invalidURL, underlying: error, detail: "not an absolute http or https URL with a host: \(UserInfoRedaction.redactingText(urlString)) (\(error.reason))")
        }
        return try request(method: method, url: url, parameters: parameters)
    }

    /// A request for a URL already parsed, with this serializer's timeout, then
    /// ``RequestSerializer/serialize(_:parameters:)``.
    ///
    /// - Throws: ``CourierError`` `.invalidURL` unless `url` is `http` or `https` (RFC 9110 §4.2);
    ///   otherwise whatever serializing throws.
    public func request(method: HTTPMethod, url: HTTPURL, parameters: (any Sendable)?) throws(CourierError) -> Request {
        guard url.scheme == .http || url.scheme == .https else {
            throw CourierError(.invalidURL, detail: "not an absolute http or https URL with a host: \(url)")
        }
        return try serialize(Request(url: url, method: method, timeoutInterval: http.timeoutInterval), parameters: parameters)
    }

    /// The default headers (``HTTPRequestSerializer/httpRequestHeaders``).
    public var httpRequestHeaders: HTTPFields { http.httpRequestHeaders }

    /// Sets or removes a default header (``HTTPRequestSerializer/setValue(_:forHTTPHeaderField:)``).
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) throws(CourierError) {
        try http.setValue(value, forHTTPHeaderField: name)
    }

    /// The request timeout (``HTTPRequestSerializer/timeoutInterval``).
    public var timeoutInterval: Double {
        get { http.timeoutInterval }
        set { http.timeoutInterval = newValue }
    }
}

/// A serializer that puts parameters into the body in one format (``JSONRequestSerializer``,
/// ``PropertyListRequestSerializer``), except for the methods in
/// ``HTTPRequestSerializer/httpMethodsEncodingParametersInURI``, whose parameters still go into
/// the URL query.
public protocol BodyEncodingRequestSerializer: HTTPRequestSerializing {
    /// The Content-Type set when the request has none.
    var contentType: String { get }
    /// The body for `parameters`. Throws ``CourierError`` `.invalidParameters` when they have no
    /// form in this format (the underlying error says why).
    func encode(_ parameters: any Sendable) throws(CourierError) -> Data
}

extension BodyEncodingRequestSerializer {
    /// With nil parameters the request gets the default headers and no body (AFNetworking).
    public func serialize(_ request: Request, parameters: (any Sendable)?) throws(CourierError) -> Request {
        if http.encodesParametersInURI(request.method) {
            return try http.serialize(request, parameters: parameters)
        }
        var result = http.applyingDefaultHeaders(to: request)
        guard let parameters else { return result }
        let body = try encode(parameters)
        if !result.headers.contains("Content-Type") {
            try result.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        result.body = .data(body)
        return result
    }
}
