import CCourierLinux
@testable import CourierPosix
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Pinning a group's loop threads to CPUs (`courier bench` pins its client's loops).
@Suite struct EventLoopAffinityTests {
    /// The CPUs the calling thread may run on.
    static func callingThreadCPUs() -> [Int] {
        var set = cpu_set_t()
        guard sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0 else { return [] }
        var cpus: [Int] = []
        withUnsafeBytes(of: &set) { bytes in
            for (index, byte) in bytes.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (1 << bit) != 0 { cpus.append(index * 8 + bit) }
            }
        }
        return cpus
    }

    @Test func eachLoopRunsOnTheCPUItWasGiven() throws {
        // The group's descriptors are opened under the descriptor lock (and checked): a test
        // counting descriptors meanwhile would take them for its leak.
        try expectNoLeakedDescriptors { try Self.pinning() }
    }

    private static func pinning() throws {
        let allowed = try EventLoopGroup.allowedCPUs()
        #expect(!allowed.isEmpty)
        #expect(allowed == Self.callingThreadCPUs())
        let group = try EventLoopGroup(numberOfThreads: allowed.count + 1)
        defer { group.shutdown() }
        let assigned = try group.pinLoopsToCPUs()
        // Round-robin over the allowed CPUs, the extra loop sharing the first.
        #expect(assigned == allowed + [allowed[0]])
        for (loop, cpu) in zip(group.loops, assigned) {
            let seen = loop.submitAndWait { EventLoopAffinityTests.callingThreadCPUs() }
            #expect(seen == [cpu])
        }
        // The caller's own thread is not moved.
        #expect(Self.callingThreadCPUs() == allowed)
    }
}
