#if COURIER_TSAN && canImport(Glibc)
import Glibc
#endif

/// Tells ThreadSanitizer about the happens-before edge a continuation's resume gives its await.
/// No-ops unless the build defines `COURIER_TSAN` (`make test-tsan`).
///
/// Why it is needed: the Swift runtime annotates `resume` with a TSan release, but when the resume
/// wins the race against the await (the continuation is already resumed when the awaiting task
/// reaches its suspension point), the await continues inline without the matching acquire. The
/// runtime's atomics do order the two threads, but TSan, which does not see the runtime's
/// atomics, then reports whatever the resumer wrote before resuming (a response body part, say)
/// as racing with the awaiting task's first read of it. The resumer calls ``release(_:)`` on an
/// object both sides hold just before it resumes, and the awaiting side calls ``acquire(_:)`` on
/// it once the await returns: the edge the runtime already guarantees, made visible.
public enum TSanHandoff {
    /// Marks what this thread did so far as visible to the next ``acquire(_:)`` on `object`.
    @inline(__always)
    public static func release(_ object: AnyObject) {
        #if COURIER_TSAN
        Annotations.shared.release?(Unmanaged.passUnretained(object).toOpaque())
        #endif
    }

    /// Orders this thread after every ``release(_:)`` on `object` that came before.
    @inline(__always)
    public static func acquire(_ object: AnyObject) {
        #if COURIER_TSAN
        Annotations.shared.acquire?(Unmanaged.passUnretained(object).toOpaque())
        #endif
    }

    /// Whether the annotations reach ThreadSanitizer: true in a `COURIER_TSAN` build that runs
    /// under TSan, false otherwise.
    public static var isAnnotating: Bool {
        #if COURIER_TSAN
        Annotations.shared.acquire != nil && Annotations.shared.release != nil
        #else
        false
        #endif
    }

    #if COURIER_TSAN
    /// `__tsan_acquire` and `__tsan_release`, looked up in the sanitizer runtime the way the
    /// Swift concurrency runtime looks them up (absent in a build without TSan: nil).
    private struct Annotations: @unchecked Sendable {
        typealias Function = @convention(c) (UnsafeMutableRawPointer) -> Void
        let acquire: Function?
        let release: Function?

        static let shared = Annotations()

        private init() {
            // Safe: dlsym only looks the names up; the symbols, when present, have the C signature
            // `void (void *)` that `Function` declares.
            acquire = dlsym(nil, "__tsan_acquire").map { unsafeBitCast($0, to: Function.self) }
            release = dlsym(nil, "__tsan_release").map { unsafeBitCast($0, to: Function.self) }
        }
    }
    #endif
}
