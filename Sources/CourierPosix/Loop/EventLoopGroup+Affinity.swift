#if canImport(Glibc)
import Glibc
#endif
import CCourierLinux
import CourierCore

extension EventLoopGroup {
    /// The CPUs this process may run on (`sched_getaffinity(2)`), ascending.
    public static func allowedCPUs() throws(PosixError) -> [Int] {
        var set = cpu_set_t()
        guard sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0 else {
            throw PosixError(code: errno, call: "sched_getaffinity")
        }
        var cpus: [Int] = []
        // Safe: the bytes of a local value, read only inside the closure.
        withUnsafeBytes(of: &set) { bytes in
            for (index, byte) in bytes.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (1 << bit) != 0 { cpus.append(index * 8 + bit) }
            }
        }
        return cpus
    }

    /// Binds each loop's thread to one CPU (`sched_setaffinity(2)` on that thread): loop *i* to
    /// the *i*-th of ``allowedCPUs()``, round-robin when there are more loops than CPUs. For a
    /// load generator, which wants its loops to stay on their cores. Returns the CPU of each loop.
    @discardableResult
    public func pinLoopsToCPUs() throws(PosixError) -> [Int] {
        let allowed = try EventLoopGroup.allowedCPUs()
        guard !allowed.isEmpty else { return [] }
        var assigned: [Int] = []
        for (index, loop) in loops.enumerated() {
            let cpu = allowed[index % allowed.count]
            let code = loop.submitAndWait { EventLoopGroup.bindCallingThread(to: cpu) }
            guard code == 0 else { throw PosixError(code: code, call: "sched_setaffinity") }
            assigned.append(cpu)
        }
        return assigned
    }

    /// Binds the calling thread to `cpu`; 0 or the errno.
    private static func bindCallingThread(to cpu: Int) -> Int32 {
        var set = cpu_set_t()
        guard cpu >= 0 && cpu < MemoryLayout<cpu_set_t>.size * 8 else { return EINVAL }
        // Safe: a local value's bytes, written inside the closure at an index checked above.
        withUnsafeMutableBytes(of: &set) { bytes in bytes[cpu / 8] |= UInt8(1 << (cpu % 8)) }
        return sched_setaffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0 ? 0 : errno
    }
}
