#if canImport(Glibc)
import Glibc
#endif

/// Counts this process's open file descriptors, for "no leaked fds" checks.
///
/// The count is process-wide: tests that compare counts must not run in parallel with other
/// tests that open descriptors (put them in a `.serialized` suite, or run with `--no-parallel`).
public enum FileDescriptors {
    /// The number of entries in `/proc/self/fd`, not counting the directory stream used to read it.
    public static func openCount() -> Int {
        openDescriptors().count
    }

    /// The open descriptor numbers, not counting the directory stream used to list them.
    public static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var result: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                // Safe: d_name is a NUL-terminated array inside the dirent, valid until the next readdir.
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let fd = Int32(name), fd != own else { continue }
            result.append(fd)
        }
        return result.sorted()
    }

    /// What descriptor `fd` refers to (the `/proc/self/fd` link target, e.g. `socket:[1234]`).
    public static func describe(_ fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0 else { return "?" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `body` and checks that the process has no more open descriptors afterwards than before.
    ///
    /// Descriptors closed asynchronously (by an event loop, say) may take a moment, so the check
    /// retries until `settle` has passed before it reports a leak.
    ///
    /// - Throws: ``DescriptorLeak`` listing the extra descriptors, or whatever `body` throws.
    @discardableResult
    public static func expectNoLeakedDescriptors<T>(
        settle: Duration = .seconds(2),
        _ body: () throws -> T
    ) throws -> T {
        let before = openDescriptors()
        let result = try body()
        try check(before: before, settle: settle)
        return result
    }

    /// The `async` form of ``expectNoLeakedDescriptors(settle:_:)``.
    @discardableResult
    public static func expectNoLeakedDescriptors<T>(
        settle: Duration = .seconds(2),
        _ body: () async throws -> T
    ) async throws -> T {
        let before = openDescriptors()
        let result = try await body()
        try check(before: before, settle: settle)
        return result
    }

    /// libdispatch's epoll backend opens one `timerfd` per clock (uptime, monotonic, wall) the
    /// first time any code in the process arms a timer on that clock, and keeps it for the life
    /// of the process. A test running in parallel can be the first to arm one while a block is
    /// being counted, so new timer descriptors are not a leak while the process has at most that
    /// many. Courier itself never opens a `timerfd`.
    static let dispatchTimerDescriptors = 3

    private static func timerCount(_ descriptors: [Int32]) -> Int {
        descriptors.count { describe($0) == "anon_inode:[timerfd]" }
    }

    private static func check(before: [Int32], settle: Duration) throws(DescriptorLeak) {
        let timersBefore = timerCount(before)
        let deadline = ContinuousClock.now + settle
        while true {
            let after = openDescriptors()
            let timersAfter = timerCount(after)
            let excused = timersAfter <= dispatchTimerDescriptors ? max(0, timersAfter - timersBefore) : 0
            if after.count - excused <= before.count { return }
            if ContinuousClock.now >= deadline {
                let extra = Set(after).subtracting(before).sorted()
                throw DescriptorLeak(
                    before: before.count, after: after.count,
                    extra: extra.map { "\($0) -> \(describe($0))" })
            }
            // Waiting for another thread's close, with a deadline: there is no event to wait on.
            usleep(10_000)
        }
    }
}

/// More descriptors were open after a block than before it.
public struct DescriptorLeak: Error, Sendable, CustomStringConvertible {
    public let before: Int
    public let after: Int
    /// The new descriptors and what they point to, e.g. `"17 -> socket:[4242]"`.
    public let extra: [String]

    public var description: String {
        "leaked \(after - before) file descriptor(s) (\(before) before, \(after) after): \(extra.joined(separator: ", "))"
    }
}
