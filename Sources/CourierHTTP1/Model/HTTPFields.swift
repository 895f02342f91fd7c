/// A field that would produce an invalid or injected message was refused.
public struct HTTPFieldError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// The name is empty or has a byte outside `tchar` (RFC 9110 §5.6.2).
        case invalidName
        /// The value has CR, LF, NUL or another control byte (RFC 9110 §5.5).
        case invalidValue
    }

    public let reason: Reason
    /// The offending field name (as given; possibly invalid).
    public let name: String

    public var description: String { "HTTPFieldError.\(reason.rawValue) for field \"\(name)\"" }
}

/// One owned field line.
public struct HTTPField: Hashable, Sendable {
    public let name: String
    public let value: String

    /// Creates a field, refusing names that are not tokens and values with CR, LF, NUL or other
    /// controls, so that no field can inject a line into a message (RFC 9110 §5.1, §5.5).
    /// Leading and trailing SP/HTAB are trimmed from the value.
    public init(name: String, value: String) throws(HTTPFieldError) {
        guard !name.isEmpty, name.utf8.allSatisfy(ByteClass.isToken) else {
            throw HTTPFieldError(reason: .invalidName, name: name)
        }
        guard value.utf8.allSatisfy(ByteClass.isFieldValue) else {
            throw HTTPFieldError(reason: .invalidValue, name: name)
        }
        self.name = name
        self.value = HTTPField.trimmed(value)
    }

    init(unchecked name: String, value: String) {
        self.name = name
        self.value = value
    }

    static func trimmed(_ value: String) -> String {
        let utf8 = value.utf8
        guard let first = utf8.firstIndex(where: { !ByteClass.isWhitespace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !ByteClass.isWhitespace($0) })!
        return String(value[first...last])
    }
}

/// An ordered, owned list of header fields with case-insensitive lookup (RFC 9110 §5.3).
///
/// Every field is validated when added, so a list can always be encoded safely.
public struct HTTPFields: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    private var storage: [HTTPField] = []

    public init() {}

    /// Creates fields from literal pairs. A literal is source code, not input, so an invalid one
    /// is a programming error and traps.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements {
            do { try append(name: name, value: value) } catch { preconditionFailure("invalid header literal: \(error)") }
        }
    }

    public var startIndex: Int { storage.startIndex }
    public var endIndex: Int { storage.endIndex }
    public subscript(position: Int) -> HTTPField { storage[position] }

    /// Appends a field after validating it.
    public mutating func append(name: String, value: String) throws(HTTPFieldError) {
        storage.append(try HTTPField(name: name, value: value))
    }

    /// Appends a validated field.
    public mutating func append(_ field: HTTPField) {
        storage.append(field)
    }

    /// Appends bytes the parser has already validated.
    mutating func appendUnchecked(name: String, value: String) {
        storage.append(HTTPField(unchecked: name, value: value))
    }

    /// Replaces every field named `name` with one field, after validating it.
    public mutating func set(name: String, value: String) throws(HTTPFieldError) {
        let field = try HTTPField(name: name, value: value)
        if let i = storage.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
            storage[i] = field
            var j = storage.index(after: i)
            while j < storage.endIndex {
                if storage[j].name.caseInsensitiveEquals(name) { storage.remove(at: j) } else { j += 1 }
            }
        } else {
            storage.append(field)
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        storage.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Whether a field named `name` is present (case-insensitive).
    public func contains(_ name: String) -> Bool {
        storage.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first value of the field named `name`.
    public subscript(first name: String) -> String? {
        storage.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// All values of fields named `name`.
    public func values(for name: String) -> [String] {
        storage.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }
}

extension String {
    /// ASCII case-insensitive comparison, for field names and tokens.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = self.utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { ByteClass.lower($0) == ByteClass.lower($1) }
    }
}
