import FoundationEssentials

/// Turns a request and parameters into the request to send (AFNetworking's
/// `AFURLRequestSerialization`). Parameters are untyped as in AFNetworking: a
/// `[String: any Sendable]` of strings, numbers, booleans, arrays, sets and nested
/// dictionaries, or whatever a concrete serializer documents (an `Encodable`, a ``JSONValue``).
public protocol RequestSerializer: Sendable {
    func serialize(_ request: Request, parameters: (any Sendable)?) throws(CourierError) -> Request
}

/// AFNetworking's parameter dictionary.
public typealias Parameters = [String: any Sendable]
