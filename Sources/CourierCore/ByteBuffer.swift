/// A growable byte buffer with separate read and write indices, in the style of an I/O buffer.
///
/// ```
/// +-------------------+------------------+------------------+
/// | discardable bytes |  readable bytes  |  writable bytes  |
/// |                   |     (CONTENT)    |                  |
/// +-------------------+------------------+------------------+
/// |                   |                  |                  |
/// 0      <=      readerIndex   <=   writerIndex    <=    capacity
/// ```
///
/// The buffer is a copy-on-write value. Copies and slices share storage (a retain, not a malloc)
/// until one of them is written to. `compact()` moves the readable bytes to the front so the
/// writable region can be reused without growing.
///
/// Methods without `unsafe` in their name only read readable bytes and only write writable bytes;
/// raw pointers are handed out only inside closures, never stored.
public struct ByteBuffer: Sendable {
    @usableFromInline
    internal var _storage: _ByteBufferStorage
    @usableFromInline internal var _readerIndex: Int
    @usableFromInline internal var _writerIndex: Int

    /// The index of the first readable byte.
    @inlinable public var readerIndex: Int { _readerIndex }
    /// The index one past the last readable byte; the first writable byte.
    @inlinable public var writerIndex: Int { _writerIndex }

    /// Creates an empty buffer with at least `capacity` bytes of writable space. An empty buffer
    /// with no capacity shares one static storage and allocates nothing until written to.
    public init(capacity: Int = 0) {
        self._storage = capacity == 0 ? _ByteBufferStorage.empty : _ByteBufferStorage(capacity: capacity)
        self._readerIndex = 0
        self._writerIndex = 0
    }

    /// Creates a buffer holding a copy of `bytes`.
    public init<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(capacity: bytes.underestimatedCount)
        self.writeBytes(bytes)
    }

    /// Creates a buffer holding the UTF-8 bytes of `string`.
    public init(string: String) {
        var string = string
        self = string.withUTF8 { ByteBuffer(bytes: $0) }
    }

    /// The number of bytes between the reader and writer indices.
    @inlinable
    public var readableBytes: Int { writerIndex &- readerIndex }

    /// The number of bytes that can be written without growing.
    @inlinable
    public var writableBytes: Int { _storage.capacity &- writerIndex }

    /// The total size of the storage.
    @inlinable
    public var capacity: Int { _storage.capacity }

    // MARK: - Reading

    /// Calls `body` with the readable bytes. The pointer is valid only inside `body`.
    @inlinable
    public func withUnsafeReadableBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        // Safe: the storage is retained by `self` for the duration of the call and the range
        // [readerIndex, writerIndex) is initialised memory inside the allocation.
        let base = _storage.bytes
        return try body(UnsafeRawBufferPointer(start: base.advanced(by: readerIndex), count: readableBytes))
    }

    /// Advances the reader index by `count` readable bytes.
    @inlinable
    public mutating func moveReaderIndex(forwardBy count: Int) {
        precondition(count >= 0 && count <= readableBytes, "moveReaderIndex past the readable bytes")
        _readerIndex &+= count
        if readerIndex == writerIndex {
            // Nothing readable is left: rewind so the whole capacity is writable again. Only the
            // indices change, so slices sharing the storage are unaffected.
            _readerIndex = 0
            _writerIndex = 0
        }
    }

    /// Returns a buffer that shares storage and covers `count` readable bytes starting `offset`
    /// bytes after the reader index. No bytes are copied.
    @inlinable
    public func slice(offset: Int = 0, count: Int) -> ByteBuffer {
        precondition(offset >= 0 && count >= 0 && offset &+ count <= readableBytes, "slice out of range")
        var copy = self
        copy._readerIndex = readerIndex &+ offset
        copy._writerIndex = copy.readerIndex &+ count
        return copy
    }

    /// Removes and returns up to `count` bytes from the front as a slice sharing storage.
    @inlinable
    public mutating func readSlice(count: Int) -> ByteBuffer {
        let s = slice(count: Swift.min(count, readableBytes))
        moveReaderIndex(forwardBy: s.readableBytes)
        return s
    }

    /// Returns a copy of the readable bytes as an array.
    public func readableBytesArray() -> [UInt8] {
        withUnsafeReadableBytes { Array($0) }
    }

    /// Returns the readable byte at `offset` bytes after the reader index, or nil past the end.
    @inlinable
    public func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < readableBytes else { return nil }
        return withUnsafeReadableBytes { $0[offset] }
    }

    // MARK: - Writing

    /// Appends `bytes`, growing the storage when needed.
    public mutating func writeBytes<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let written: Int? = bytes.withContiguousStorageIfAvailable { buffer in
            self.writeBytes(UnsafeRawBufferPointer(buffer))
            return buffer.count
        }
        if written == nil {
            for byte in bytes { writeByte(byte) }
        }
    }

    /// Appends raw bytes, growing the storage when needed.
    @inlinable
    public mutating func writeBytes(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        withUnsafeMutableWritableBytes(minimumCapacity: bytes.count) { dest in
            // Safe: `dest` has at least `bytes.count` writable bytes (guaranteed by the reservation).
            dest.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            return bytes.count
        }
    }

    /// Appends the UTF-8 bytes of `string`.
    public mutating func writeString(_ string: String) {
        // A native or small string lends its UTF-8 in place; `withUTF8` needs a mutable copy
        // (a retain and a release per call) and is only for the bridged kind.
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { self.writeBytes(UnsafeRawBufferPointer($0)) }
        if written == nil {
            var string = string
            string.withUTF8 { self.writeBytes(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Appends the readable bytes of another buffer.
    public mutating func writeBuffer(_ other: ByteBuffer) {
        other.withUnsafeReadableBytes { self.writeBytes($0) }
    }

    /// Appends one byte.
    @inlinable
    public mutating func writeByte(_ byte: UInt8) {
        withUnsafeMutableWritableBytes(minimumCapacity: 1) { dest in
            dest[0] = byte
            return 1
        }
    }

    /// Ensures at least `minimumCapacity` writable bytes, then calls `body` with the writable
    /// region. `body` returns how many bytes it wrote; the writer index moves by that much.
    ///
    /// This is how a socket read lands in the buffer without an intermediate copy.
    @inlinable
    @discardableResult
    public mutating func withUnsafeMutableWritableBytes<E: Error>(
        minimumCapacity: Int = 1,
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int
    ) throws(E) -> Int {
        reserveWritable(minimumCapacity)
        // Safe: `reserveWritable` made the storage unique and at least `minimumCapacity` bytes
        // past the writer index; the pointer does not escape `body`.
        let base = _storage.bytes
        let region = UnsafeMutableRawBufferPointer(start: base.advanced(by: writerIndex), count: writableBytes)
        let written = try body(region)
        precondition(written >= 0 && written <= region.count, "wrote more than the writable region")
        _writerIndex &+= written
        return written
    }

    /// Calls `body` with the readable bytes as mutable memory, for in-place rewriting such as
    /// unfolding obs-fold. The number of readable bytes does not change.
    @inlinable
    public mutating func withUnsafeMutableReadableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        makeUnique()
        // Safe: the storage is unique to `self` and the range is initialised.
        let base = _storage.bytes
        return try body(UnsafeMutableRawBufferPointer(start: base.advanced(by: readerIndex), count: readableBytes))
    }

    /// Like ``withUnsafeMutableReadableBytes(_:)``, but only when this buffer is the sole owner of
    /// its storage; returns nil, without copying, when the storage is shared with a copy or slice.
    @inlinable
    public mutating func withUnsafeMutableReadableBytesIfUnique<R>(
        _ body: (UnsafeMutableRawBufferPointer) -> R
    ) -> R? {
        guard isKnownUniquelyReferenced(&_storage) else { return nil }
        // Safe: the storage is unique to `self` and the range is initialised.
        let base = _storage.bytes
        return body(UnsafeMutableRawBufferPointer(start: base.advanced(by: _readerIndex), count: readableBytes))
    }

    // MARK: - Capacity

    /// Makes sure `count` bytes can be written, first by compacting, then by growing.
    @inlinable
    public mutating func reserveWritable(_ count: Int) {
        if isKnownUniquelyReferenced(&_storage), writableBytes >= count { return }
        _reserveWritableSlow(count)
    }

    @usableFromInline
    internal mutating func _reserveWritableSlow(_ count: Int) {
        let unique = isKnownUniquelyReferenced(&_storage)
        if unique && readerIndex > 0 && _storage.capacity &- readableBytes >= count
            && readerIndex >= readableBytes
        {
            // Cheap compaction: the readable bytes are no larger than the gap in front of them.
            compact()
            return
        }
        let needed = readableBytes + count
        var newCapacity = Swift.max(_storage.capacity, 64)
        while newCapacity < needed { newCapacity *= 2 }
        let fresh = _ByteBufferStorage(capacity: newCapacity)
        withUnsafeReadableBytes { old in
            if old.count > 0 {
                // Safe: `fresh` holds at least `needed >= old.count` bytes.
                fresh.bytes.copyMemory(from: old.baseAddress!, byteCount: old.count)
            }
        }
        let count = readableBytes
        _storage = fresh
        _readerIndex = 0
        _writerIndex = count
    }

    /// Moves the readable bytes to the start of the storage, making the discarded prefix writable.
    public mutating func compact() {
        guard readerIndex > 0 else { return }
        makeUnique()
        let count = readableBytes
        if count > 0 {
            // Safe: both ranges lie inside the unique allocation; memmove semantics handle overlap.
            _storage.bytes.copyMemory(from: _storage.bytes.advanced(by: readerIndex), byteCount: count)
        }
        _readerIndex = 0
        _writerIndex = count
    }

    /// Discards all bytes, keeping the storage.
    public mutating func clear() {
        _readerIndex = 0
        _writerIndex = 0
    }

    @usableFromInline
    internal mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&_storage) {
            let fresh = _ByteBufferStorage(capacity: Swift.max(_storage.capacity, 1))
            fresh.bytes.copyMemory(from: _storage.bytes, byteCount: writerIndex)
            _storage = fresh
        }
    }
}

/// The heap allocation behind a ``ByteBuffer``.
///
/// Sendable because it is only mutated through a `ByteBuffer` that holds the sole reference
/// (checked with `isKnownUniquelyReferenced` before every write); shared copies are read-only.
@usableFromInline
internal final class _ByteBufferStorage: @unchecked Sendable {
    @usableFromInline let bytes: UnsafeMutableRawPointer
    @usableFromInline let capacity: Int

    /// Shared by every buffer created empty; never written to, because a write first checks
    /// uniqueness, and this instance is always shared with the static reference.
    @usableFromInline static let empty = _ByteBufferStorage(capacity: 0)

    @usableFromInline
    init(capacity: Int) {
        self.capacity = capacity
        // Allocate at least one byte so `bytes` is never null.
        self.bytes = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(capacity, 1), alignment: 16)
    }

    deinit {
        bytes.deallocate()
    }
}

extension ByteBuffer: Hashable {
    /// Hashes the readable bytes.
    public func hash(into hasher: inout Hasher) {
        withUnsafeReadableBytes { hasher.combine(bytes: $0) }
    }

    /// Two buffers are equal when their readable bytes are equal.
    public static func == (lhs: ByteBuffer, rhs: ByteBuffer) -> Bool {
        lhs.withUnsafeReadableBytes { a in rhs.withUnsafeReadableBytes { b in bytesEqual(a, b) } }
    }
}

extension ByteBuffer: CustomStringConvertible {
    public var description: String {
        "ByteBuffer(readable: \(readableBytes), reader: \(readerIndex), writer: \(writerIndex), capacity: \(capacity))"
    }
}
