import CourierCore
import CourierTestSupport
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Samples this process's resident set once a second on a queue of its own.
final class RSSSampler {
    private final class Samples: Sendable {
        let values = Mutex<[Int]>([])
    }

    private let samples = Samples()
    private let queue = DispatchQueue(label: "soak.rss")
    private let timer: DispatchSourceTimer

    init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .seconds(1))
        timer.setEventHandler { [samples] in
            let resident = ProcessMemory.resident
            samples.values.withLock { $0.append(resident) }
        }
        timer.resume()
    }

    /// Stops sampling (it opens /proc/self/status for a moment each time, which would disturb
    /// the descriptor count) and returns one sample per second, in bytes.
    func stop() -> [Int] {
        timer.cancel()
        queue.sync {}
        samples.values.withLock { $0.append(ProcessMemory.resident) }
        return samples.values.withLock { $0 }
    }
}

/// The RSS curve of a phase, judged after warm-up (its first fifth).
struct RSSCurve {
    let samples: [Int]

    var start: Int { samples.first ?? 0 }
    var end: Int { samples.last ?? 0 }
    var maximum: Int { samples.max() ?? 0 }
    /// The last sample of the warm-up.
    var afterWarmUp: Int { samples.isEmpty ? 0 : samples[min(samples.count - 1, max(0, samples.count / 5))] }
    /// The largest growth past the warm-up value.
    var growthAfterWarmUp: Int {
        guard !samples.isEmpty else { return 0 }
        let from = min(samples.count - 1, max(0, samples.count / 5))
        return (samples[from...].max() ?? 0) - samples[from]
    }

    /// Up to `points` evenly spaced samples, in MiB, for the report.
    func sketch(points: Int = 12) -> String {
        guard samples.count > 1 else { return samples.map { mib($0) }.joined() }
        let step = max(1, samples.count / points)
        var picked = stride(from: 0, to: samples.count, by: step).map { samples[$0] }
        if (samples.count - 1) % step != 0 { picked.append(samples[samples.count - 1]) }
        return picked.map { mib($0) }.joined(separator: " ")
    }
}

func mib(_ bytes: Int) -> String {
    let tenths = (bytes * 10 + 512 * 1024) / (1024 * 1024)
    return "\(tenths / 10).\(tenths % 10)"
}

/// Descriptor counts around a phase: the count before it, and after its client is shut down
/// (waiting up to `settle` for descriptors that are closed on another thread).
enum DescriptorCheck {
    /// Makes libdispatch open what it opens once per process (its timer machinery) before the
    /// first count, so that does not look like a leak.
    static func warmUpDispatch() {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { done.signal() }
        done.wait()
    }

    static func after(before: Int, settle: TimeAmount = .seconds(5)) -> (count: Int, extra: [String]) {
        let deadline = Deadline.now() + settle
        var open = FileDescriptors.openDescriptors()
        while open.count > before, !deadline.hasPassed {
            // Waiting for closes on other threads, with a deadline: there is no event to wait on.
            usleep(20_000)
            open = FileDescriptors.openDescriptors()
        }
        return (open.count, open.count > before ? open.map { "\($0) -> \(FileDescriptors.describe($0))" } : [])
    }
}
