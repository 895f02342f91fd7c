#if canImport(Glibc)
import Glibc
#endif
import CourierTestSupport
import Testing

extension SupportTests {
    /// `remove()` takes the whole tree, and nothing a link inside it points to.
    @Test func aScratchDirectoryIsRemovedWithoutFollowingLinks() throws {
        let outside = try ScratchDirectory("outside")
        defer { outside.remove() }
        let kept = try outside.write("kept.txt", Array("still here".utf8))

        let scratch = try ScratchDirectory("tree")
        #expect(scratch.path.contains("/courier-tree-"))
        try scratch.write("a.txt", Array("a".utf8))
        #expect(mkdir(scratch.path + "/sub", 0o700) == 0)
        #expect(mkdir(scratch.path + "/sub/deeper", 0o700) == 0)
        let deeper = scratch.path + "/sub/deeper/b.txt"
        let file = open(deeper, O_WRONLY | O_CREAT, 0o600)
        #expect(file >= 0)
        close(file)
        // Links to the outside directory and to its file: removed as links, their targets kept.
        #expect(symlink(outside.path, scratch.path + "/sub/to-outside") == 0)
        #expect(symlink(kept, scratch.path + "/to-kept") == 0)
        // A name that is not UTF-8.
        var name = Array((scratch.path + "/odd-").utf8CString.dropLast())
        name += [CChar(bitPattern: 0xFF), 0]
        let descriptor = open(name, O_WRONLY | O_CREAT, 0o600)
        #expect(descriptor >= 0)
        close(descriptor)

        scratch.remove()
        var info = stat()
        #expect(lstat(scratch.path, &info) != 0, "the tree is gone")
        #expect(TestFiles.text(at: kept) == "still here", "a link's target is left alone")
    }
}
