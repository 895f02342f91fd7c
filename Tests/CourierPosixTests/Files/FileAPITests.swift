#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierPosix
import Testing

/// CourierPosix's file API (`FileDescriptor`, `FileSystem`, `FileReader`): the one place the
/// library opens, reads, writes and removes files.
@Suite("File API")
struct FileAPITests {
    /// A fresh path in the temporary directory, removed afterwards.
    private static func withScratchPath(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/courier-file-api-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        close(fd)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        try body(path)
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try FileDescriptor.open(path, .write(truncate: true, permissions: 0o600))
        try file.writeAll(ByteBuffer(bytes: bytes))
        try file.close()
    }

    private static let pattern: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    @Test func writesThenReadsBackInPieces() throws {
        try expectNoLeakedDescriptors {
            try Self.withScratchPath { path in
                try Self.write(Self.pattern, to: path)
                let status = try FileSystem.status(ofPath: path)
                #expect(status.isRegularFile && !status.isDirectory && status.size == 200_000)
                let reader = try FileReader(path: path)
                #expect(reader.size == 200_000)
                var read: [UInt8] = []
                var pieces = 0
                while true {
                    let piece = try reader.next(maximum: 65_536)
                    if piece.readableBytes == 0 { break }
                    #expect(piece.readableBytes <= 65_536)
                    read += piece.readableBytesArray()
                    pieces += 1
                }
                #expect(read == Self.pattern)
                #expect(pieces == 4)
                #expect(reader.isFinished)
                reader.close()
                #expect(try reader.next(maximum: 10).readableBytes == 0, "closed: nothing more")
            }
        }
    }

    @Test func readsOnlyTheSizeSeenAtOpenAndNoticesChanges() throws {
        try expectNoLeakedDescriptors {
            try Self.withScratchPath { path in
                try Self.write(Array(repeating: 1, count: 1000), to: path)
                let reader = try FileReader(path: path)
                // The file grows after opening: the reader stops at 1000, and says the size changed.
                let appender = try FileDescriptor.open(path, .write(truncate: false, permissions: 0o600))
                try appender.truncateAndSeek(to: 1000)
                try appender.writeAll(ByteBuffer(bytes: [2, 2, 2]))
                try appender.close()
                #expect(try reader.next(maximum: 5000).readableBytes == 1000)
                #expect(try reader.next(maximum: 5000).readableBytes == 0)
                #expect(try reader.currentSize() == 1003)
            }
        }
    }

    @Test func aShrunkFileEndsEarly() throws {
        try expectNoLeakedDescriptors {
            try Self.withScratchPath { path in
                try Self.write(Array(repeating: 1, count: 1000), to: path)
                let reader = try FileReader(path: path)
                let cutter = try FileDescriptor.open(path, .write(truncate: false, permissions: 0o600))
                try cutter.truncateAndSeek(to: 400)
                try cutter.close()
                #expect(try reader.next(maximum: 5000).readableBytes == 400)
                #expect(try reader.next(maximum: 5000).readableBytes == 0)
                #expect(reader.offset == 400 && !reader.isFinished, "the caller sees the shortfall")
            }
        }
    }

    @Test func refusesDirectoriesAndMissingFiles() throws {
        try expectNoLeakedDescriptors { () throws in
            #expect(throws: FileReader.OpenError.notARegularFile) { try FileReader(path: "/tmp") }
            #expect(throws: FileReader.OpenError.unreadable(PosixError(code: ENOENT, call: "open"))) {
                try FileReader(path: "/tmp/courier-no-such-file-\(getpid())")
            }
            #expect(throws: PosixError(code: ENOENT, call: "stat")) {
                try FileSystem.status(ofPath: "/tmp/courier-no-such-file-\(getpid())")
            }
            #expect(try FileSystem.status(ofPath: "/tmp").isDirectory)
        }
    }

    @Test func truncateKeepsThePrefixAndRemoveDeletes() throws {
        try Self.withScratchPath { path in
            try Self.write(Array("hello, world".utf8), to: path)
            let file = try FileDescriptor.open(path, .write(truncate: false, permissions: 0o600))
            try file.truncateAndSeek(to: 5)
            try file.writeAll(ByteBuffer(string: "!"))
            try file.close()
            let reader = try FileReader(path: path)
            #expect(try reader.next(maximum: 100).readableBytesArray() == Array("hello!".utf8))
            reader.close()
            #expect(FileSystem.isReadable(path))
            FileSystem.remove(path)
            #expect(!FileSystem.isReadable(path))
            #expect(throws: PosixError.self) { try FileSystem.status(ofPath: path) }
        }
    }
}
