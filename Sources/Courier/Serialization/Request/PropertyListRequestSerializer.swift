import FoundationEssentials

/// AFNetworking's `AFPropertyListRequestSerializer`: parameters become a property-list body with
/// `Content-Type: application/x-plist`, except for the URI methods (`GET`, `HEAD`, `DELETE`),
/// whose parameters still go into the URL query.
///
/// Parameters may be untyped values (dictionaries with string keys, arrays, sets, strings,
/// numbers, booleans, `Data`, `Date`, ``JSONValue``) or any other `Encodable` value. A property
/// list has no null, so nil values and ``JSONValue/null`` are refused, as
/// `NSPropertyListSerialization` refuses `NSNull`.
public struct PropertyListRequestSerializer: HTTPRequestSerializing {
    public var http: HTTPRequestSerializer
    /// The encoding: `.xml` by default (AFNetworking's `NSPropertyListXMLFormat_v1_0`) or `.binary`.
    public var format: PropertyListDecoder.PropertyListFormat

    public init(http: HTTPRequestSerializer = HTTPRequestSerializer(), format: PropertyListDecoder.PropertyListFormat = .xml) {
        self.http = http
        self.format = format
    }

    /// With nil parameters the request gets the default headers and no body (AFNetworking).
    ///
    /// - Throws: ``CourierError`` `.invalidParameters` when the parameters have no property-list
    ///   form (the underlying `EncodingError` has the coding path).
    public func serialize(_ request: Request, parameters: (any Sendable)?) throws(CourierError) -> Request {
        if http.encodesParametersInURI(request.method) {
            return try http.serialize(request, parameters: parameters)
        }
        var result = http.applyingDefaultHeaders(to: request)
        guard let parameters else { return result }
        let body = try encode(parameters)
        if !result.headers.contains("Content-Type") {
            try result.setValue("application/x-plist", forHTTPHeaderField: "Content-Type")
        }
        result.body = .data(body)
        return result
    }

    /// The property list for `parameters`.
    public func encode(_ parameters: any Sendable) throws(CourierError) -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        let value: any Encodable
        if case .unsupported = UntypedParameter(parameters), let encodable = parameters as? any Encodable {
            value = encodable
        } else {
            value = UntypedEncodable(parameters)
        }
        do {
            return try encoder.encode(value)
        } catch {
            throw CourierError(.invalidParameters, underlying: error, detail: "the parameters are not a valid property list")
        }
    }
}
