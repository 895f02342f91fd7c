import FoundationEssentials

/// AFNetworking's `AFJSONRequestSerializer`: parameters become a JSON body (RFC 8259) with
/// `Content-Type: application/json`, except for the methods in
/// ``HTTPRequestSerializer/httpMethodsEncodingParametersInURI`` (`GET`, `HEAD`, `DELETE`),
/// whose parameters still go into the URL query.
///
/// Parameters may be a ``JSONValue``, AFNetworking-style untyped values (dictionaries, arrays,
/// sets, strings, numbers, booleans, nil: see ``JSONValue/init(parameters:)``), or any other
/// `Encodable` value, which `JSONEncoder` writes.
public struct JSONRequestSerializer: BodyEncodingRequestSerializer {
    public var http: HTTPRequestSerializer
    /// `JSONEncoder` output options (AFNetworking's `writingOptions`); none by default, so keys
    /// come in dictionary order and `/` is escaped as `\/`, as `NSJSONSerialization` writes.
    public var outputFormatting: JSONEncoder.OutputFormatting

    public init(http: HTTPRequestSerializer = HTTPRequestSerializer(), outputFormatting: JSONEncoder.OutputFormatting = []) {
        self.http = http
        self.outputFormatting = outputFormatting
    }

    /// Set on requests that have no Content-Type of their own.
    public var contentType: String { "application/json" }

    /// The JSON text for `parameters`.
    public func encode(_ parameters: any Sendable) throws(CourierError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = outputFormatting
        let value: any Encodable
        switch UntypedParameter(parameters) {
        case .unsupported, .data, .date:
            guard let encodable = parameters as? any Encodable else {
                throw CourierError(.invalidParameters, detail: "parameters of type \(type(of: parameters)) are neither JSON values nor Encodable")
            }
            value = encodable
        default:
            do {
                value = try JSONValue(parameters: parameters)
            } catch {
                // A container of typed values (`[Item]`, `[String: Item]` with `Item: Encodable`):
                // not untyped parameters, but JSONEncoder writes it.
                guard let encodable = parameters as? any Encodable else { throw error }
                value = encodable
            }
        }
        do {
            return try encoder.encode(value)
        } catch {
            throw CourierError(.invalidParameters, underlying: error, detail: "the parameters are not valid JSON")
        }
    }
}
