import CourierClient
import FoundationEssentials

/// AFNetworking's `AFHTTPRequestSerializer`: default headers, a timeout, and parameters encoded
/// as a query string, in the URL for `GET`/`HEAD`/`DELETE` and as an
/// `application/x-www-form-urlencoded` body otherwise.
///
/// A value type: configure a copy, hand it to a session. Only UTF-8 is written (AFNetworking's
/// `stringEncoding` defaults to UTF-8 and is rarely changed).
public struct HTTPRequestSerializer: RequestSerializer, HTTPRequestSerializing {
    /// Methods whose parameters go into the URL query (compared in uppercase). AFNetworking's
    /// default: `GET`, `HEAD`, `DELETE`.
    public var httpMethodsEncodingParametersInURI: Set<String> = ["GET", "HEAD", "DELETE"]

    /// Seconds without a byte from the server before a request built by
    /// ``request(method:urlString:parameters:)`` fails (AFNetworking's `timeoutInterval`, 60).
    public var timeoutInterval: Double = 60

    /// Replaces the default query-string rules (``QueryString``) when set
    /// (AFNetworking's `setQueryStringSerializationWithBlock:`). Gets the request and the
    /// non-nil parameters; its result is used as is, unescaped. An error it throws fails the
    /// serialization: a ``CourierError`` as thrown, anything else as `.invalidParameters`.
    public var queryStringSerialization: (@Sendable (Request, any Sendable) throws -> String)?

    /// The headers added to every request that does not set the same field itself. Initially
    /// `Accept-Language` (``AcceptLanguage/current``) and `User-Agent`
    /// (``CourierLibrary/userAgent``).
    public private(set) var httpRequestHeaders: HTTPFields

    public var http: HTTPRequestSerializer {
        get { self }
        set { self = newValue }
    }

    public init() {
        var headers = HTTPFields()
        // Both values are built from validated characters; a failure would be a bug here.
        try? headers.set(name: "Accept-Language", value: AcceptLanguage.current)
        try? headers.set(name: "User-Agent", value: CourierLibrary.userAgent)
        httpRequestHeaders = headers
    }

    /// Sets (replacing) or, with nil, removes a default header.
    ///
    /// - Throws: ``CourierError`` `.invalidHeader` for a name that is not a token or a value with
    ///   CR, LF, NUL or other controls (RFC 9110 §5.1, §5.5): no header can inject a line.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) throws(CourierError) {
        guard let value else { httpRequestHeaders.remove(name: name); return }
        do { try httpRequestHeaders.set(name: name, value: value) } catch {
            throw CourierError(.invalidHeader, underlying: error, detail: "header \(name)")
        }
    }

    /// The default value of a header field (case-insensitive name).
    public func value(forHTTPHeaderField name: String) -> String? { httpRequestHeaders[first: name] }

    /// Sets `Authorization: Basic …` (RFC 7617 §2): `username:password` encoded as UTF-8
    /// (the `charset="UTF-8"` of §2.1), then base64 (RFC 4648 §4).
    ///
    /// - Throws: ``CourierError`` `.invalidHeader` when the username contains `:`, which
    ///   RFC 7617 §2 forbids (the server could not tell where the password starts), or either
    ///   contains a control character.
    public mutating func setAuthorizationHeader(username: String, password: String) throws(CourierError) {
        let field = try HTTPField.basicAuthorization(username: username, password: password)
        httpRequestHeaders.remove(name: "Authorization")
        httpRequestHeaders.append(field)
    }

    /// Removes the default `Authorization` header.
    public mutating func clearAuthorizationHeader() {
        httpRequestHeaders.remove(name: "Authorization")
    }

    /// Adds the default headers the request does not set itself (AFNetworking never overrides
    /// a request's own field).
    public func applyingDefaultHeaders(to request: Request) -> Request {
        var result = request
        for field in httpRequestHeaders where !request.headers.contains(field.name) {
            result.headers.append(field)
        }
        return result
    }

    /// Whether `method`'s parameters go into the URL query.
    public func encodesParametersInURI(_ method: HTTPMethod) -> Bool {
        httpMethodsEncodingParametersInURI.contains { $0.uppercased() == method.rawValue.uppercased() }
    }

    /// The query string for `parameters`: the custom closure's result, or ``QueryString``'s.
    public func queryString(for request: Request, parameters: any Sendable) throws(CourierError) -> String {
        guard let custom = queryStringSerialization else { return try QueryString.encode(parameters) }
        do { return try custom(request, parameters) } catch let error as CourierError { throw error } catch {
            throw CourierError(.invalidParameters, underlying: error, detail: "the query-string closure failed")
        }
    }

    /// AFNetworking's `requestBySerializingRequest:withParameters:error:`.
    ///
    /// Default headers are added where the request lacks them. For a method in
    /// ``httpMethodsEncodingParametersInURI`` a non-empty query string is appended to the URL's
    /// query (after `&` when the URL has a query, else after `?`; before any fragment). For any
    /// other method the body becomes the query string, even an empty one (AFNetworking #2864:
    /// an empty form is a valid payload), and `Content-Type: application/x-www-form-urlencoded`
    /// is set unless the request has a Content-Type.
    public func serialize(_ request: Request, parameters: (any Sendable)?) throws(CourierError) -> Request {
        var result = applyingDefaultHeaders(to: request)
        let query = try parameters.map { (parameters) throws(CourierError) in try queryString(for: request, parameters: parameters) }
        if encodesParametersInURI(request.method) {
            if let query, !query.isEmpty {
                result.location = RequestURL(try Self.url(result, appendingQuery: query), fragment: result.location.fragment)
            }
        } else {
            if !result.headers.contains("Content-Type") {
                try result.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            result.body = .data(Data((query ?? "").utf8))
        }
        return result
    }

    /// The request's URL with `query` appended to its query component (the fragment, never
    /// sent, stays beside it: ``RequestURL/fragment``).
    static func url(_ request: Request, appendingQuery query: String) throws(CourierError) -> HTTPURL {
        do throws(HTTPURLError) {
            switch request.location.parsed {
            // A custom query closure's characters a URL may not hold are percent-encoded, as
            // Foundation's `URL(string:)` did here before.
            case .success(let url): return try url.appendingQuery(URLStringEncoding.encodingInvalidCharacters(query))
            case .failure(let error): throw error
            }
        } catch {
            throw CourierError(.invalidParameters, underlying: error, failingURL: request.url, detail: "the query string does not form a valid URL (\(error.reason))")
        }
    }
}
