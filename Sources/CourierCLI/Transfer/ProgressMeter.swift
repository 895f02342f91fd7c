import Courier
#if canImport(Glibc)
import Glibc
#endif

/// The progress bar on stderr: drawn only when stderr is a terminal, never with `-s` or `-v`,
/// and, as curl's meter, only while the body is not going to that terminal itself (or with `-#`).
/// When the size is unknown — chunked framing, or a coding Courier undoes (`--compressed`), where
/// Content-Length counts the compressed bytes — it says so and counts bytes instead of
/// pretending to a percentage.
final class ProgressMeter {
    let enabled: Bool
    private var expected: Int64?
    private var unknownBecause = ""
    private var received: Int64 = 0
    private var lastDraw: ContinuousClock.Instant?
    private var drew = false

    init(options: CurlOptions, toStandardOutput: Bool) {
        enabled = isatty(2) == 1 && !options.silent && !options.verbose && (options.progressBar || !toStandardOutput || isatty(1) == 0)
    }

    func start(_ response: Response, decoding: Bool) {
        received = 0
        let length = response.expectedContentLength
        let coded = response.value(forHTTPHeaderField: "Content-Encoding").map { !$0.isEmpty && $0.lowercased() != "identity" } ?? false
        if length < 0 {
            expected = nil
            unknownBecause = response.value(forHTTPHeaderField: "Transfer-Encoding") != nil ? "chunked" : "no length"
        } else if coded && decoding {
            expected = nil
            unknownBecause = "compressed"
        } else {
            expected = length
        }
    }

    func update(_ count: Int) {
        guard enabled else { return }
        received += Int64(count)
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        draw()
    }

    func finish() {
        guard enabled, drew else { return }
        draw()
        StandardError.write("\n")
    }

    private func draw() {
        drew = true
        if let expected, expected > 0 {
            let fraction = min(1, Double(received) / Double(expected))
            let filled = Int(fraction * 40)
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 40 - filled)
            StandardError.write("\r[\(bar)] \(Int(fraction * 100))% \(Self.size(received))/\(Self.size(expected))")
        } else {
            StandardError.write("\r\(Self.size(received)) received (size unknown: \(unknownBecause))")
        }
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return "\(bytes / 1024) KiB" }
        let mebibytes = Double(bytes) / 1_048_576
        return "\(Int(mebibytes)).\(Int(mebibytes * 10) % 10) MiB"
    }
}
