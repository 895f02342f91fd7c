import CourierCore

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
///
/// A value is bytes (RFC 9110 §5.5): ``valueBytes`` are exactly the bytes received or to be
/// sent, obs-text (0x80–0xFF) included. ``value`` is the same value as text: the bytes decoded
/// as UTF-8 when they are valid UTF-8, otherwise as ISO-8859-1, one scalar per byte (so a
/// received `caf\xE9` reads "café" and its ``valueBytes`` are still `63 61 66 E9`). A field made
/// from a `String` is sent as that string's UTF-8.
public struct HTTPField: Hashable, Sendable {
    public let name: String
    /// The value as text (see the type's documentation for bytes that are not UTF-8).
    public let value: String
    /// Whether ``value`` stands for its bytes one scalar per byte (ISO-8859-1) rather than as
    /// UTF-8: true only for values whose bytes are not valid UTF-8.
    let valueIsLatin1: Bool

    /// Creates a field, refusing names that are not tokens and values with CR, LF, NUL or other
    /// controls, so that no field can inject a line into a message (RFC 9110 §5.1, §5.5).
    /// Leading and trailing SP/HTAB are trimmed from the value, which is sent as UTF-8.
    public init(name: String, value: String) throws(HTTPFieldError) {
        try HTTPField.validate(name: name, value: value.utf8)
        self.name = name
        self.value = HTTPField.trimmed(value)
        self.valueIsLatin1 = false
    }

    /// Creates a field whose value is exactly `valueBytes` (after trimming leading and trailing
    /// SP/HTAB): VCHAR, SP, HTAB and obs-text (RFC 9110 §5.5). Controls are refused as by
    /// ``init(name:value:)``.
    public init(name: String, valueBytes: some Collection<UInt8>) throws(HTTPFieldError) {
        try HTTPField.validate(name: name, value: valueBytes)
        var bytes = Array(valueBytes)
        while let last = bytes.last, ByteClass.isWhitespace(last) { bytes.removeLast() }
        let start = bytes.firstIndex { !ByteClass.isWhitespace($0) } ?? bytes.endIndex
        let decoded = bytes[start...].withUnsafeBytes { FieldText.decode($0) }
        self.name = name
        self.value = decoded.string
        self.valueIsLatin1 = decoded.isLatin1
    }

    init(unchecked name: String, value: String, isLatin1: Bool) {
        self.name = name
        self.value = value
        self.valueIsLatin1 = isLatin1
    }

    /// The value's exact bytes (RFC 9110 §5.5). Allocates.
    public var valueBytes: [UInt8] { FieldText.bytes(of: value, isLatin1: valueIsLatin1) }

    /// Writes the value's bytes.
    func writeValue(into buffer: inout ByteBuffer) {
        if valueIsLatin1 { buffer.writeBytes(valueBytes) } else { buffer.writeString(value) }
    }

    private static func validate(name: String, value: some Collection<UInt8>) throws(HTTPFieldError) {
        let nameIsToken = name.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(ByteClass.isToken) }
            ?? name.utf8.allSatisfy(ByteClass.isToken)
        guard !name.isEmpty, nameIsToken else {
            throw HTTPFieldError(reason: .invalidName, name: name)
        }
        // Contiguous bytes (a native string's UTF-8, an array) are checked through a buffer,
        // several times faster than through a generic collection's iterator.
        let valid = value.withContiguousStorageIfAvailable { $0.allSatisfy(ByteClass.isFieldValue) }
            ?? value.allSatisfy(ByteClass.isFieldValue)
        guard valid else {
            throw HTTPFieldError(reason: .invalidValue, name: name)
        }
    }

    static func trimmed(_ value: String) -> String {
        let utf8 = value.utf8
        // The common case, nothing to trim, keeps the string (no copy).
        if let head = utf8.first, let tail = utf8.last, !ByteClass.isWhitespace(head), !ByteClass.isWhitespace(tail) { return value }
        guard let first = utf8.firstIndex(where: { !ByteClass.isWhitespace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !ByteClass.isWhitespace($0) })!
        return String(value[first...last])
    }
}

/// An ordered, owned list of header fields with case-insensitive lookup (RFC 9110 §5.3).
///
/// Every field is validated when added, so a list can always be encoded safely.
///
/// A received head's fields (``HTTPHeaderView/owned()``) stay as a copy of the head's bytes
/// until they are changed: looking a field up compares bytes, and only the fields read become
/// strings. Reading one builds its strings each time; the first change decodes them all.
public struct HTTPFields: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// The fields, when ``parsed`` is nil.
    private var storage: [HTTPField] = []
    /// A received head's fields, still bytes: a view into a copy of the head (never into a
    /// connection's read buffer). nil once anything was changed.
    private var parsed: HTTPHeaderView?

    public init() {}

    /// `view`'s fields, over `view`'s bytes (the caller copied them out of the read buffer).
    init(parsed view: HTTPHeaderView) {
        self.parsed = view
    }

    /// Creates fields from literal pairs. A literal is source code, not input, so an invalid one
    /// is a programming error and traps.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements {
            do { try append(name: name, value: value) } catch { preconditionFailure("invalid header literal: \(error)") }
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { parsed?.count ?? storage.count }

    public subscript(position: Int) -> HTTPField {
        if let parsed { return parsed.ownedField(at: position) }
        return storage[position]
    }

    /// Makes the fields owned strings before a change.
    private mutating func decodeParsed() {
        guard let view = parsed else { return }
        parsed = nil
        storage = (0..<view.count).map { view.ownedField(at: $0) }
    }

    /// Appends a field after validating it.
    public mutating func append(name: String, value: String) throws(HTTPFieldError) {
        append(try HTTPField(name: name, value: value))
    }

    /// Appends a validated field.
    public mutating func append(_ field: HTTPField) {
        decodeParsed()
        storage.append(field)
    }

    /// Appends a field whose value is exactly `valueBytes`, after validating it.
    public mutating func append(name: String, valueBytes: some Collection<UInt8>) throws(HTTPFieldError) {
        append(try HTTPField(name: name, valueBytes: valueBytes))
    }

    /// Replaces every field named `name` with one field, after validating it.
    public mutating func set(name: String, value: String) throws(HTTPFieldError) {
        let field = try HTTPField(name: name, value: value)
        decodeParsed()
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
        guard contains(name) else { return }
        decodeParsed()
        storage.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Whether a field named `name` is present (case-insensitive).
    public func contains(_ name: String) -> Bool {
        if let parsed { return parsed.contains(name) }
        return storage.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first value of the field named `name`, as text (see ``HTTPField`` for how bytes that
    /// are not UTF-8 read).
    public subscript(first name: String) -> String? {
        if let parsed { return parsed[first: name] }
        return storage.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// The exact bytes of the first field named `name` (RFC 9110 §5.5).
    public func firstValueBytes(for name: String) -> [UInt8]? {
        if let parsed { return parsed.firstValueBytes(for: name) }
        return storage.first { $0.name.caseInsensitiveEquals(name) }?.valueBytes
    }

    /// All values of fields named `name`, as text.
    public func values(for name: String) -> [String] {
        if let parsed { return parsed.values(for: name) }
        return storage.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// The exact bytes of every field named `name`, in order.
    public func valueBytes(for name: String) -> [[UInt8]] {
        if let parsed { return parsed.valueBytes(for: name) }
        return storage.filter { $0.name.caseInsensitiveEquals(name) }.map(\.valueBytes)
    }

    /// Field by field, whatever each list's form (RFC 9110 §5.3: order matters).
    public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for field in self { hasher.combine(field) }
    }
}

extension HTTPFields {
    /// Whether both lists hold fields with the same bytes, in the same order: what decides that
    /// the encoder would write them alike. `==` compares text, and Swift's string equality
    /// calls canonically equivalent strings (a precomposed and a decomposed "é") equal. A list
    /// still in a received head's form is not compared (false).
    package func hasSameBytes(as other: HTTPFields) -> Bool {
        guard parsed == nil, other.parsed == nil, storage.count == other.storage.count else { return false }
        // The same array storage holds the same fields (the same request sent again).
        let shared = storage.withUnsafeBufferPointer { mine in
            other.storage.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
        }
        if shared { return true }
        for index in storage.indices {
            let mine = storage[index], theirs = other.storage[index]
            guard mine.valueIsLatin1 == theirs.valueIsLatin1, mine.name.hasSameUTF8(as: theirs.name),
                mine.value.hasSameUTF8(as: theirs.value)
            else { return false }
        }
        return true
    }
}

extension String {
    /// Byte-for-byte comparison of the UTF-8 (`==` compares canonical equivalence).
    package func hasSameUTF8(as other: String) -> Bool {
        // In place when both are native (every string made here is): no copy, no retain.
        let inPlace = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in bytesEqual(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) }
        }
        if case let same?? = inPlace { return same }
        var mine = self, theirs = other
        return mine.withUTF8 { a in theirs.withUTF8 { b in bytesEqual(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) } }
    }

    /// ASCII case-insensitive comparison, for field names and tokens. Compares the two UTF-8
    /// buffers directly (every header lookup runs this once per field; stepping two `UTF8View`
    /// iterators costs about a hundred instructions a byte).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var mine = self, theirs = other
        return mine.withUTF8 { a in
            theirs.withUTF8 { b in HTTPBytes.equalsCaseInsensitive(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) }
        }
    }
}
