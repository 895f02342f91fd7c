// Fuzzes ContentDecoder (gzip, deflate, stacked): no crash; output never past maxDecodedBytes;
// the same body fed whole and in pieces decodes to the same bytes when both succeed; a reset
// decoder behaves exactly like a fresh one; and decoding into a ByteBuffer (`decode(_:into:)`,
// where one coding lets zlib write straight into the buffer) gives exactly what the sink does.
//
// Input layout:
//   byte  0     bits 0–1 codings: [gzip], [deflate], [gzip, gzip], [deflate, gzip]
//               bits 2–3 maxDecodedBytes: none, 0, 1000, 64 KiB
//               bits 4–5 ratio limit / grace: 100 / 1 MiB (default), 4 / 1 KiB, 1 / 0, 1000 / 64 KiB
//   byte  1     feeding mode (low two bits: 1/2/3 cuts or bytewise)
//   bytes 2–7   three little-endian 16-bit cut selectors
//   bytes 8…    the encoded body
import CourierCore
import CourierHTTP1
import FuzzSupport

private let codingChoices: [[ContentCoding]] = [[.gzip], [.deflate], [.gzip, .gzip], [.deflate, .gzip]]
private let maxDecodedChoices: [UInt64?] = [nil, 0, 1000, 64 * 1024]
private let ratioChoices: [(ratio: UInt64, grace: UInt64)] = [(100, 1 << 20), (4, 1024), (1, 0), (1000, 64 * 1024)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let choice = reader.u8()
    let codings = codingChoices[Int(choice & 3)]
    var limits = ContentDecoderLimits()
    limits.maxDecodedBytes = maxDecodedChoices[Int(choice >> 2 & 3)]
    (limits.maxRatio, limits.ratioGraceBytes) = ratioChoices[Int(choice >> 4 & 3)]
    let (feeding, _) = Feeding.read(from: &reader, count: Swift.max(0, size - 8))
    let body = reader.rest()
    let setup = "codings=\(codings) limits=\(limits) body (\(body.count) bytes): \(escaped(body.prefix(256)))"

    let decoder = ContentDecoder(codings: codings, limits: limits)
    let whole = run(decoder, [body[...]], layers: codings.count, limits: limits, setup: setup)
    decoder.reset()
    let split = run(decoder, feeding.pieces(body), layers: codings.count, limits: limits, setup: setup + " feeding \(feeding)")
    decoder.reset()
    let wholeAfterReset = run(decoder, [body[...]], layers: codings.count, limits: limits, setup: setup)
    fuzzCheck(
        wholeAfterReset == whole,
        "\(setup)\nafter reset(): \(wholeAfterReset.summary)\nfresh: \(whole.summary)")
    decoder.reset()
    let intoBuffer = run(decoder, [body[...]], layers: codings.count, limits: limits, setup: setup, intoBuffer: true)
    fuzzCheck(
        intoBuffer == whole,
        "\(setup)\ninto a buffer: \(intoBuffer.summary)\nthrough the sink: \(whole.summary)")

    let context = "\(setup)\nwhole: \(whole.summary)\n\(feeding): \(split.summary)"
    // Every feeding's output is a prefix of the decoded body, so one is a prefix of the other.
    let common = Swift.min(whole.output.count, split.output.count)
    fuzzCheck(whole.output[..<common] == split.output[..<common], "\(context)\noutputs diverge")
    if whole.error == nil && split.error == nil {
        fuzzCheck(whole.output == split.output, "\(context)\nboth succeeded with different output")
    }
    // The ratio check runs after each piece of input, so it can stop one feeding and not another;
    // short of that, the feedings must agree on success or the kind of failure.
    if whole.error?.reason != .compressionRatioLimit && split.error?.reason != .compressionRatioLimit {
        fuzzCheck(whole.error?.reason == split.error?.reason, "\(context)\nfeedings disagree on the outcome")
    }
    return 0
}

private struct Outcome: Equatable {
    var output: [UInt8] = []
    var error: ContentDecodingError?
    var bytesIn: UInt64 = 0
    var bytesOut: UInt64 = 0

    var summary: String {
        "output \(output.count) bytes, error \(error.map { "\($0)" } ?? "none"), in \(bytesIn), out \(bytesOut)"
    }
}

private func run(
    _ decoder: ContentDecoder, _ pieces: [ArraySlice<UInt8>], layers: Int, limits: ContentDecoderLimits, setup: String,
    intoBuffer: Bool = false
) -> Outcome {
    var outcome = Outcome()
    var fed: UInt64 = 0
    do throws(ContentDecodingError) {
        for piece in pieces {
            fed += UInt64(piece.count)
            if intoBuffer {
                var decoded = ByteBuffer()
                defer {
                    outcome.output += decoded.readableBytesArray()
                    if let max = limits.maxDecodedBytes {
                        fuzzCheck(
                            UInt64(outcome.output.count) <= max,
                            "\(setup)\ndecoded \(outcome.output.count) bytes into a buffer, limit \(max)")
                    }
                }
                try decoder.decode(ByteBuffer(bytes: piece), into: &decoded)
                continue
            }
            // withUnsafeBytes rethrows untyped errors: carry the typed one out as a Result.
            let result = piece.withUnsafeBytes { (bytes) -> Result<Void, ContentDecodingError> in
                do throws(ContentDecodingError) {
                    try decoder.decode(bytes) { out in
                        outcome.output.append(contentsOf: out)
                        if let max = limits.maxDecodedBytes {
                            fuzzCheck(
                                UInt64(outcome.output.count) <= max,
                                "\(setup)\ndecoded \(outcome.output.count) bytes, limit \(max)")
                        }
                    }
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
        }
        try decoder.finish()
        // Success: the final totals are within the ratio limit.
        let out = UInt64(outcome.output.count)
        if out > limits.ratioGraceBytes {
            let (allowed, overflow) = fed.multipliedReportingOverflow(by: limits.maxRatio)
            fuzzCheck(overflow || out <= allowed, "\(setup)\nsucceeded with \(out) bytes from \(fed), ratio \(limits.maxRatio)")
        }
    } catch {
        fuzzCheck(error.reason != .zlibFailure, "\(setup)\nzlib failure: \(error)")
        // A single layer's offset counts body bytes; with two layers it may count the inner
        // stream's bytes, which can outnumber the body's.
        if layers == 1 {
            fuzzCheck(error.inputOffset <= fed, "\(setup)\nerror \(error) past the \(fed) bytes fed")
        }
        outcome.error = error
    }
    outcome.bytesIn = decoder.bytesIn
    outcome.bytesOut = decoder.bytesOut
    fuzzCheck(decoder.bytesIn == fed, "\(setup)\nbytesIn \(decoder.bytesIn), fed \(fed)")
    // On a limit error bytesOut also counts the piece that was refused, not handed out.
    fuzzCheck(
        outcome.error == nil ? decoder.bytesOut == UInt64(outcome.output.count) : decoder.bytesOut >= UInt64(outcome.output.count),
        "\(setup)\nbytesOut \(decoder.bytesOut), handed out \(outcome.output.count)")
    return outcome
}
