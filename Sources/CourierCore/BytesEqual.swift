import Glibc

/// Byte-for-byte equality of two memory ranges, with `memcmp` (the generic `elementsEqual`
/// costs a few instructions a byte more, and it runs on every request that compares a head or
/// a header value).
@inlinable
package func bytesEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    guard a.count > 0, let x = a.baseAddress, let y = b.baseAddress else { return true }
    // Safe: both ranges are `a.count` bytes long and readable for the call.
    return memcmp(x, y, a.count) == 0
}
