// Fuzzes the decoder of DiskResponseCache's entry files (Courier's DiskCacheEntry), which reads
// files that a crash may have torn or a disk corrupted.
//
// Properties checked on every input:
// - nothing traps; a refused file gives a DiskCacheEntryError;
// - the fixed header's check agrees with the decoder: a file whose lengths do not match its size
//   is refused by both;
// - an accepted file re-encodes to an entry that decodes to the same URL, variant key, Vary
//   names, storedAt (to rounding), status, header fields and body; and every strict prefix of that encoding
//   (a torn write) is refused, as is the encoding with one more byte;
// - decoding the meta alone gives the same head as decoding the whole file.
//
// Input layout: the whole input is the file.
import Courier
import FoundationEssentials
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDiskCacheEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let layout = try? DiskCacheEntry.layout(bytes[...], fileSize: bytes.count)
    let decoded: DiskCacheEntry
    do {
        decoded = try DiskCacheEntry.decode(bytes)
    } catch {
        return 0
    }
    fuzzCheck(layout != nil, "decoded a file whose layout is refused")
    if let layout {
        let meta = bytes[DiskCacheEntry.headerSize..<(DiskCacheEntry.headerSize + layout.metaLength)]
        let head = try? DiskCacheEntry.decodeMeta(meta)
        fuzzCheck(head?.url == decoded.url && head?.variant == decoded.variant && head?.cached.response == decoded.cached.response,
                  "the meta alone decodes differently")
    }
    let encoded = decoded.encoded()
    guard let again = try? DiskCacheEntry.decode(encoded) else {
        fuzzFail("a decoded entry's encoding is refused")
    }
    fuzzCheck(again.url == decoded.url && again.variant == decoded.variant && again.varyNames == decoded.varyNames, "key changed")
    // Date keeps seconds since 2001: converting from 1970 and back may round the last bits.
    let (before, after) = (decoded.cached.storedAt.timeIntervalSince1970, again.cached.storedAt.timeIntervalSince1970)
    fuzzCheck(after.isFinite && abs(after - before) <= max(1e-3, abs(before) * 1e-12), "storedAt changed: \(before) → \(after)")
    fuzzCheck(again.cached.response == decoded.cached.response, "head changed")
    fuzzCheck(again.cached.data == decoded.cached.data, "body changed")
    if encoded.count <= 4096 {
        for length in 0..<encoded.count {
            fuzzCheck((try? DiskCacheEntry.decode(Array(encoded[..<length]))) == nil, "a torn file (\(length) of \(encoded.count) bytes) was accepted")
        }
    }
    fuzzCheck((try? DiskCacheEntry.decode(encoded + [0])) == nil, "a file with a trailing byte was accepted")
    return 0
}
