import CourierClient
import FoundationEssentials

/// One entry of a ``DiskResponseCache`` as it is laid out in its file. Every file is
///
///     offset  size  field
///     0       4     magic "CRCE"
///     4       1     format version (1)
///     5       3     zero
///     8       4     meta length M (little-endian)
///     12      8     body length B (little-endian)
///     20      8     FNV-1a 64 of the M + B bytes that follow (little-endian)
///     28      M     meta: URL, variant key, Vary names, storedAt, status, header fields
///     28+M    B     body
///
/// and is exactly 28 + M + B bytes long. Meta is a sequence of items: a string is a 32-bit
/// little-endian length and that many UTF-8 bytes; a number is 64 bits little-endian. It holds
/// the URL, the variant key, the count and names of the Vary fields, storedAt (the bits of a
/// `Double`, seconds since 1970), the status code, and the count and name/value pairs of the
/// header fields.
///
/// A file that is shorter or longer than its lengths say (a torn write), whose checksum does
/// not match (a corrupted one), or whose meta does not parse is refused with a
/// ``DiskCacheEntryError``: it is never served, and the store deletes it.
public struct DiskCacheEntry: Sendable {
    public var url: HTTPURL
    /// The secondary key (Vary, RFC 9111 §4.1): "" when the response names no Vary fields.
    public var variant: String
    public var varyNames: [String]
    public var cached: CachedResponse

    public init(url: HTTPURL, variant: String, varyNames: [String], cached: CachedResponse) {
        self.url = url
        self.variant = variant
        self.varyNames = varyNames
        self.cached = cached
    }

    public static let magic: [UInt8] = Array("CRCE".utf8)
    public static let version: UInt8 = 1
    /// The fixed part before the meta.
    public static let headerSize = 28
    /// Meta longer than this is refused (header fields are bounded far below it).
    public static let maximumMetaLength = 1 << 20
    /// More header fields or Vary names than this are refused.
    public static let maximumItems = 4096

    /// The file's bytes.
    public func encoded() -> [UInt8] {
        var meta: [UInt8] = []
        Self.put(url.absoluteString, into: &meta)
        Self.put(variant, into: &meta)
        Self.put(UInt64(varyNames.count), into: &meta)
        for name in varyNames { Self.put(name, into: &meta) }
        Self.put(cached.storedAt.timeIntervalSince1970.bitPattern, into: &meta)
        Self.put(UInt64(cached.response.statusCode), into: &meta)
        Self.put(UInt64(cached.response.headers.count), into: &meta)
        for field in cached.response.headers {
            Self.put(field.name, into: &meta)
            Self.put(field.value, into: &meta)
        }
        var bytes = Self.magic + [Self.version, 0, 0, 0]
        bytes.reserveCapacity(Self.headerSize + meta.count + cached.data.count)
        Self.put32(UInt32(meta.count), into: &bytes)
        Self.put(UInt64(cached.data.count), into: &bytes)
        var checksum = FNV1a()
        checksum.add(meta)
        checksum.add(cached.data)
        Self.put(checksum.value, into: &bytes)
        bytes += meta
        bytes += cached.data
        return bytes
    }

    /// The lengths a file's fixed header gives, checked against the file's size.
    public struct Layout: Sendable, Hashable {
        public var metaLength: Int
        public var bodyLength: Int
        public var checksum: UInt64
    }

    /// Reads the fixed header of a file `fileSize` bytes long.
    public static func layout(_ header: some Collection<UInt8>, fileSize: Int) throws(DiskCacheEntryError) -> Layout {
        let header = ArraySlice(header.prefix(headerSize))
        guard header.count == headerSize else { throw .truncated }
        guard Array(header[0..<4]) == magic else { throw .badMagic }
        guard header[4] == version, header[5] == 0, header[6] == 0, header[7] == 0 else { throw .unsupportedVersion }
        let metaLength = Int(readUInt(header, at: 8, size: 4))
        let bodyLength64 = readUInt(header, at: 12, size: 8)
        guard metaLength <= maximumMetaLength, bodyLength64 <= UInt64(Int.max - headerSize - maximumMetaLength) else { throw .lengthMismatch }
        let bodyLength = Int(bodyLength64)
        guard headerSize + metaLength + bodyLength == fileSize else {
            throw headerSize + metaLength + bodyLength > fileSize ? .truncated : .lengthMismatch
        }
        return Layout(metaLength: metaLength, bodyLength: bodyLength, checksum: readUInt(header, at: 20, size: 8))
    }

    /// Decodes a whole file, checksum included.
    public static func decode(_ bytes: [UInt8]) throws(DiskCacheEntryError) -> DiskCacheEntry {
        let layout = try layout(bytes[...], fileSize: bytes.count)
        let metaEnd = headerSize + layout.metaLength
        var checksum = FNV1a()
        checksum.add(bytes[headerSize..<bytes.count])
        guard checksum.value == layout.checksum else { throw .checksumMismatch }
        var entry = try decodeMeta(bytes[headerSize..<metaEnd])
        entry.cached.data = Data(bytes[metaEnd..<bytes.count])
        return entry
    }

    /// Decodes the meta alone (the store's index at open reads no bodies); the body is empty.
    public static func decodeMeta(_ meta: ArraySlice<UInt8>) throws(DiskCacheEntryError) -> DiskCacheEntry {
        var reader = Reader(bytes: meta)
        guard let url = try? HTTPURL(try reader.string()) else { throw .badMeta }
        let variant = try reader.string()
        let nameCount = try reader.count()
        var names: [String] = []
        for _ in 0..<nameCount { names.append(try reader.string()) }
        let stored = Double(bitPattern: try reader.number())
        guard stored.isFinite else { throw .badMeta }
        let status = try reader.number()
        guard (100..<1000).contains(status) else { throw .badMeta }
        let fieldCount = try reader.count()
        var headers = HTTPFields()
        for _ in 0..<fieldCount {
            let name = try reader.string()
            let value = try reader.string()
            do { try headers.append(name: name, value: value) } catch { throw .badMeta }
        }
        guard reader.isAtEnd else { throw .badMeta }
        let response = Response(location: RequestURL(url), statusCode: Int(status), headers: headers)
        let cached = CachedResponse(response: response, data: Data(), storedAt: Date(timeIntervalSince1970: stored))
        return DiskCacheEntry(url: url, variant: variant, varyNames: names, cached: cached)
    }

    // MARK: Bytes

    private struct Reader {
        var bytes: ArraySlice<UInt8>
        var isAtEnd: Bool { bytes.isEmpty }

        mutating func number() throws(DiskCacheEntryError) -> UInt64 {
            guard bytes.count >= 8 else { throw .badMeta }
            let value = DiskCacheEntry.readUInt(bytes, at: bytes.startIndex, size: 8)
            bytes = bytes.dropFirst(8)
            return value
        }

        mutating func count() throws(DiskCacheEntryError) -> Int {
            let value = try number()
            guard value <= UInt64(DiskCacheEntry.maximumItems) else { throw .badMeta }
            return Int(value)
        }

        mutating func string() throws(DiskCacheEntryError) -> String {
            guard bytes.count >= 4 else { throw .badMeta }
            let length = Int(DiskCacheEntry.readUInt(bytes, at: bytes.startIndex, size: 4))
            bytes = bytes.dropFirst(4)
            guard bytes.count >= length else { throw .badMeta }
            let text = bytes.prefix(length)
            bytes = bytes.dropFirst(length)
            guard let string = String(validating: text, as: UTF8.self) else { throw .badMeta }
            return string
        }
    }

    /// The little-endian number of `size` bytes at `start` (an index of `bytes`, which holds them).
    static func readUInt(_ bytes: ArraySlice<UInt8>, at start: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for shift in 0..<size { value |= UInt64(bytes[start + shift]) << (8 * UInt64(shift)) }
        return value
    }

    private static func put(_ value: UInt64, into bytes: inout [UInt8]) {
        for shift in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }

    private static func put32(_ value: UInt32, into bytes: inout [UInt8]) {
        for shift in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(shift)))) }
    }

    private static func put(_ string: String, into bytes: inout [UInt8]) {
        put32(UInt32(string.utf8.count), into: &bytes)
        bytes += string.utf8
    }
}

/// Why a disk cache file was refused.
public enum DiskCacheEntryError: Error, Sendable, Hashable {
    /// Shorter than its header says: a write that did not finish.
    case truncated
    case badMagic
    case unsupportedVersion
    /// Longer than its header says, or lengths out of bounds.
    case lengthMismatch
    case checksumMismatch
    /// The meta does not parse (bad lengths, invalid UTF-8, an invalid URL or field).
    case badMeta
}

/// FNV-1a, 64 bits: a checksum against torn and corrupted files (not against an adversary who
/// can write the cache directory, who could write any response).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }
}
