import FoundationEssentials

/// The Public Suffix List (https://publicsuffix.org/list/), which the storage model consults so
/// that a server cannot set a cookie for a whole registry such as `com` or `co.uk`
/// (RFC 6265bis §5.7 step 6).
///
/// ``system`` reads the system's copy once, when first used: Debian's and Ubuntu's
/// `publicsuffix` package installs it as `/usr/share/publicsuffix/public_suffix_list.dat`
/// (`make deps` installs the package). Where there is no list, ``conservative`` applies instead:
/// every single-label name (`com`, `localhost`, `internal`) is a public suffix, and so is every
/// two-label name whose last label is two letters (a country-code TLD) and whose first is one of
/// the second-level labels registries commonly sell under (`co`, `com`, `net`, `org`, `gov`,
/// `edu`, `ac`, `or`, `ne`, `go`, `gob`, `mil`, `nic`, `nom`, `ltd`, `plc`, `sch`): `co.uk`,
/// `com.au`, `ac.jp`. That rule refuses too little (no private suffixes such as
/// `github.io`), never too much of what the full list allows for a registrable domain.
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    /// Parents of `*.` rules: `ck` for `*.ck`.
    private let wildcards: Set<String>
    /// `!` rules, without the `!`.
    private let exceptions: Set<String>
    /// Whether this is the list itself rather than the conservative rule.
    public let isFullList: Bool

    /// Where Debian's `publicsuffix` package puts the list.
    public static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The system's list, or ``conservative`` where it is missing or unreadable.
    public static let system: PublicSuffixList = {
        guard let data = FileManager.default.contents(atPath: systemPath),
              let list = PublicSuffixList(listText: String(decoding: data, as: UTF8.self)) else { return conservative }
        return list
    }()

    /// The rule used without a list (see the type's documentation).
    public static let conservative = PublicSuffixList(rules: [], wildcards: [], exceptions: [], isFullList: false)

    static let commonSecondLevelLabels: Set<String> = [
        "co", "com", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "gob", "mil", "nic", "nom", "ltd", "plc", "sch",
    ]

    private init(rules: Set<String>, wildcards: Set<String>, exceptions: Set<String>, isFullList: Bool) {
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
        self.isFullList = isFullList
    }

    /// Parses the list's text format (one rule a line, `//` comments, `*.` wildcards, `!`
    /// exceptions; non-ASCII rules are kept as written, which ASCII hosts never match). nil when
    /// the text holds no rule.
    public init?(listText: String) {
        var rules = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in listText.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            // A rule is the line's first word.
            guard let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first, !word.hasPrefix("//") else { continue }
            let rule = word.lowercased()
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
        guard !rules.isEmpty else { return nil }
        self.init(rules: rules, wildcards: wildcards, exceptions: exceptions, isFullList: true)
    }

    /// Whether `domain` (lowercase, no leading or trailing dot) is a public suffix: the list's
    /// rules, the implicit `*` rule for single labels, or the conservative rule without a list.
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard !domain.isEmpty else { return true }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count == 1 { return true }
        guard isFullList else {
            return labels.count == 2 && labels[1].count == 2 && labels[1].allSatisfy(\.isLetter)
                && Self.commonSecondLevelLabels.contains(String(labels[0]))
        }
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        let parent = labels.dropFirst().joined(separator: ".")
        return wildcards.contains(parent)
    }
}
