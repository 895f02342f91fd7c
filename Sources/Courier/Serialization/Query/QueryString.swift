import FoundationEssentials

/// AFNetworking's default query-string serialization (`AFQueryStringFromParameters` and
/// `AFQueryStringPairsFromKeyAndValue`), for `application/x-www-form-urlencoded` bodies and
/// URL queries.
///
/// Rules, as in AFNetworking 4:
/// - The top level is a dictionary (`[String: any Sendable]`, any other dictionary, or a
///   ``JSONValue/object(_:)``). Its keys, and the keys of nested dictionaries, are sorted by
///   their text with Swift's `String <` (AFNetworking sorts by `description` with `compare:`,
///   a literal comparison; the two agree on ASCII keys).
/// - A nested dictionary value gives `key[sub]=value`, at any depth (`a[b][c]=1`).
/// - An array gives one `key[]=element` per element, in array order.
/// - A set gives one `key=element` per element, sorted by the element's text.
/// - nil, `Optional.none` and ``JSONValue/null`` give the key alone: `key` (no `=`).
/// - `Bool` gives `1` or `0`, as AFNetworking prints a boolean `NSNumber`.
/// - Integers print in decimal. A `Double` that is a whole number below 10^15 prints without a
///   fraction (`2`, like `NSNumber`), other doubles with Swift's shortest round-trip text.
/// - Strings, `Substring`, `Character`, `URL` (absolute string) and any other
///   `LosslessStringConvertible` value print as their text.
/// - The whole field (key with its brackets) and the value are each escaped with
///   ``percentEscapedQueryComponent(_:)``, so `key[sub]` is written `key%5Bsub%5D`; pairs are
///   joined with `&`.
///
/// `Data` and `Date` (which AFNetworking would print with `description`) and values with no
/// text form are refused.
public enum QueryString {
    /// The query string for `parameters`; an empty dictionary gives "".
    ///
    /// - Throws: ``CourierError`` `.invalidParameters` naming the key path of a value the rules
    ///   do not accept, or when the top level is not a dictionary.
    public static func encode(_ parameters: any Sendable) throws(CourierError) -> String {
        try pairs(parameters).map { pair in
            let field = percentEscapedQueryComponent(pair.field)
            guard let value = pair.value else { return field }
            return field + "=" + percentEscapedQueryComponent(value)
        }.joined(separator: "&")
    }

    /// The unescaped `(field, value)` pairs in order; a nil value is a key without `=`.
    public static func pairs(_ parameters: any Sendable) throws(CourierError) -> [(field: String, value: String?)] {
        var result: [(field: String, value: String?)] = []
        switch UntypedParameter(parameters) {
        case .dictionary, .json(.object):
            try collect(key: nil, value: parameters, into: &result)
        default:
            throw CourierError(.invalidParameters, detail: "query-string parameters must be a dictionary, not \(type(of: parameters))")
        }
        return result
    }

    private static func collect(key: String?, value: Any?, into result: inout [(field: String, value: String?)]) throws(CourierError) {
        let node = UntypedParameter(value)
        switch node {
        case .dictionary(let members, _):
            for (nestedKey, nestedValue) in members.sorted(by: { $0.key < $1.key }) {
                try collect(key: key.map { "\($0)[\(nestedKey)]" } ?? nestedKey, value: nestedValue, into: &result)
            }
        case .json(.object(let members)):
            for (nestedKey, nestedValue) in members.sorted(by: { $0.key < $1.key }) {
                try collect(key: key.map { "\($0)[\(nestedKey)]" } ?? nestedKey, value: nestedValue, into: &result)
            }
        case .array(let elements):
            for element in elements { try collect(key: "\(key ?? "")[]", value: element, into: &result) }
        case .json(.array(let elements)):
            for element in elements { try collect(key: "\(key ?? "")[]", value: element, into: &result) }
        case .set(let elements):
            let sorted = elements.map { (text: sortText($0), value: $0) }.sorted { $0.text < $1.text }
            for element in sorted { try collect(key: key, value: element.value, into: &result) }
        default:
            let field = key ?? ""
            result.append((field: field, value: try leafText(node, original: value, field: field)))
        }
    }

    private static func leafText(_ node: UntypedParameter, original: Any?, field: String) throws(CourierError) -> String? {
        switch node {
        case .null, .json(.null): return nil
        case .bool(let v), .json(.bool(let v)): return v ? "1" : "0"
        case .signed(let v), .json(.integer(let v)): return String(v)
        case .unsigned(let v): return String(v)
        case .double(let v), .json(.double(let v)): return numberText(v)
        case .string(let v), .json(.string(let v)): return v
        case .data: throw invalid(field, "Data has no query-string form")
        case .date: throw invalid(field, "Date has no query-string form")
        case .unsupported(let typeName):
            if let text = original as? any LosslessStringConvertible { return text.description }
            throw invalid(field, "\(typeName) has no query-string form")
        case .dictionary, .array, .set, .json(.object), .json(.array):
            preconditionFailure("containers are handled by collect")
        }
    }

    /// NSNumber-like text: whole numbers without a fraction.
    static func numberText(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// The text a set element is sorted by (AFNetworking: its `description`).
    private static func sortText(_ value: Any) -> String {
        switch UntypedParameter(value) {
        case .null, .json(.null): return ""
        case .bool(let v), .json(.bool(let v)): return v ? "1" : "0"
        case .signed(let v), .json(.integer(let v)): return String(v)
        case .unsigned(let v): return String(v)
        case .double(let v), .json(.double(let v)): return numberText(v)
        case .string(let v), .json(.string(let v)): return v
        default: return String(describing: value)
        }
    }

    private static func invalid(_ field: String, _ reason: String) -> CourierError {
        CourierError(.invalidParameters, detail: "parameter \(field.isEmpty ? "(root)" : field): \(reason)")
    }
}
