import FoundationEssentials

/// An untyped JSON value (RFC 8259): what AFNetworking's `NSJSONSerialization` objects are,
/// as one Sendable, Hashable enum.
///
/// Numbers without a fraction or exponent that fit in `Int64` are kept as ``integer(_:)`` so
/// that identifiers such as `9007199254740993` round-trip exactly (RFC 8259 §6 warns that
/// `Double` loses them); every other number is a ``double(_:)``.
///
/// `JSONValue` is `Codable`: `JSONDecoder().decode(JSONValue.self, from: data)` parses any JSON
/// text (top-level scalars included, RFC 8259 §2) and `JSONEncoder().encode(value)` writes it.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text with sorted keys (for logs and test failures).
    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "<non-finite JSON number>" }
        return String(decoding: data, as: UTF8.self)
    }
}
