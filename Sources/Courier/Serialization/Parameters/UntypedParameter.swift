import FoundationEssentials

/// One AFNetworking-style untyped parameter value, classified once so that the query-string
/// encoder, ``JSONValue/init(parameters:)`` and the property-list wrapper agree on what each
/// Swift value means.
///
/// The walk is over `Any`: the conformances that unwrap `Optional` and `Set` cannot be made
/// conditional on `Sendable` (a marker protocol), and every leaf is copied into a Sendable value.
enum UntypedParameter {
    case null
    case bool(Bool)
    case signed(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case json(JSONValue)
    /// Keys as given (`String`, or the `description` of another hashable key), unsorted;
    /// `stringKeys` is false when the dictionary's keys were not all strings.
    case dictionary([(key: String, value: Any)], stringKeys: Bool)
    case array([Any])
    /// Elements unsorted; callers sort them (AFNetworking sorts by `description`).
    case set([Any])
    /// A value none of the parameter rules accept; the name of its type.
    case unsupported(String)

    init(_ value: Any?) {
        guard let value else { self = .null; return }
        if let optional = value as? any _OptionalParameter {
            self = UntypedParameter(optional._wrappedParameter)
            return
        }
        switch value {
        case let v as JSONValue: self = .json(v)
        case let v as Bool: self = .bool(v)
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Character: self = .string(String(v))
        case let v as Int: self = .signed(Int64(v))
        case let v as Int8: self = .signed(Int64(v))
        case let v as Int16: self = .signed(Int64(v))
        case let v as Int32: self = .signed(Int64(v))
        case let v as Int64: self = .signed(v)
        case let v as UInt: self = .unsigned(UInt64(v))
        case let v as UInt8: self = .unsigned(UInt64(v))
        case let v as UInt16: self = .unsigned(UInt64(v))
        case let v as UInt32: self = .unsigned(UInt64(v))
        case let v as UInt64: self = .unsigned(v)
        case let v as Double: self = .double(v)
        // A Float's shortest decimal text, read back as a Double: 0.1 as Float stays "0.1"
        // instead of becoming 0.10000000149011612.
        case let v as Float: self = .double(v.isFinite ? Double(v.description) ?? Double(v) : Double(v))
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as URL: self = .string(v.absoluteString)
        case let v as [String: Any]: self = .dictionary(v.map { (key: $0.key, value: $0.value) }, stringKeys: true)
        case let v as [AnyHashable: Any]: self = .dictionary(v.map { (key: Self.keyText($0.key), value: $0.value) }, stringKeys: v.keys.allSatisfy { $0.base is String })
        case let v as [Any]: self = .array(v)
        case let v as any _SetParameter: self = .set(v._setElements)
        default: self = .unsupported(String(describing: type(of: value)))
        }
    }

    private static func keyText(_ key: AnyHashable) -> String {
        if let string = key.base as? String { return string }
        return String(describing: key.base)
    }
}

/// `Optional` seen through `Any`, so that `Optional.none` inside a `[String: any Sendable]` is
/// recognised as nil (AFNetworking's `NSNull`).
protocol _OptionalParameter {
    var _wrappedParameter: Any? { get }
}

extension Optional: _OptionalParameter {
    var _wrappedParameter: Any? { self.map { $0 } }
}

/// `Set` seen through `Any` (AFNetworking's `NSSet`).
protocol _SetParameter {
    var _setElements: [Any] { get }
}

extension Set: _SetParameter {
    var _setElements: [Any] { Array(self) }
}

/// A key path for error messages: `user.tags[2]`.
struct ParameterPath {
    private(set) var text = ""

    func appending(key: String) -> ParameterPath {
        ParameterPath(text: text.isEmpty ? key : "\(text).\(key)")
    }

    func appending(index: Int) -> ParameterPath {
        ParameterPath(text: "\(text)[\(index)]")
    }

    var display: String { text.isEmpty ? "(root)" : text }
}
