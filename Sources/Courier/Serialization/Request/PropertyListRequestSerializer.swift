import FoundationEssentials

/// AFNetworking's `AFPropertyListRequestSerializer`: parameters become a property-list body with
/// `Content-Type: application/x-plist`, except for the URI methods (`GET`, `HEAD`, `DELETE`),
/// whose parameters still go into the URL query.
///
/// Parameters may be untyped values (dictionaries with string keys, arrays, sets, strings,
/// numbers, booleans, `Data`, `Date`, ``JSONValue``) or any other `Encodable` value. A property
/// list has no null, so nil values and ``JSONValue/null`` are refused, as
/// `NSPropertyListSerialization` refuses `NSNull`.
public struct PropertyListRequestSerializer: BodyEncodingRequestSerializer {
    public var http: HTTPRequestSerializer
    /// The encoding: `.xml` by default (AFNetworking's `NSPropertyListXMLFormat_v1_0`) or `.binary`.
    public var format: PropertyListDecoder.PropertyListFormat

    public init(http: HTTPRequestSerializer = HTTPRequestSerializer(), format: PropertyListDecoder.PropertyListFormat = .xml) {
        self.http = http
        self.format = format
    }

    /// Set on requests that have no Content-Type of their own.
    public var contentType: String { "application/x-plist" }

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
