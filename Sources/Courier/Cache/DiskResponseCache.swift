import CourierClient
import CourierCore
import FoundationEssentials
import Synchronization

/// A ``ResponseCache`` in a directory, bounded by the bytes of its files, evicting the least
/// recently used; it outlives the process (a new instance over the same directory finds the
/// entries).
///
/// Each entry is one file (``DiskCacheEntry`` gives the layout: lengths and a checksum before
/// the head and body). A store writes a temporary file, `fsync`s it, renames it over the
/// entry's name and `fsync`s the directory, so a crash leaves the old entry or the new one.
/// A file that is torn or corrupted anyway fails its length or checksum check when read: it is
/// never served, and it is deleted.
///
/// The index — each URL's variants, each file's size and the recency order — lives in memory,
/// built once when the cache is opened (one pass over the directory reading each file's head,
/// oldest modification first); a lookup never lists the directory. One `Mutex` guards the index;
/// files are read and temporary files written outside it, and the rename, the index update and
/// the evictions' unlinks happen under it, so the index and the directory agree.
public final class DiskResponseCache: ResponseCache {
    struct FileRef {
        var name: String
        var size: Int
    }

    private struct Store {
        var index = CacheIndex<FileRef>()
        var bytes = 0
    }

    /// The directory the entries live in.
    public let directory: String
    /// The most bytes of entry files kept at once; a single larger entry is not stored.
    public let capacity: Int
    private let store = Mutex(Store())

    /// Opens (creating it if needed) the cache in `directory` and indexes what it holds; files
    /// that are not valid entries, and temporary files a crash left, are deleted.
    public init(directory: String, capacity: Int = 64 * 1024 * 1024) throws {
        self.directory = directory
        self.capacity = capacity
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var found: [(modified: Date, name: String, entry: DiskCacheEntry, size: Int)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let path = self.path(name)
            guard name.hasSuffix(".entry") else {
                if name.hasSuffix(".tmp") { FileSystem.remove(path) }
                continue
            }
            guard let (entry, size) = Self.readHead(path) else {
                FileSystem.remove(path)
                continue
            }
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? nil
            found.append((modified ?? .distantPast, name, entry, size))
        }
        found.sort { $0.modified < $1.modified }
        store.withLock { store in
            for item in found {
                let key = CacheKey(url: item.entry.url, variant: item.entry.variant)
                for old in store.index.insert(FileRef(name: item.name, size: item.size), at: key, names: item.entry.varyNames) {
                    store.bytes -= old.size
                    FileSystem.remove(self.path(old.name))
                }
                store.bytes += item.size
            }
            evict(&store)
        }
    }

    /// Bytes of entry files held.
    public var currentBytes: Int { store.withLock { $0.bytes } }
    /// Entries held (each variant counts).
    public var count: Int { store.withLock { $0.index.count } }

    public func cachedResponse(for request: Request) -> CachedResponse? {
        guard let (key, ref) = store.withLock({ $0.index.lookup(request) }) else { return nil }
        let path = path(ref.name)
        guard let bytes = FileManager.default.contents(atPath: path) else {
            forget(key, file: ref.name, delete: false)
            return nil
        }
        do {
            let entry = try DiskCacheEntry.decode([UInt8](bytes))
            guard entry.url == key.url, entry.variant == key.variant else { return nil }
            return entry.cached
        } catch {
            // Torn or corrupted: never served, and gone.
            forget(key, file: ref.name, delete: true)
            return nil
        }
    }

    public func storeCachedResponse(_ cached: CachedResponse, for request: Request) {
        guard let names = cached.freshness.varyNames, let key = CacheIndex<FileRef>.key(for: request, names: names) else { return }
        let bytes = DiskCacheEntry(url: key.url, variant: key.variant, varyNames: names, cached: cached).encoded()
        guard bytes.count <= capacity else { return }
        let name = Self.fileName(for: key)
        let temporary = path("\(name).\(UInt64.random(in: 0...UInt64.max)).tmp")
        do {
            let file = try FileDescriptor.open(temporary, .write(truncate: true, permissions: 0o600))
            do {
                try file.writeAll(ByteBuffer(bytes: bytes))
                try file.synchronize()
            } catch {
                try? file.close()
                throw error
            }
            try file.close()
        } catch {
            FileSystem.remove(temporary)
            return
        }
        store.withLock { store in
            do { try FileSystem.rename(temporary, to: path(name)) } catch {
                FileSystem.remove(temporary)
                return
            }
            syncDirectory()
            for old in store.index.insert(FileRef(name: name, size: bytes.count), at: key, names: names) {
                store.bytes -= old.size
                if old.name != name { FileSystem.remove(path(old.name)) }
            }
            store.bytes += bytes.count
            evict(&store)
        }
    }

    public func removeCachedResponse(for request: Request) {
        guard let url = request.httpURL else { return }
        store.withLock { store in
            for old in store.index.remove(url: url) {
                store.bytes -= old.size
                FileSystem.remove(path(old.name))
            }
        }
    }

    public func removeAllCachedResponses() {
        store.withLock { store in
            while let (_, old) = store.index.removeLeastRecent() { FileSystem.remove(path(old.name)) }
            store = Store()
        }
    }

    /// The entry files from the least to the most recently used (tests).
    var fileNamesFromOldest: [String] {
        store.withLock { store in store.index.keysFromOldest.compactMap { store.index.value(at: $0)?.name } }
    }

    // MARK: Files

    /// The entry file's name: FNV-1a 64 of the URL and variant key, in hex. The file repeats
    /// both, so two keys with one name never answer for each other.
    static func fileName(for key: CacheKey) -> String {
        var hash = FNV1a()
        hash.add(key.url.absoluteString.utf8)
        hash.add([0])
        hash.add(key.variant.utf8)
        let hex = String(hash.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".entry"
    }

    func path(_ name: String) -> String { directory + "/" + name }

    /// The meta and the file size of a valid-looking entry file (lengths checked, not the
    /// checksum: the body is not read here; a lookup checks it).
    private static func readHead(_ path: String) -> (DiskCacheEntry, Int)? {
        guard let file = try? FileDescriptor.open(path, .read) else { return nil }
        defer { try? file.close() }
        guard let status = try? file.status(), status.isRegularFile, status.size <= Int64(Int.max) else { return nil }
        let size = Int(status.size)
        var header = ByteBuffer()
        guard (try? file.read(into: &header, count: DiskCacheEntry.headerSize, at: 0)) == DiskCacheEntry.headerSize,
              let layout = try? DiskCacheEntry.layout(header.readableBytesArray(), fileSize: size) else { return nil }
        var meta = ByteBuffer()
        var read = 0
        while read < layout.metaLength {
            guard let count = try? file.read(into: &meta, count: layout.metaLength - read, at: Int64(DiskCacheEntry.headerSize + read)), count > 0 else {
                return nil
            }
            read += count
        }
        guard let entry = try? DiskCacheEntry.decodeMeta(ArraySlice(meta.readableBytesArray())) else { return nil }
        return (entry, size)
    }

    /// Drops `key` from the index when it still names `file` (a store may have replaced it meanwhile).
    private func forget(_ key: CacheKey, file: String, delete: Bool) {
        store.withLock { store in
            guard let current = store.index.value(at: key), current.name == file else { return }
            store.index.remove(key)
            store.bytes -= current.size
            if delete { FileSystem.remove(path(file)) }
        }
    }

    private func evict(_ store: inout Store) {
        while store.bytes > capacity, let (_, oldest) = store.index.removeLeastRecent() {
            store.bytes -= oldest.size
            FileSystem.remove(path(oldest.name))
        }
    }

    /// Makes the rename durable (`fsync` of the directory); best effort.
    private func syncDirectory() {
        guard let descriptor = try? FileDescriptor.open(directory, .read) else { return }
        try? descriptor.synchronize()
        try? descriptor.close()
    }
}
