/// A High Dynamic Range histogram with HdrHistogram's bucket layout (the Java original's
/// `AbstractHistogram`), so its counts encode into the same V2 payload HdrHistogram's own tools
/// read (``HDRHistogramCodec``) and two of them add bucket for bucket.
///
/// Values from 1 to ``highestTrackableValue`` are kept to `significantDigits` decimal digits of
/// precision (1–5): any value is counted in a bucket no wider than 10^-digits of it. The counts
/// array covers only the half-buckets from the smallest to the largest value recorded so far and
/// grows a half-bucket at a time at either end, so memory follows the values seen, not the range
/// (`courier bench` keeps a score of histograms with an hour's range each, and at sub-millisecond
/// latencies the lower half of the buckets is as empty as everything above). ``record(_:)``
/// allocates only when a value lands outside every earlier one's half-buckets, and never locks
/// (one histogram per thread, added together at the end: ``add(_:)``).
struct HDRHistogram: Sendable, Equatable {
    let lowestDiscernibleValue: Int64
    let highestTrackableValue: Int64
    let significantDigits: Int
    let unitMagnitude: Int
    let subBucketHalfCountMagnitude: Int
    let subBucketCount: Int
    let subBucketHalfCount: Int
    let subBucketMask: Int64
    let bucketCount: Int
    /// The counts of indexes `storageStart..<storageStart + storage.count`, whole half-buckets;
    /// every other index counts 0.
    private var storage: [Int64] = []
    private var storageStart = 0
    /// How many buckets the layout has: every value up to ``highestTrackableValue`` has one.
    let countsLength: Int
    private(set) var totalCount: Int64 = 0
    private(set) var maxValue: Int64 = 0
    private(set) var minNonZeroValue: Int64 = .max
    /// Values above ``highestTrackableValue``, counted at it.
    private(set) var clampedCount: Int64 = 0

    /// - Parameters:
    ///   - lowestDiscernibleValue: the smallest value told apart from 0 (≥ 1).
    ///   - highestTrackableValue: the largest value kept exactly (≥ 2 × lowest); larger ones are
    ///     counted at it.
    ///   - significantDigits: decimal digits of precision, 1 to 5.
    init(lowestDiscernibleValue: Int64 = 1, highestTrackableValue: Int64, significantDigits: Int) {
        precondition(lowestDiscernibleValue >= 1 && highestTrackableValue >= 2 * lowestDiscernibleValue)
        precondition((1...5).contains(significantDigits), "HdrHistogram keeps 1 to 5 significant digits")
        self.lowestDiscernibleValue = lowestDiscernibleValue
        self.highestTrackableValue = highestTrackableValue
        self.significantDigits = significantDigits
        var power: Int64 = 1
        for _ in 0..<significantDigits { power *= 10 }
        let largestValueWithSingleUnitResolution = 2 * power
        unitMagnitude = 63 - lowestDiscernibleValue.leadingZeroBitCount
        // ceil(log2(largestValueWithSingleUnitResolution))
        let subBucketCountMagnitude = 64 - (largestValueWithSingleUnitResolution - 1).leadingZeroBitCount
        subBucketHalfCountMagnitude = max(subBucketCountMagnitude, 1) - 1
        subBucketCount = 1 << (subBucketHalfCountMagnitude + 1)
        subBucketHalfCount = subBucketCount / 2
        subBucketMask = Int64(subBucketCount - 1) << unitMagnitude
        var smallestUntrackableValue = Int64(subBucketCount) << unitMagnitude
        var buckets = 1
        while smallestUntrackableValue <= highestTrackableValue {
            if smallestUntrackableValue > Int64.max / 2 { buckets += 1; break }
            smallestUntrackableValue <<= 1
            buckets += 1
        }
        bucketCount = buckets
        countsLength = (bucketCount + 1) * subBucketHalfCount
    }

    /// An empty histogram with the same layout.
    func emptyCopy() -> HDRHistogram {
        HDRHistogram(lowestDiscernibleValue: lowestDiscernibleValue, highestTrackableValue: highestTrackableValue, significantDigits: significantDigits)
    }

    /// The count at `index` (`0..<countsLength`).
    func count(at index: Int) -> Int64 {
        let offset = index &- storageStart
        return offset >= 0 && offset < storage.count ? storage[offset] : 0
    }

    /// How many counts are held (the rest are 0).
    var storedCounts: Int { storage.count }

    /// Every bucket's count, `countsLength` of them (for tests and reports; allocates).
    var counts: [Int64] {
        var all = [Int64](repeating: 0, count: countsLength)
        all.replaceSubrange(storageStart..<storageStart + storage.count, with: storage)
        return all
    }

    /// The stored counts with their indexes.
    private var stored: some Sequence<(index: Int, count: Int64)> {
        storage.enumerated().lazy.map { [storageStart] in (index: storageStart + $0.offset, count: $0.element) }
    }

    /// Makes room for the count at `index`: the storage is extended to the half-bucket holding it
    /// (so a histogram grows at most once per half-bucket: about 40 times over its whole range).
    private mutating func reserve(covering index: Int) {
        let start = (index >> subBucketHalfCountMagnitude) << subBucketHalfCountMagnitude
        let end = min(countsLength, start + subBucketHalfCount)
        if storage.isEmpty {
            storageStart = start
            storage = [Int64](repeating: 0, count: end - start)
        } else if index < storageStart {
            storage.insert(contentsOf: repeatElement(0, count: storageStart - start), at: 0)
            storageStart = start
        } else if index >= storageStart + storage.count {
            storage.append(contentsOf: repeatElement(0, count: end - storageStart - storage.count))
        }
    }

    static func == (left: HDRHistogram, right: HDRHistogram) -> Bool {
        guard left.lowestDiscernibleValue == right.lowestDiscernibleValue && left.highestTrackableValue == right.highestTrackableValue
            && left.significantDigits == right.significantDigits && left.totalCount == right.totalCount
            && left.maxValue == right.maxValue && left.minNonZeroValue == right.minNonZeroValue
            && left.clampedCount == right.clampedCount
        else { return false }
        let low = min(left.storageStart, right.storageStart)
        let high = max(left.storageStart + left.storage.count, right.storageStart + right.storage.count)
        for index in low..<high where left.count(at: index) != right.count(at: index) {
            return false
        }
        return true
    }

    /// Where `value` is counted.
    func index(of value: Int64) -> Int {
        // Wrapping arithmetic and masking shifts (three histograms take a value per request, and
        // the checked forms cost half the recording): for a value in 0...highestTrackableValue,
        // as `record` clamps it, `bucketIndex` is in 0..<bucketCount and every shift is below 64.
        let bucketIndex = (64 &- unitMagnitude &- subBucketHalfCountMagnitude &- 1) &- (value | subBucketMask).leadingZeroBitCount
        let subBucketIndex = Int(truncatingIfNeeded: value &>> Int64(bucketIndex &+ unitMagnitude))
        return ((bucketIndex &+ 1) &<< subBucketHalfCountMagnitude) &+ (subBucketIndex &- subBucketHalfCount)
    }

    /// The lowest value counted at `index`.
    func value(at index: Int) -> Int64 {
        var bucketIndex = (index >> subBucketHalfCountMagnitude) - 1
        var subBucketIndex = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucketIndex < 0 {
            subBucketIndex -= subBucketHalfCount
            bucketIndex = 0
        }
        return Int64(subBucketIndex) << Int64(bucketIndex + unitMagnitude)
    }

    /// The width of the bucket `value` falls in.
    func sizeOfEquivalentRange(_ value: Int64) -> Int64 {
        let bucketIndex = (64 - unitMagnitude - subBucketHalfCountMagnitude - 1) - (value | subBucketMask).leadingZeroBitCount
        let subBucketIndex = Int(truncatingIfNeeded: value >> Int64(bucketIndex + unitMagnitude))
        let adjusted = subBucketIndex >= subBucketCount ? bucketIndex + 1 : bucketIndex
        return Int64(1) << Int64(unitMagnitude + adjusted)
    }

    func lowestEquivalentValue(_ value: Int64) -> Int64 { self.value(at: index(of: value)) }

    func highestEquivalentValue(_ value: Int64) -> Int64 {
        lowestEquivalentValue(value) + sizeOfEquivalentRange(value) - 1
    }

    /// Counts `value` (`count` times). Negative values count as 0; values above the trackable
    /// range count at its top (and in ``clampedCount``). No allocation.
    mutating func record(_ value: Int64, count: Int64 = 1) {
        var value = max(value, 0)
        if value > highestTrackableValue {
            value = highestTrackableValue
            clampedCount &+= count
        }
        let index = index(of: value)
        var offset = index &- storageStart
        if offset < 0 || offset >= storage.count {
            reserve(covering: index)
            offset = index &- storageStart
        }
        storage[offset] &+= count
        totalCount &+= count
        if value > maxValue { maxValue = value }
        if value != 0 && value < minNonZeroValue { minNonZeroValue = value }
    }

    /// Adds the counts of `other`, which must have the same layout. No allocation unless `other`
    /// holds a value outside the half-buckets counted here.
    mutating func add(_ other: HDRHistogram) {
        precondition(other.countsLength == countsLength && other.unitMagnitude == unitMagnitude && other.subBucketCount == subBucketCount)
        guard other.totalCount > 0, let first = other.storage.firstIndex(where: { $0 != 0 }),
            let last = other.storage.lastIndex(where: { $0 != 0 })
        else { return }
        reserve(covering: other.storageStart + first)
        reserve(covering: other.storageStart + last)
        let shift = other.storageStart - storageStart
        for offset in first...last where other.storage[offset] != 0 { storage[offset + shift] &+= other.storage[offset] }
        totalCount &+= other.totalCount
        clampedCount &+= other.clampedCount
        maxValue = max(maxValue, other.maxValue)
        minNonZeroValue = min(minNonZeroValue, other.minNonZeroValue)
    }

    /// Sets the count at `index` (decoding).
    mutating func setCount(_ count: Int64, at index: Int) {
        reserve(covering: index)
        storage[index - storageStart] = count
    }

    /// Recomputes the total, max and min from the counts (after decoding).
    mutating func recomputeSummary() {
        totalCount = 0
        maxValue = 0
        minNonZeroValue = .max
        for (index, count) in stored where count != 0 {
            totalCount &+= count
            let low = value(at: index)
            maxValue = low
            if low != 0 && minNonZeroValue == .max { minNonZeroValue = low }
        }
    }

    /// Empties it, keeping the storage.
    mutating func reset() {
        guard totalCount > 0 else { return }
        for offset in storage.indices { storage[offset] = 0 }
        totalCount = 0
        clampedCount = 0
        maxValue = 0
        minNonZeroValue = .max
    }

    /// The value at `percentile` (0–100): the highest value equivalent to the bucket where the
    /// running count reaches `percentile`% of the total (rounded to the nearest count, at least
    /// one), as HdrHistogram's Python and C ports compute it; 0 when empty.
    func value(atPercentile percentile: Double) -> Int64 {
        guard totalCount > 0 else { return 0 }
        let requested = min(max(percentile, 0), 100)
        let target = max(Int64((requested * Double(totalCount) / 100) + 0.5), 1)
        var running: Int64 = 0
        for (index, count) in stored where count != 0 {
            running += count
            if running >= target {
                let low = value(at: index)
                return requested == 0 ? low : highestEquivalentValue(low)
            }
        }
        return 0
    }

    /// The mean of the counted values (each at the middle of its bucket).
    var mean: Double {
        guard totalCount > 0 else { return 0 }
        var sum = 0.0
        for (index, count) in stored where count != 0 {
            let low = value(at: index)
            let middle = Double(low) + Double(sizeOfEquivalentRange(low) - 1) / 2
            sum += middle * Double(count)
        }
        return sum / Double(totalCount)
    }

    /// The largest counted value as HdrHistogram reports it (the top of its bucket).
    var reportedMax: Int64 { totalCount == 0 ? 0 : highestEquivalentValue(maxValue) }
}
