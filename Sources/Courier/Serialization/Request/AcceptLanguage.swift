import Glibc

/// The default `Accept-Language` value (RFC 9110 §12.5.4), built as AFNetworking builds it from
/// `NSLocale.preferredLanguages`: each language with a q-value starting at 1 and falling by 0.1,
/// stopping after q=0.5 (at most six), joined by `, `, e.g. `de-AT;q=1, de;q=0.9, en;q=0.8`.
///
/// Linux has no preferred-languages list, so it comes from the POSIX locale variables:
/// `LANGUAGE` (a colon-separated list, GNU gettext) first, then `LANG`. Each entry loses its
/// codeset and modifier (`en_US.UTF-8@euro` → `en-US`), `_` becomes `-` (BCP 47 form), and
/// `C`/`POSIX`, empty and duplicate entries are skipped. With nothing left the value is
/// `en;q=1`.
public enum AcceptLanguage {
    /// The value for this process's environment.
    public static var current: String {
        var environment: [String: String] = [:]
        for name in ["LANGUAGE", "LANG"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return value(environment: environment)
    }

    /// The value for the given environment variables (`LANGUAGE`, `LANG`).
    public static func value(environment: [String: String]) -> String {
        var tags: [String] = []
        let candidates = (environment["LANGUAGE"] ?? "").split(separator: ":") + [Substring(environment["LANG"] ?? "")]
        for candidate in candidates {
            guard let tag = languageTag(candidate), !tags.contains(tag) else { continue }
            tags.append(tag)
        }
        if tags.isEmpty { tags = ["en"] }
        var components: [String] = []
        for (index, tag) in tags.enumerated() {
            // Tenths as integers: AFNetworking's float q (1.0 - idx * 0.1) printed with %0.1g.
            let tenths = 10 - index
            components.append("\(tag);q=\(tenths == 10 ? "1" : "0.\(tenths)")")
            if tenths <= 5 { break }
        }
        return components.joined(separator: ", ")
    }

    /// `en_US.UTF-8@euro` → `en-US`; nil for `C`, `POSIX`, empty or malformed entries.
    static func languageTag(_ entry: Substring) -> String? {
        var text = entry
        if let at = text.firstIndex(of: "@") { text = text[..<at] }
        if let dot = text.firstIndex(of: ".") { text = text[..<dot] }
        guard !text.isEmpty, text != "C", text != "POSIX" else { return nil }
        let tag = String(text.map { $0 == "_" ? "-" : $0 })
        guard tag.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }),
            !tag.hasPrefix("-"), !tag.hasSuffix("-")
        else { return nil }
        return tag
    }
}
