import Courier
import CourierCore
import Glibc
import Synchronization

/// Draws a progress bar on one terminal line (or, when stdout is not a terminal, a line every
/// quarter of the way). An unknown total is shown as bytes so far, never as a made-up percentage.
final class ProgressBar: Sendable {
    private let label: String
    private let interactive = isatty(STDOUT_FILENO) == 1
    private let lastQuarter = Mutex(-1)

    init(label: String) {
        self.label = label
    }

    func update(_ snapshot: TaskProgress.Snapshot) {
        let text: String
        if let fraction = snapshot.fractionCompleted {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            text = "\(label) [\(bar)] \(Int(fraction * 100))% \(mebibytes(snapshot.completedUnitCount))/\(mebibytes(snapshot.totalUnitCount)) MiB"
        } else {
            text = "\(label) [size unknown: content-coded] \(mebibytes(snapshot.completedUnitCount)) MiB decoded so far"
        }
        if interactive {
            print("\r\u{1B}[2K" + text, terminator: snapshot.isFinished ? "\n" : "")
            fflush(nil)
            return
        }
        // Known totals: a line per quarter (0–4). Unknown: a line per 8 MiB, and the last one.
        let step = snapshot.fractionCompleted.map { Int($0 * 4) } ?? Int(snapshot.completedUnitCount / (8 * 1024 * 1024))
        let show = lastQuarter.withLock { last -> Bool in
            if snapshot.isFinished {
                guard last != Int.max, !(snapshot.fractionCompleted != nil && last == 4) else { return false }
                last = Int.max
                return true
            }
            guard step > last else { return false }
            last = step
            return true
        }
        if show { print(text) }
    }

    private func mebibytes(_ bytes: Int64) -> String {
        let value = Double(bytes) / 1_048_576
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
