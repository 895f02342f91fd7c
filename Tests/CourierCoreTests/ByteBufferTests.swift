import CourierCore
import Testing

/// The address of the first readable byte, to tell whether two buffers share storage.
private func readableBase(_ buffer: ByteBuffer) -> UInt? {
    buffer.withUnsafeReadableBytes { $0.baseAddress.map { UInt(bitPattern: $0) } }
}

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite("ByteBuffer")
struct ByteBufferTests {
    // MARK: - Indices

    @Test func emptyBufferHasNoReadableBytes() {
        let buffer = ByteBuffer()
        #expect(buffer.readerIndex == 0)
        #expect(buffer.writerIndex == 0)
        #expect(buffer.readableBytes == 0)
        #expect(buffer.readableBytesArray() == [])
        #expect(buffer.byte(at: 0) == nil)
    }

    @Test func emptyBuffersShareStorageUntilWritten() throws {
        // Documented: an empty buffer allocates nothing; writing to one must leave the others.
        var a = ByteBuffer()
        let b = ByteBuffer()
        #expect(readableBase(a) == readableBase(b))
        a.writeString("a")
        var c = ByteBuffer(capacity: 0)
        c.withUnsafeMutableWritableBytes(minimumCapacity: 0) { region in
            for i in region.indices { region[i] = 0xAA }
            return region.count
        }
        #expect(readableBase(a) != readableBase(b))
        #expect(a.readableBytesArray() == bytes("a"))
        #expect(b.readableBytes == 0 && b.capacity == 0)
        #expect(ByteBuffer().readableBytes == 0 && ByteBuffer().capacity == 0)
        #expect(c.readableBytesArray().allSatisfy { $0 == 0xAA })
        var d = ByteBuffer()
        d.withUnsafeMutableReadableBytes { _ in }
        d.compact()
        d.clear()
        d.writeString("d")
        #expect(d.readableBytesArray() == bytes("d"))
        #expect(ByteBuffer().readableBytes == 0)
    }

    @Test func initialCapacityIsWritable() {
        let buffer = ByteBuffer(capacity: 100)
        #expect(buffer.capacity >= 100)
        #expect(buffer.writableBytes == buffer.capacity)
        #expect(buffer.readableBytes == 0)
    }

    @Test func writesAdvanceTheWriterIndexOnly() {
        var buffer = ByteBuffer()
        buffer.writeString("abc")
        #expect(buffer.readerIndex == 0)
        #expect(buffer.writerIndex == 3)
        buffer.writeByte(UInt8(ascii: "d"))
        #expect(buffer.writerIndex == 4)
        buffer.writeBytes([0x65, 0x66] as [UInt8])
        #expect(buffer.writerIndex == 6)
        var other = ByteBuffer(string: "gh")
        other.moveReaderIndex(forwardBy: 1)  // only "h" is readable
        buffer.writeBuffer(other)
        #expect(buffer.writerIndex == 7)
        #expect(buffer.readableBytesArray() == bytes("abcdefh"))
        #expect(buffer.writableBytes == buffer.capacity - buffer.writerIndex)
    }

    @Test func writeBytesAcceptsNonContiguousSequences() {
        var buffer = ByteBuffer()
        // A range and a lazy map have no contiguous storage: the byte-by-byte path is taken.
        buffer.writeBytes(UInt8(0)..<UInt8(200))
        buffer.writeBytes((0..<100).lazy.map { UInt8(255 - $0) })
        let expected = Array(UInt8(0)..<UInt8(200)) + (0..<100).map { UInt8(255 - $0) }
        #expect(buffer.readableBytesArray() == expected)
    }

    @Test func writeBytesFromRawPointerAndEmptyInputs() {
        var buffer = ByteBuffer()
        let source: [UInt8] = [1, 2, 3, 4]
        source.withUnsafeBytes { buffer.writeBytes($0) }
        [UInt8]().withUnsafeBytes { buffer.writeBytes($0) }
        buffer.writeBytes([UInt8]())
        buffer.writeString("")
        #expect(buffer.readableBytesArray() == source)
    }

    @Test func initialisersCopyTheirInput() {
        #expect(ByteBuffer(string: "héllo").readableBytesArray() == bytes("héllo"))
        #expect(ByteBuffer(bytes: [9, 8, 7]).readableBytesArray() == [9, 8, 7])
        #expect(ByteBuffer(bytes: UInt8(1)...UInt8(3)).readableBytesArray() == [1, 2, 3])
        #expect(ByteBuffer(string: "").readableBytes == 0)
    }

    @Test func readsAdvanceTheReaderIndex() {
        var buffer = ByteBuffer(string: "0123456789")
        let first = buffer.readSlice(count: 3)
        #expect(first.readableBytesArray() == bytes("012"))
        #expect(buffer.readerIndex == 3)
        #expect(buffer.writerIndex == 10)
        #expect(buffer.readableBytes == 7)
        #expect(buffer.byte(at: 0) == UInt8(ascii: "3"))
        #expect(buffer.byte(at: 6) == UInt8(ascii: "9"))
        #expect(buffer.byte(at: 7) == nil)
        #expect(buffer.byte(at: -1) == nil)
        buffer.moveReaderIndex(forwardBy: 2)
        #expect(buffer.readableBytesArray() == bytes("56789"))
        // readSlice asks for more than there is: it gets what there is.
        let rest = buffer.readSlice(count: 100)
        #expect(rest.readableBytesArray() == bytes("56789"))
        #expect(buffer.readableBytes == 0)
        #expect(buffer.readSlice(count: 5).readableBytes == 0)
    }

    @Test func moveReaderIndexByZeroChangesNothing() {
        var buffer = ByteBuffer(string: "abc")
        buffer.moveReaderIndex(forwardBy: 1)
        buffer.moveReaderIndex(forwardBy: 0)
        #expect(buffer.readerIndex == 1)
        #expect(buffer.readableBytesArray() == bytes("bc"))
    }

    // MARK: - Rewinding when emptied

    @Test func readingEverythingRewindsBothIndices() {
        var buffer = ByteBuffer(capacity: 16)
        buffer.writeString("hello")
        let capacity = buffer.capacity
        buffer.moveReaderIndex(forwardBy: 2)
        #expect(buffer.readerIndex == 2)
        buffer.moveReaderIndex(forwardBy: 3)
        #expect(buffer.readerIndex == 0)
        #expect(buffer.writerIndex == 0)
        #expect(buffer.writableBytes == capacity)
        #expect(buffer.capacity == capacity)
    }

    @Test func readSliceOfEverythingRewinds() {
        var buffer = ByteBuffer(string: "abcdef")
        buffer.moveReaderIndex(forwardBy: 1)
        _ = buffer.readSlice(count: 5)
        #expect(buffer.readerIndex == 0)
        #expect(buffer.writerIndex == 0)
    }

    @Test func rewindingDoesNotDisturbOutstandingSlices() {
        var buffer = ByteBuffer(capacity: 32)
        buffer.writeString("hello world")
        let hello = buffer.readSlice(count: 5)
        let rest = buffer.readSlice(count: 6)  // empties the buffer: indices rewind to 0
        #expect(buffer.writerIndex == 0)
        // This write lands where "hello" was in the old storage; the slices must not see it.
        buffer.writeString("XXXXXXXXXXXXXXXX")
        #expect(hello.readableBytesArray() == bytes("hello"))
        #expect(rest.readableBytesArray() == bytes(" world"))
        #expect(buffer.readableBytesArray() == bytes("XXXXXXXXXXXXXXXX"))
    }

    @Test func clearDiscardsBytesAndKeepsCapacity() {
        var buffer = ByteBuffer(string: "some bytes")
        buffer.moveReaderIndex(forwardBy: 3)
        let capacity = buffer.capacity
        buffer.clear()
        #expect(buffer.readerIndex == 0)
        #expect(buffer.writerIndex == 0)
        #expect(buffer.capacity == capacity)
        buffer.writeString("new")
        #expect(buffer.readableBytesArray() == bytes("new"))
    }

    // MARK: - Slices and copy-on-write

    @Test func sliceSharesStorageWithoutCopying() throws {
        let buffer = ByteBuffer(string: "0123456789")
        let slice = buffer.slice(offset: 3, count: 4)
        #expect(slice.readableBytesArray() == bytes("3456"))
        #expect(slice.readableBytes == 4)
        let base = try #require(readableBase(buffer))
        #expect(readableBase(slice) == base + 3)
        #expect(slice.capacity == buffer.capacity)
        let whole = buffer.slice(count: buffer.readableBytes)
        #expect(whole == buffer)
        #expect(buffer.slice(offset: 10, count: 0).readableBytes == 0)
    }

    @Test func sliceIsRelativeToTheReaderIndex() {
        var buffer = ByteBuffer(string: "abcdefgh")
        buffer.moveReaderIndex(forwardBy: 2)
        #expect(buffer.slice(count: 2).readableBytesArray() == bytes("cd"))
        #expect(buffer.slice(offset: 4, count: 2).readableBytesArray() == bytes("gh"))
    }

    @Test func readSliceSharesStorage() throws {
        var buffer = ByteBuffer(string: "abcdef")
        let base = try #require(readableBase(buffer))
        let piece = buffer.readSlice(count: 2)
        #expect(readableBase(piece) == base)
        #expect(readableBase(buffer) == base + 2)
    }

    @Test func slicesSurviveLaterWritesToTheOriginal() {
        var buffer = ByteBuffer(capacity: 1024)  // room to spare: a write would not need to grow
        buffer.writeString("abcdef")
        let slice = buffer.slice(offset: 1, count: 3)
        let copy = buffer
        buffer.writeString("ghij")
        #expect(slice.readableBytesArray() == bytes("bcd"))
        #expect(copy.readableBytesArray() == bytes("abcdef"))
        #expect(buffer.readableBytesArray() == bytes("abcdefghij"))
    }

    @Test func slicesSurviveInPlaceRewritingOfTheOriginal() {
        var buffer = ByteBuffer(string: "abcdef")
        let slice = buffer.slice(count: 6)
        buffer.withUnsafeMutableReadableBytes { bytes in
            for i in bytes.indices { bytes[i] = UInt8(ascii: "z") }
        }
        #expect(buffer.readableBytesArray() == bytes("zzzzzz"))
        #expect(slice.readableBytesArray() == bytes("abcdef"))
    }

    @Test func slicesSurviveCompactionOfTheOriginal() {
        var buffer = ByteBuffer(string: "0123456789")
        buffer.moveReaderIndex(forwardBy: 4)
        let slice = buffer.slice(count: 6)
        let head = ByteBuffer(string: "0123456789").slice(count: 4)
        buffer.compact()
        buffer.writeString("ab")
        #expect(slice.readableBytesArray() == bytes("456789"))
        #expect(head.readableBytesArray() == bytes("0123"))
        #expect(buffer.readableBytesArray() == bytes("456789ab"))
    }

    @Test func writingToASliceLeavesTheOriginalAlone() {
        var buffer = ByteBuffer(capacity: 64)
        buffer.writeString("abcdef")
        var slice = buffer.slice(count: 3)  // "abc", its writer index sits before "def"
        slice.writeString("XYZ")
        #expect(slice.readableBytesArray() == bytes("abcXYZ"))
        #expect(buffer.readableBytesArray() == bytes("abcdef"))
        slice.withUnsafeMutableReadableBytes { $0[0] = UInt8(ascii: "!") }
        #expect(buffer.readableBytesArray() == bytes("abcdef"))
    }

    @Test func uniqueBufferIsWrittenInPlace() throws {
        var buffer = ByteBuffer(capacity: 64)
        buffer.writeString("abc")
        let before = try #require(readableBase(buffer))
        buffer.writeString("def")
        buffer.withUnsafeMutableReadableBytes { $0[0] = UInt8(ascii: "A") }
        #expect(readableBase(buffer) == before)
        #expect(buffer.readableBytesArray() == bytes("Abcdef"))
    }

    @Test func copiesSentToOtherTasksAreIndependent() async {
        var original = ByteBuffer(capacity: 64)
        original.writeString("shared")
        let snapshot = original
        let results = await withTaskGroup(of: [UInt8].self) { group in
            for i in 0..<8 {
                group.addTask { [snapshot] in
                    var mine = snapshot
                    mine.writeString("-\(i)")
                    mine.withUnsafeMutableReadableBytes { $0[0] = UInt8(ascii: "S") }
                    return mine.readableBytesArray()
                }
            }
            var all: [[UInt8]] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(Set(results) == Set((0..<8).map { bytes("Shared-\($0)") }))
        #expect(original.readableBytesArray() == bytes("shared"))
        #expect(snapshot.readableBytesArray() == bytes("shared"))
    }

    // MARK: - Compaction

    @Test func compactMovesReadableBytesToTheFront() {
        var buffer = ByteBuffer(capacity: 32)
        buffer.writeString("0123456789")
        buffer.moveReaderIndex(forwardBy: 4)
        let capacity = buffer.capacity
        let writableBefore = buffer.writableBytes
        buffer.compact()
        #expect(buffer.readerIndex == 0)
        #expect(buffer.writerIndex == 6)
        #expect(buffer.capacity == capacity)
        #expect(buffer.writableBytes == writableBefore + 4)
        #expect(buffer.readableBytesArray() == bytes("456789"))
    }

    @Test func compactWithOverlappingRanges() {
        // Readable bytes longer than the gap: source and destination overlap.
        var buffer = ByteBuffer(capacity: 64)
        let content = (0..<40).map { UInt8($0) }
        buffer.writeBytes(content)
        buffer.moveReaderIndex(forwardBy: 3)
        buffer.compact()
        #expect(buffer.readableBytesArray() == Array(content[3...]))
        #expect(buffer.readerIndex == 0)
    }

    @Test func compactAtIndexZeroIsANoOp() throws {
        var buffer = ByteBuffer(string: "abc")
        let base = try #require(readableBase(buffer))
        buffer.compact()
        #expect(readableBase(buffer) == base)
        #expect(buffer.readableBytesArray() == bytes("abc"))
    }

    // MARK: - Capacity

    @Test func reserveWritableGrowsAndKeepsContent() {
        var buffer = ByteBuffer()
        buffer.writeString("keep me")
        for request in [1, 100, 4096, 1_000_000] {
            buffer.reserveWritable(request)
            #expect(buffer.writableBytes >= request)
            #expect(buffer.readableBytesArray() == bytes("keep me"))
        }
    }

    @Test func reserveWritableOnAnEmptyBuffer() {
        var buffer = ByteBuffer()
        buffer.reserveWritable(10)
        #expect(buffer.writableBytes >= 10)
        #expect(buffer.readableBytes == 0)
    }

    @Test func reserveWritableWithEnoughRoomChangesNothing() throws {
        var buffer = ByteBuffer(capacity: 100)
        buffer.writeString("abc")
        let capacity = buffer.capacity
        let base = try #require(readableBase(buffer))
        buffer.reserveWritable(buffer.writableBytes)
        #expect(buffer.capacity == capacity)
        #expect(readableBase(buffer) == base)
    }

    @Test func reserveWritableCompactsBeforeGrowing() {
        var buffer = ByteBuffer(capacity: 64)
        let capacity = buffer.capacity
        buffer.writeBytes([UInt8](repeating: 7, count: capacity))
        buffer.moveReaderIndex(forwardBy: capacity - 8)  // 8 readable bytes at the very end
        #expect(buffer.writableBytes == 0)
        buffer.reserveWritable(capacity - 8)  // fits once the discarded prefix is reused
        #expect(buffer.capacity == capacity)
        #expect(buffer.readerIndex == 0)
        #expect(buffer.readableBytesArray() == [UInt8](repeating: 7, count: 8))
        #expect(buffer.writableBytes >= capacity - 8)
    }

    @Test func reserveWritableOnASharedBufferCopies() {
        var buffer = ByteBuffer(capacity: 64)
        buffer.writeString("abcdef")
        buffer.moveReaderIndex(forwardBy: 2)
        let copy = buffer
        buffer.reserveWritable(1)
        buffer.writeString("g")
        #expect(buffer.readableBytesArray() == bytes("cdefg"))
        #expect(copy.readableBytesArray() == bytes("cdef"))
    }

    @Test func manySmallWritesGrowCorrectly() {
        var buffer = ByteBuffer()
        var expected: [UInt8] = []
        for i in 0..<10_000 {
            let byte = UInt8(truncatingIfNeeded: i &* 31)
            buffer.writeByte(byte)
            expected.append(byte)
            if i % 7 == 0 {
                buffer.moveReaderIndex(forwardBy: 1)
                expected.removeFirst()
            }
        }
        #expect(buffer.readableBytesArray() == expected)
    }

    // MARK: - Writing through a pointer

    @Test func withUnsafeMutableWritableBytesPartialWrite() {
        var buffer = ByteBuffer()
        buffer.writeString("ab")
        var regionSize = 0
        let written = buffer.withUnsafeMutableWritableBytes(minimumCapacity: 16) { region in
            regionSize = region.count
            region[0] = UInt8(ascii: "c")
            region[1] = UInt8(ascii: "d")
            region[2] = UInt8(ascii: "e")
            return 3  // only 3 of the 16+ bytes are used
        }
        #expect(written == 3)
        #expect(regionSize >= 16)
        #expect(buffer.writerIndex == 5)
        #expect(buffer.readableBytesArray() == bytes("abcde"))
        #expect(buffer.writableBytes == regionSize - 3)
    }

    @Test func withUnsafeMutableWritableBytesWritingNothing() {
        var buffer = ByteBuffer(string: "x")
        let written = buffer.withUnsafeMutableWritableBytes { _ in 0 }
        #expect(written == 0)
        #expect(buffer.readableBytesArray() == bytes("x"))
    }

    @Test func withUnsafeMutableWritableBytesFillsTheWholeRegion() {
        var buffer = ByteBuffer(capacity: 10)
        let n = buffer.withUnsafeMutableWritableBytes(minimumCapacity: 10) { region in
            for i in region.indices { region[i] = UInt8(truncatingIfNeeded: i) }
            return region.count
        }
        #expect(buffer.writableBytes == 0)
        #expect(buffer.readableBytesArray() == (0..<n).map { UInt8(truncatingIfNeeded: $0) })
    }

    struct Refused: Error, Equatable {}

    @Test func throwingWriterLeavesTheBufferAsItWas() {
        var buffer = ByteBuffer(string: "abc")
        #expect(throws: Refused.self) {
            try buffer.withUnsafeMutableWritableBytes { (region) throws(Refused) -> Int in
                region[0] = UInt8(ascii: "!")
                throw Refused()
            }
        }
        #expect(buffer.readableBytesArray() == bytes("abc"))
        #expect(buffer.writerIndex == 3)
    }

    @Test func writableRegionDoesNotAliasASharedCopy() {
        var buffer = ByteBuffer(capacity: 64)
        buffer.writeString("abc")
        let copy = buffer
        var slice = copy.slice(count: 3)
        buffer.withUnsafeMutableWritableBytes { region in
            region[0] = UInt8(ascii: "D")
            return 1
        }
        slice.writeString("E")
        #expect(buffer.readableBytesArray() == bytes("abcD"))
        #expect(slice.readableBytesArray() == bytes("abcE"))
        #expect(copy.readableBytesArray() == bytes("abc"))
    }

    // MARK: - Equality and hashing

    @Test func equalityIsOnReadableBytesOnly() {
        var a = ByteBuffer(capacity: 1000)
        a.writeString("XXhello")
        a.moveReaderIndex(forwardBy: 2)
        let b = ByteBuffer(string: "hello")
        let c = ByteBuffer(string: "say hello").slice(offset: 4, count: 5)
        #expect(a == b)
        #expect(b == c)
        #expect(a.hashValue == b.hashValue)
        #expect(b.hashValue == c.hashValue)
        #expect(Set([a, b, c]).count == 1)
        #expect(a != ByteBuffer(string: "hellO"))
        #expect(a != ByteBuffer(string: "hell"))
        #expect(a != ByteBuffer(string: "hello!"))
        #expect(ByteBuffer() == ByteBuffer(string: "abc").slice(offset: 3, count: 0))
    }

    @Test func descriptionNamesTheIndices() {
        var buffer = ByteBuffer(string: "abcd")
        buffer.moveReaderIndex(forwardBy: 1)
        let text = buffer.description
        #expect(text.contains("readable: 3"))
        #expect(text.contains("reader: 1"))
        #expect(text.contains("writer: 4"))
    }

    // MARK: - Preconditions

    @Test func movingPastTheReadableBytesTraps() async {
        await #expect(processExitsWith: .failure) {
            var buffer = ByteBuffer(string: "abc")
            buffer.moveReaderIndex(forwardBy: 4)
        }
    }

    @Test func sliceOutOfRangeTraps() async {
        await #expect(processExitsWith: .failure) {
            let buffer = ByteBuffer(string: "abc")
            _ = buffer.slice(offset: 2, count: 2)
        }
    }

    @Test func claimingToWriteMoreThanTheRegionTraps() async {
        await #expect(processExitsWith: .failure) {
            var buffer = ByteBuffer(capacity: 4)
            buffer.withUnsafeMutableWritableBytes { region in region.count + 1 }
        }
    }
}
