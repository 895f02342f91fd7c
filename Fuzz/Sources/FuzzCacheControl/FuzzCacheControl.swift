// Fuzzes the Cache-Control parser (Courier's CacheControl, RFC 9111 §5.2), which reads field
// values a server (or a caller) sends.
//
// Properties checked on every input:
// - nothing traps, and the work is bounded (at most CacheControl.maximumDirectives directives);
// - every directive it reports has a non-empty token name, lowercased;
// - delta-seconds are in 0...CacheControl.maximumSeconds (saturated), or marked invalid;
// - parsing is deterministic: the value parsed twice, and as bytes or through HTTPFields (when
//   the field syntax accepts it), gives the same directives;
// - several field lines are one list (RFC 9110 §5.3): the value cut into two lines at a comma
//   outside quoted strings parses the same as the whole value (when neither piece hits the
//   directive bound);
// - every prefix of a short value (the bytes one at a time) parses without trapping.
//
// Input layout:
//   byte 0      cut selector: which comma outside quotes to cut at (0: none)
//   bytes 1…    the field value
import Courier
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheControl(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let cutSelector = Int(reader.u8())
    let value = reader.rest()

    var directives: [(String, String)] = []
    CacheControl.forEachDirective(in: value) { name, argument in directives.append((name, argument)) }
    fuzzCheck(directives.count <= CacheControl.maximumDirectives, "\(directives.count) directives")
    for (name, _) in directives {
        fuzzCheck(!name.isEmpty, "an empty directive name")
        fuzzCheck(name == name.lowercased(), "a name not lowercased: \(name)")
        fuzzCheck(name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "=") }, "a name that is not a token")
    }
    let whole = CacheControl(parsing: value)
    fuzzCheck(whole == CacheControl(parsing: value), "parsing is not deterministic")
    for seconds in [whole.maxAge, whole.maxStale, whole.minFresh] {
        if case .seconds(let n)? = seconds { fuzzCheck(n >= 0 && n <= CacheControl.maximumSeconds, "seconds out of range: \(n)") }
    }

    // Through HTTPFields, as the session reads it.
    var fields = HTTPFields()
    if (try? fields.append(name: "Cache-Control", valueBytes: value)) != nil {
        fuzzCheck(CacheControl(fields) == CacheControl(parsing: fields.firstValueBytes(for: "Cache-Control") ?? []), "fields and bytes disagree")
    }

    // Cut into two field lines at a comma outside quotes.
    if cutSelector > 0, directives.count < CacheControl.maximumDirectives / 2 {
        var commas: [Int] = []
        var quoted = false
        var escaped = false
        for (index, byte) in value.enumerated() {
            if quoted {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { quoted = false }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                commas.append(index)
            }
        }
        if !commas.isEmpty, !quoted {
            let cut = commas[(cutSelector - 1) % commas.count]
            var first = CacheControl(parsing: value[..<cut])
            let second = CacheControl(parsing: value[(cut + 1)...])
            // Merge as one list: the first occurrence of a valued directive wins.
            first.maxAge = first.maxAge ?? second.maxAge
            first.maxStale = first.maxStale ?? second.maxStale
            first.minFresh = first.minFresh ?? second.minFresh
            first.noCache = first.noCache || second.noCache
            first.noStore = first.noStore || second.noStore
            first.onlyIfCached = first.onlyIfCached || second.onlyIfCached
            first.mustRevalidate = first.mustRevalidate || second.mustRevalidate
            first.isPrivate = first.isPrivate || second.isPrivate
            first.isPublic = first.isPublic || second.isPublic
            first.immutable = first.immutable || second.immutable
            fuzzCheck(first == whole, "cut at byte \(cut): \(first) != \(whole)")
        }
    }

    // Byte by byte: every prefix (of short values: the work is quadratic).
    if value.count <= 256 {
        for end in 0...value.count { _ = CacheControl(parsing: value[..<end]) }
    }
    return 0
}
