import FoundationEssentials

extension JSONValue {
    /// Converts AFNetworking-style untyped parameters to JSON.
    ///
    /// Accepted: `[String: any Sendable]` (and other dictionaries whose keys are `String`),
    /// arrays, sets (written as arrays, elements sorted by their JSON text so the output is
    /// deterministic; AFNetworking's `NSJSONSerialization` refuses sets), `String`, `Substring`,
    /// `Character`, `URL` (its absolute string), `Bool`, every fixed-width integer type
    /// (`UInt64` above `Int64.max` is refused), `Double`, `Float`, `JSONValue`, and nil or
    /// `Optional.none` (→ `null`).
    ///
    /// - Throws: ``CourierError`` `.invalidParameters` naming the key path (e.g. `user.tags[2]`)
    ///   of the first value that has no JSON form: another type, a non-string dictionary key,
    ///   a non-finite number (RFC 8259 §6), `Data` or `Date`.
    public init(parameters: (any Sendable)?) throws(CourierError) {
        self = try JSONValue.convert(parameters as Any?, path: ParameterPath())
    }

    static func convert(_ value: Any?, path: ParameterPath) throws(CourierError) -> JSONValue {
        switch UntypedParameter(value) {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .signed(let v): return .integer(v)
        case .unsigned(let v):
            guard let exact = Int64(exactly: v) else { throw invalid(path, "\(v) does not fit in a JSON integer (Int64)") }
            return .integer(exact)
        case .double(let v):
            guard v.isFinite else { throw invalid(path, "\(v) is not a finite number (RFC 8259 §6)") }
            return .double(v)
        case .string(let v): return .string(v)
        case .json(let v):
            try check(v, path: path)
            return v
        case .dictionary(let pairs, let stringKeys):
            guard stringKeys else { throw invalid(path, "dictionary keys must be strings") }
            var members: [String: JSONValue] = [:]
            for (key, member) in pairs {
                members[key] = try convert(member, path: path.appending(key: key))
            }
            return .object(members)
        case .array(let elements):
            var result: [JSONValue] = []
            result.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                result.append(try convert(element, path: path.appending(index: index)))
            }
            return .array(result)
        case .set(let elements):
            var result: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                result.append(try convert(element, path: path.appending(index: index)))
            }
            return .array(result.sorted { $0.description < $1.description })
        case .data: throw invalid(path, "Data has no JSON form")
        case .date: throw invalid(path, "Date has no JSON form")
        case .unsupported(let typeName):
            // A typed value inside untyped containers (`["items": [Item]]`, `Item: Encodable`):
            // its JSON form, as JSONEncoder writes it.
            guard let encodable = value as? any Encodable,
                  let data = try? JSONEncoder().encode(encodable),
                  let json = try? JSONDecoder().decode(JSONValue.self, from: data) else {
                throw invalid(path, "\(typeName) is not a JSON value")
            }
            return json
        }
    }

    /// A JSONValue built by hand can still hold a non-finite double.
    private static func check(_ value: JSONValue, path: ParameterPath) throws(CourierError) {
        switch value {
        case .double(let v) where !v.isFinite:
            throw invalid(path, "\(v) is not a finite number (RFC 8259 §6)")
        case .array(let elements):
            for (index, element) in elements.enumerated() { try check(element, path: path.appending(index: index)) }
        case .object(let members):
            for (key, member) in members { try check(member, path: path.appending(key: key)) }
        default:
            break
        }
    }

    private static func invalid(_ path: ParameterPath, _ reason: String) -> CourierError {
        CourierError(.invalidParameters, detail: "parameter \(path.display): \(reason)")
    }
}
