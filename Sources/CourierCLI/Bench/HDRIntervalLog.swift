#if canImport(Glibc)
import Glibc
#endif

/// HdrHistogram's interval log (the Java original's `HistogramLogWriter`, format version 1.3),
/// which HdrHistogram's own tools read and merge (`HistogramLogProcessor`, the Python
/// `hdrhistogram` package's `HistogramLogReader`):
///
/// ```
/// #[Histogram log format version 1.3]
/// #[StartTime: 1795838400.000 (seconds since epoch), 2026-11-28T04:00:00Z]
/// #[BaseTime: 1795838400.000 (seconds since epoch)]
/// "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
/// 0.000,1.000,12.345,HISTFAAAA…
/// ```
///
/// Each interval line: its start in seconds after BaseTime, its length in seconds, its largest
/// value in milliseconds (values are nanoseconds; HdrHistogram's default unit ratio of 10^6),
/// and the interval's histogram (``HDRHistogramCodec``). BaseTime is the run's wall-clock start,
/// so the logs of runs on several machines line up in absolute time.
struct HDRIntervalLog {
    private let descriptor: Int32

    /// Opens (truncating) `path` and writes the header; `startTime` in seconds since the epoch.
    init(path: String, startTime: Double, comment: String) throws(BenchError) {
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw BenchError.file(path, errno) }
        descriptor = opened
        Output.write(HDRIntervalLog.header(startTime: startTime, comment: comment), to: descriptor)
    }

    static func header(startTime: Double, comment: String) -> String {
        let start = TextFormat.fixed(startTime, 3)
        return "#\(comment)\n"
            + "#[Histogram log format version 1.3]\n"
            + "#[StartTime: \(start) (seconds since epoch), \(TextFormat.iso8601(startTime))]\n"
            + "#[BaseTime: \(start) (seconds since epoch)]\n"
            + "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"
    }

    static func line(start: Double, length: Double, histogram: HDRHistogram) -> String {
        let maxMilliseconds = Double(histogram.reportedMax) / 1_000_000
        return "\(TextFormat.fixed(start, 3)),\(TextFormat.fixed(length, 3)),\(TextFormat.fixed(maxMilliseconds, 3)),\(HDRHistogramCodec.encode(histogram))\n"
    }

    /// Appends one interval (`start` seconds after the start time, `length` seconds long).
    func append(start: Double, length: Double, histogram: HDRHistogram) {
        Output.write(HDRIntervalLog.line(start: start, length: length, histogram: histogram), to: descriptor)
    }

    func close() { _ = Glibc.close(descriptor) }
}
