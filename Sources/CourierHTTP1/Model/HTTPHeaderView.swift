import CourierCore

/// Where one field line's name and value lie, as offsets into the bytes of its header block.
@usableFromInline
struct HTTPFieldSpan: Hashable, Sendable {
    @usableFromInline var nameStart: UInt32
    @usableFromInline var nameLength: UInt32
    @usableFromInline var valueStart: UInt32
    @usableFromInline var valueLength: UInt32

    @inlinable
    init(nameStart: Int, nameLength: Int, valueStart: Int, valueLength: Int) {
        self.nameStart = UInt32(truncatingIfNeeded: nameStart)
        self.nameLength = UInt32(truncatingIfNeeded: nameLength)
        self.valueStart = UInt32(truncatingIfNeeded: valueStart)
        self.valueLength = UInt32(truncatingIfNeeded: valueLength)
    }
}

/// A run of bytes inside a parsed message, shared with the read buffer (no copy).
///
/// These are exactly the bytes the peer sent, obs-text (0x80–0xFF) included (RFC 9110 §5.5).
/// A `String` is built only when ``string`` is asked for.
public struct HTTPBytes: Sendable, Hashable, CustomStringConvertible {
    /// The bytes, as a slice of the parser's read buffer.
    public let buffer: ByteBuffer

    @inlinable
    init(_ buffer: ByteBuffer) { self.buffer = buffer }

    /// The number of bytes.
    @inlinable
    public var count: Int { buffer.readableBytes }

    /// Calls `body` with the bytes; the pointer is valid only inside `body`.
    @inlinable
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try buffer.withUnsafeReadableBytes(body)
    }

    /// A copy of the bytes. Allocates.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// The bytes as text: decoded as UTF-8 when they are valid UTF-8, otherwise as ISO-8859-1
    /// (each byte becomes the scalar with its number, so `caf\xE9` reads "café" and no byte is
    /// replaced). Use ``bytes`` or ``withUnsafeBytes(_:)`` for the exact bytes (RFC 9110 §5.5).
    /// Allocates.
    public var string: String {
        withUnsafeBytes { FieldText.decode($0).string }
    }

    /// Whether the bytes equal `ascii`, ignoring ASCII case. Allocates nothing.
    @inlinable
    public func equalsCaseInsensitive(_ ascii: String) -> Bool {
        var ascii = ascii
        return ascii.withUTF8 { other in
            withUnsafeBytes { mine in HTTPBytes.equalsCaseInsensitive(mine, UnsafeRawBufferPointer(other)) }
        }
    }

    @inlinable
    static func equalsCaseInsensitive(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where ByteClass.lower(a[i]) != ByteClass.lower(b[i]) { return false }
        return true
    }

    public var description: String { string }

    public static func == (lhs: HTTPBytes, rhs: HTTPBytes) -> Bool { lhs.buffer == rhs.buffer }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// One field line of a parsed header or trailer section.
public struct HTTPHeaderField: Sendable, Hashable {
    /// The field name as sent (compare it case-insensitively).
    public let name: HTTPBytes
    /// The field value, with leading and trailing whitespace removed (RFC 9110 §5.5).
    public let value: HTTPBytes

    @usableFromInline
    init(name: HTTPBytes, value: HTTPBytes) {
        self.name = name
        self.value = value
    }
}

/// The field lines of a parsed message, as spans into the bytes the parser read (zero-copy).
///
/// Iterating fields and comparing names allocates nothing; a `String` is built only on request.
/// Holding on to a view keeps the read buffer's storage alive, so a connection's buffer is copied
/// on its next write while a view is alive: convert to owned ``HTTPFields`` to keep headers.
public struct HTTPHeaderView: RandomAccessCollection, Sendable, Hashable {
    /// The head's bytes; nil for an empty view, so an empty view (every `end` without trailers)
    /// retains nothing.
    @usableFromInline let storedBlock: ByteBuffer?
    @usableFromInline let spans: [HTTPFieldSpan]

    @inlinable
    init(block: ByteBuffer, spans: [HTTPFieldSpan]) {
        self.storedBlock = block
        self.spans = spans
    }

    /// The bytes the spans point into (empty for the empty view).
    var block: ByteBuffer { storedBlock ?? ByteBuffer() }

    /// An empty view.
    public init() {
        self.storedBlock = nil
        self.spans = []
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { spans.count }

    @inlinable
    public subscript(position: Int) -> HTTPHeaderField {
        let span = spans[position]
        // Only the empty view has no bytes, and it has no spans either, so a valid position
        // means the bytes are there.
        let block = storedBlock.unsafelyUnwrapped
        return HTTPHeaderField(
            name: HTTPBytes(block.slice(offset: Int(span.nameStart), count: Int(span.nameLength))),
            value: HTTPBytes(block.slice(offset: Int(span.valueStart), count: Int(span.valueLength)))
        )
    }

    /// Whether a field named `name` (case-insensitive) is present. Allocates nothing.
    public func contains(_ name: String) -> Bool {
        firstIndex(named: name) != nil
    }

    /// The index of the first field named `name` (case-insensitive). Allocates nothing.
    public func firstIndex(named name: String) -> Int? {
        var found: Int?
        forEachIndex(named: name) { i in
            found = i
            return false
        }
        return found
    }

    /// Calls `body` with the index of each field named `name` (case-insensitive), in order,
    /// until it returns false. Allocates nothing.
    func forEachIndex(named name: String, _ body: (Int) -> Bool) {
        guard let block = storedBlock else { return }
        var name = name
        name.withUTF8 { wanted in
            let length = UInt32(truncatingIfNeeded: wanted.count)
            block.withUnsafeReadableBytes { bytes in
                // Lengths first: most fields are ruled out without looking at their bytes.
                for (i, span) in spans.enumerated() where span.nameLength == length {
                    let n = UnsafeRawBufferPointer(rebasing: bytes[Int(span.nameStart)..<Int(span.nameStart + span.nameLength)])
                    if HTTPBytes.equalsCaseInsensitive(n, UnsafeRawBufferPointer(wanted)), !body(i) { return }
                }
            }
        }
    }

    /// The value of the first field named `name` as a String (see ``HTTPBytes/string`` for how
    /// bytes that are not UTF-8 read), or nil.
    public subscript(first name: String) -> String? {
        firstIndex(named: name).map { self[$0].value.string }
    }

    /// The exact bytes of the first field named `name`, or nil (RFC 9110 §5.5).
    public func firstValueBytes(for name: String) -> [UInt8]? {
        firstIndex(named: name).map { self[$0].value.bytes }
    }

    /// All values of fields named `name`, in order, as Strings.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        forEachIndex(named: name) { i in
            values.append(self[i].value.string)
            return true
        }
        return values
    }

    /// The exact bytes of every field named `name`, in order.
    public func valueBytes(for name: String) -> [[UInt8]] {
        var values: [[UInt8]] = []
        forEachIndex(named: name) { i in
            values.append(self[i].value.bytes)
            return true
        }
        return values
    }

    /// Copies the fields into an owned ``HTTPFields`` list. Every value keeps its exact bytes
    /// (``HTTPField/valueBytes``). The list holds a copy of the head's bytes, so it pins no
    /// read buffer, and builds strings only for the fields read.
    public func owned() -> HTTPFields {
        // Most trailer sections are empty: nothing to copy, no buffer to make.
        guard storedBlock != nil, !spans.isEmpty else { return HTTPFields() }
        var storage = ByteBuffer()
        return owned(reusing: &storage)
    }

    /// ``owned()``, copying into `storage`'s memory when nothing else holds it any more: a
    /// connection passes the buffer of its previous response's head, which the consumer has
    /// usually let go of by the next response, so that head costs no allocation. A buffer still
    /// held elsewhere (a head the consumer kept) is left alone: writing copies on write, as into
    /// any shared ``ByteBuffer``. On return `storage` shares the copy.
    package func owned(reusing storage: inout ByteBuffer) -> HTTPFields {
        guard let block = storedBlock, !spans.isEmpty else { return HTTPFields() }
        storage.clear()
        storage.reserveWritable(block.readableBytes)
        block.withUnsafeReadableBytes { storage.writeBytes($0) }
        return HTTPFields(parsed: HTTPHeaderView(block: storage, spans: spans))
    }

    /// Field `position` as an owned ``HTTPField``: the value decoded by ``FieldText``, the
    /// name as ASCII (names are tokens: the parser checked every byte, so decoding is exact).
    func ownedField(at position: Int) -> HTTPField {
        let field = self[position]
        let value = field.value.withUnsafeBytes { FieldText.decode($0) }
        let name = field.name.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        return HTTPField(unchecked: name, value: value.string, isLatin1: value.isLatin1)
    }

    public static func == (lhs: HTTPHeaderView, rhs: HTTPHeaderView) -> Bool {
        lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        for field in self { hasher.combine(field) }
    }
}
