import FoundationEssentials

/// Encodes AFNetworking-style untyped parameters through any `Encoder` (used for property
/// lists, which can hold `Data` and `Date` natively). Dictionaries need string keys; sets are
/// written as arrays sorted by their text; nil has no encoding and fails with
/// `EncodingError.invalidValue` (a property list has no null).
struct UntypedEncodable: Encodable {
    let value: Any?

    init(_ value: Any?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        let path = encoder.codingPath
        func invalid(_ reason: String) -> EncodingError {
            EncodingError.invalidValue(value as Any, EncodingError.Context(codingPath: path, debugDescription: reason))
        }
        switch UntypedParameter(value) {
        case .null, .json(.null):
            throw invalid("nil has no property-list form")
        case .bool(let v), .json(.bool(let v)):
            var container = encoder.singleValueContainer()
            try container.encode(v)
        case .signed(let v), .json(.integer(let v)):
            var container = encoder.singleValueContainer()
            try container.encode(v)
        case .unsigned(let v):
            var container = encoder.singleValueContainer()
            try container.encode(v)
        case .double(let v), .json(.double(let v)):
            var container = encoder.singleValueContainer()
            try container.encode(v)
        case .string(let v), .json(.string(let v)):
            var container = encoder.singleValueContainer()
            try container.encode(v)
        case .data(let v):
            var container = encoder.singleValueContainer()
            try container.encode(v)
        case .date(let v):
            var container = encoder.singleValueContainer()
            try container.encode(v)
        case .json(.array(let elements)):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(UntypedEncodable(element)) }
        case .json(.object(let members)):
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, member) in members { try container.encode(UntypedEncodable(member), forKey: AnyKey(key)) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(UntypedEncodable(element)) }
        case .set(let elements):
            let sorted = elements.map { (text: String(describing: $0), value: $0) }.sorted { $0.text < $1.text }
            var container = encoder.unkeyedContainer()
            for element in sorted { try container.encode(UntypedEncodable(element.value)) }
        case .dictionary(let members, let stringKeys):
            guard stringKeys else { throw invalid("property-list dictionary keys must be strings") }
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, member) in members { try container.encode(UntypedEncodable(member), forKey: AnyKey(key)) }
        case .unsupported(let typeName):
            // A typed value inside untyped containers (`[Item]` with `Item: Encodable`).
            guard let encodable = value as? any Encodable else { throw invalid("\(typeName) has no property-list form") }
            try encodable.encode(to: encoder)
        }
    }
}

/// A coding key for any string.
struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
