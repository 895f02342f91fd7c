@testable import CourierCLI
import CourierTestSupport
import Testing

/// The HDR histogram: HdrHistogram's bucket layout, recording, adding, percentiles, and the V2
/// compressed encoding of its interval logs (round trip, exact bytes of the varints, and
/// hostile input ending in a typed error).
@Suite struct HDRHistogramTests {
    @Test func layoutMatchesHdrHistogramForThreeDigits() {
        let histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: 3)
        // Java's AbstractHistogram for (1, 3.6e12, 3): 2048 sub-buckets, 32 buckets.
        #expect(histogram.subBucketCount == 2048)
        #expect(histogram.unitMagnitude == 0)
        #expect(histogram.bucketCount == 32)
        #expect(histogram.countsLength == 33 * 1024)
        // Values below 2048 are exact; above, buckets widen by powers of two.
        #expect(histogram.index(of: 2047) == 2047)
        #expect(histogram.value(at: 2047) == 2047)
        #expect(histogram.index(of: 2048) == 2048)
        #expect(histogram.index(of: 2049) == 2048)
        #expect(histogram.value(at: 2048) == 2048)
        #expect(histogram.highestEquivalentValue(2048) == 2049)
        #expect(histogram.lowestEquivalentValue(1_000_001) == 999_936)
        #expect(histogram.highestEquivalentValue(1_000_000) == 1_000_447)
    }

    @Test func everyValueIsKeptToItsSignificantDigits() {
        var random = SplitMix64(seed: 13)
        for digits in 1...5 {
            let histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: digits)
            var power = 1.0
            for _ in 0..<digits { power *= 10 }
            for _ in 0..<2_000 {
                let value = Int64(random.next() % 3_600_000_000_000) + 1
                let low = histogram.lowestEquivalentValue(value)
                let high = histogram.highestEquivalentValue(value)
                #expect(low <= value && value <= high)
                #expect(Double(high - low) <= Double(value) / power)
            }
        }
    }

    @Test func percentilesCountAndMax() {
        var histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: 3)
        for value in 1...1000 { histogram.record(Int64(value)) }
        #expect(histogram.totalCount == 1000)
        #expect(histogram.value(atPercentile: 50) == 500)
        #expect(histogram.value(atPercentile: 99) == 990)
        #expect(histogram.value(atPercentile: 100) == 1000)
        #expect(histogram.reportedMax == 1000)
        histogram.record(5_000_000_000_000)
        #expect(histogram.clampedCount == 1)
        #expect(histogram.maxValue == 3_600_000_000_000)
        var other = histogram.emptyCopy()
        other.record(7, count: 3)
        histogram.add(other)
        #expect(histogram.totalCount == 1004)
        #expect(histogram.counts[7] == 4)
        histogram.reset()
        #expect(histogram.totalCount == 0 && histogram.counts.allSatisfy { $0 == 0 })
        #expect(histogram.value(atPercentile: 50) == 0)
    }

    /// Memory follows the largest value recorded, a bucket at a time, not the hour-long range:
    /// `courier bench` keeps a score of these, and most of their range is never reached.
    @Test func theCountsGrowWithTheLargestValueOnly() throws {
        var histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: 3)
        #expect(histogram.storedCounts == 0 && histogram.countsLength == 33 * 1024)
        histogram.record(100)
        #expect(histogram.storedCounts == 1024)
        histogram.record(1_000_000)  // index 11,169: the buckets up to it
        #expect(histogram.storedCounts == 11 * 1024)
        for value in stride(from: Int64(1), through: 990_000, by: 997) { histogram.record(value) }
        #expect(histogram.storedCounts == 11 * 1024)
        #expect(histogram.count(at: 11_169) == 1 && histogram.count(at: 11_170) == 0 && histogram.count(at: 20_000) == 0)
        #expect(histogram.counts.count == histogram.countsLength)

        // Equality is of the counts, whatever the storage: an emptied histogram keeps its storage
        // and equals a new one; the same values recorded in another order give an equal one.
        var reversed = histogram.emptyCopy()
        for value in stride(from: Int64(1), through: 990_000, by: 997).reversed() { reversed.record(value) }
        reversed.record(1_000_000)
        reversed.record(100)
        #expect(reversed == histogram)
        reversed.record(100)
        #expect(reversed != histogram)
        histogram.reset()
        #expect(histogram.storedCounts == 11 * 1024)
        #expect(histogram == histogram.emptyCopy())
        let decoded = try HDRHistogramCodec.decode(payload: HDRHistogramCodec.payload(of: reversed))
        #expect(decoded.counts == reversed.counts && decoded.storedCounts <= reversed.storedCounts)
    }

    /// Memory follows the smallest value recorded too: latencies of a millisecond leave the
    /// buckets below them unstored until a smaller value arrives (by recording or by `add`).
    @Test func theCountsStartAtTheSmallestValue() throws {
        var histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: 3)
        histogram.record(1_000_000)  // index 11,169, in the half-bucket 10,240..<11,264
        #expect(histogram.storedCounts == 1024)
        histogram.record(600_000)  // index 10,387: the same half-bucket
        #expect(histogram.storedCounts == 1024)
        #expect(histogram.count(at: 11_169) == 1 && histogram.count(at: 10_387) == 1)
        #expect(histogram.count(at: 100) == 0 && histogram.count(at: 11_264) == 0 && histogram.count(at: 10_239) == 0)
        #expect(histogram.counts.count == histogram.countsLength && histogram.counts[10_387] == 1)
        #expect(histogram.value(atPercentile: 50) == histogram.highestEquivalentValue(600_000))
        #expect(histogram.reportedMax == histogram.highestEquivalentValue(1_000_000))

        var all = histogram.emptyCopy()
        for value: Int64 in [100, 600_000, 1_000_000] { all.record(value) }
        var low = histogram.emptyCopy()
        low.record(100)
        #expect(low.storedCounts == 1024)
        // Adding smaller values extends the storage downwards, larger ones upwards: either way
        // the sum is the histogram that recorded all three.
        var sum = histogram
        sum.add(low)
        #expect(sum.storedCounts == 11 * 1024)
        #expect(sum == all && sum.counts == all.counts && sum.totalCount == 3)
        low.add(histogram)
        #expect(low == all && low.counts == all.counts)
        histogram.record(100)
        #expect(histogram == all && histogram.storedCounts == 11 * 1024)
        #expect(histogram.value(atPercentile: 0) == 100)

        // Equality compares counts, not storage: a high-only histogram differs from an empty one.
        var high = all.emptyCopy()
        high.record(1_000_000)
        #expect(high != all.emptyCopy())
        high.reset()
        #expect(high == all.emptyCopy() && high.storedCounts == 1024)

        // The encoding round-trips a histogram whose storage starts high.
        var start = all.emptyCopy()
        start.record(1_000_000, count: 5)
        start.record(700_000)
        let decoded = try HDRHistogramCodec.decode(payload: HDRHistogramCodec.payload(of: start))
        // (Decoding knows each value's bucket, not the value: max and min are bucket bounds.)
        #expect(decoded.counts == start.counts && decoded.totalCount == 6 && decoded.storedCounts == 1024)
        #expect(decoded.value(atPercentile: 50) == start.value(atPercentile: 50) && decoded.reportedMax == start.reportedMax)
    }

    @Test func zigZagVarintsAreJavasBytes() {
        func bytes(_ value: Int64) -> [UInt8] {
            var out: [UInt8] = []
            HDRHistogramCodec.putZigZag(value, into: &out)
            return out
        }
        #expect(bytes(0) == [0])
        #expect(bytes(1) == [2])
        #expect(bytes(-1) == [1])
        #expect(bytes(-2) == [3])
        #expect(bytes(64) == [0x80, 0x01])
        #expect(bytes(Int64.max).count == 9)
        for value: Int64 in [0, 1, -1, 63, 64, -65, 1 << 40, Int64.max, Int64.min + 1] {
            let encoded = bytes(value)
            var position = 0
            let decoded = try? HDRHistogramCodec.readZigZag(encoded, at: &position, end: encoded.count)
            #expect(decoded == value)
            #expect(position == encoded.count)
        }
    }

    @Test func encodingRoundTripsWithZeroRuns() throws {
        var random = SplitMix64(seed: 2026)
        for digits in [2, 3, 4] {
            var histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: digits)
            for _ in 0..<5_000 {
                // Latency-like: mostly around 100 µs, a tail up to seconds.
                let base = Int64(50_000 + random.next() % 100_000)
                let tail = random.next() % 100 == 0 ? Int64(random.next() % 2_000_000_000) : 0
                histogram.record(base + tail)
            }
            let text = HDRHistogramCodec.encode(histogram)
            #expect(text.hasPrefix("HISTF"))
            let decoded = try HDRHistogramCodec.decode(text)
            #expect(decoded.counts == histogram.counts)
            #expect(decoded.totalCount == histogram.totalCount)
            #expect(decoded.significantDigits == digits)
            #expect(decoded.reportedMax == histogram.reportedMax)
            for percentile in [50.0, 90, 99, 99.9, 100] {
                #expect(decoded.value(atPercentile: percentile) == histogram.value(atPercentile: percentile))
            }
        }
        // An empty histogram encodes no counts and decodes empty.
        let empty = HDRHistogram(highestTrackableValue: 1_000_000, significantDigits: 3)
        let decoded = try HDRHistogramCodec.decode(HDRHistogramCodec.encode(empty))
        #expect(decoded.totalCount == 0)
    }

    @Test func payloadHeaderIsTheV2Layout() {
        var histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: 3)
        histogram.record(1)
        histogram.record(5)
        let payload = HDRHistogramCodec.payload(of: histogram)
        #expect(Array(payload[0..<4]) == [0x1c, 0x84, 0x93, 0x13])
        // counts: index 0 → 0, index 1 → 1, indexes 2–4 zero (a run of 3: -3), index 5 → 1.
        #expect(Array(payload[40...]) == [0, 2, 5, 2])
        #expect(Array(payload[4..<8]) == [0, 0, 0, 4])
        #expect(Array(payload[12..<16]) == [0, 0, 0, 3])
        let compressed = HDRHistogramCodec.compressed(histogram)
        #expect(Array(compressed[0..<4]) == [0x1c, 0x84, 0x93, 0x14])
    }

    @Test func hostileEncodingsEndInTypedErrors() throws {
        var histogram = HDRHistogram(highestTrackableValue: 3_600_000_000_000, significantDigits: 3)
        for value in stride(from: Int64(1), to: 10_000_000, by: 9_973) { histogram.record(value) }
        let compressed = HDRHistogramCodec.compressed(histogram)
        // Every truncation of the compressed bytes, and of the inflated payload.
        for length in 0..<compressed.count {
            #expect(throws: HDRHistogramCodec.DecodeError.self) { try HDRHistogramCodec.decode(compressed: Array(compressed[..<length])) }
        }
        let payload = HDRHistogramCodec.payload(of: histogram)
        for length in 0..<payload.count {
            #expect(throws: HDRHistogramCodec.DecodeError.self) { try HDRHistogramCodec.decode(payload: Array(payload[..<length])) }
        }
        // Counts past the end of the histogram's range, a zero run past it, bad settings.
        var tooMany = Array(payload[..<40])
        tooMany[4...7] = [0, 0, 0, 3]
        tooMany[12...15] = [0, 0, 0, 1]
        tooMany[24...31] = [0, 0, 0, 0, 0, 0, 0, 100]
        tooMany += [0x7f, 0x01, 0x02]
        #expect(throws: HDRHistogramCodec.DecodeError.self) { try HDRHistogramCodec.decode(payload: tooMany) }
        var badDigits = payload
        badDigits[15] = 9
        #expect(throws: HDRHistogramCodec.DecodeError.settings) { try HDRHistogramCodec.decode(payload: badDigits) }
        #expect(throws: HDRHistogramCodec.DecodeError.base64) { try HDRHistogramCodec.decode("not base64!") }
        #expect(throws: HDRHistogramCodec.DecodeError.self) { try HDRHistogramCodec.decode("AAAA") }
        var flipped = compressed
        flipped[20] ^= 0xff
        #expect(throws: HDRHistogramCodec.DecodeError.self) { try HDRHistogramCodec.decode(compressed: flipped) }
    }
}
