#if canImport(Glibc)
import Glibc
#endif

/// This process's resident memory, from /proc/self/status (the memory-bound tests and the soak
/// driver's RSS curve).
public enum ProcessMemory {
    /// VmRSS (current) or VmHWM (peak since the last reset), in bytes.
    public static func read(_ field: String) -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix(field + ":") else { continue }
            let digits = text.dropFirst(field.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    public static var resident: Int { read("VmRSS") ?? 0 }
    public static var peak: Int { read("VmHWM") ?? 0 }

    /// Resets the peak (VmHWM) to the current RSS (Linux ≥ 4.0: "5" into clear_refs).
    public static func resetPeak() -> Bool {
        guard let file = fopen("/proc/self/clear_refs", "w") else { return false }
        defer { fclose(file) }
        return fputs("5", file) >= 0
    }
}
