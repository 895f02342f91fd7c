/// Reading parts of a ``JSONValue`` without a `switch`.
extension JSONValue {
    /// The member named `key` of an object; nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; nil when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var isNull: Bool { self == .null }

    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The value of an ``integer(_:)``, or of a ``double(_:)`` that is a whole number in range.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// ``int64Value`` as `Int`.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// Any number as `Double` (an integer beyond 2^53 is rounded).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    public var objectValue: [String: JSONValue]? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// The value without `null` members of objects and without `null` elements of arrays, at every
    /// depth (AFNetworking's `AFJSONObjectByRemovingKeysWithNullValues`, which drops `NSNull`
    /// from arrays as well). A top-level `null` stays `null`.
    public func removingKeysWithNullValues() -> JSONValue {
        switch self {
        case .array(let elements):
            return .array(elements.filter { $0 != .null }.map { $0.removingKeysWithNullValues() })
        case .object(let members):
            var result: [String: JSONValue] = [:]
            result.reserveCapacity(members.count)
            for (key, value) in members where value != .null {
                result[key] = value.removingKeysWithNullValues()
            }
            return .object(result)
        default:
            return self
        }
    }
}
