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
    /// The parsed rules of a list.
    fileprivate struct Rules: Sendable {
        let rules: Set<String>
        /// Parents of `*.` rules: `ck` for `*.ck`.
        let wildcards: Set<String>
        /// `!` rules, without the `!`.
        let exceptions: Set<String>
    }

    /// Where the rules come from. The system's list is read and parsed when a Domain attribute
    /// first needs it, not when a jar (or a session configuration, which makes one) is created:
    /// parsing its 250 KB takes milliseconds that a program making no cookie decision should not pay.
    private enum Source: Sendable {
        case rules(Rules)
        case systemFile
        case conservative
    }

    private let source: Source

    /// The rules in force: nil for the conservative rule.
    private var rules: Rules? {
        switch source {
        case .rules(let rules): rules
        case .systemFile: Self.systemRules
        case .conservative: nil
        }
    }

    /// Whether this is the list itself rather than the conservative rule (for ``system``, this
    /// reads the list).
    public var isFullList: Bool { rules != nil }

    /// Where Debian's `publicsuffix` package puts the list.
    public static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The system's list, or ``conservative`` where it is missing or unreadable. The file is read
    /// once, the first time any copy of this value is consulted.
    public static let system = PublicSuffixList(source: .systemFile)

    /// The system file's rules, parsed once (a global's lazy, thread-safe initialisation).
    private static let systemRules: Rules? = {
        guard let data = FileManager.default.contents(atPath: systemPath) else { return nil }
        return Rules(listText: String(decoding: data, as: UTF8.self))
    }()

    /// The rule used without a list (see the type's documentation).
    public static let conservative = PublicSuffixList(source: .conservative)

    static let commonSecondLevelLabels: Set<String> = [
        "co", "com", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "gob", "mil", "nic", "nom", "ltd", "plc", "sch",
    ]

    private init(source: Source) {
        self.source = source
    }

    /// Parses the list's text format (one rule a line, `//` comments, `*.` wildcards, `!`
    /// exceptions; non-ASCII rules are kept as written, which ASCII hosts never match). nil when
    /// the text holds no rule.
    public init?(listText: String) {
        guard let rules = Rules(listText: listText) else { return nil }
        self.init(source: .rules(rules))
    }

    /// Whether `domain` (lowercase, no leading or trailing dot) is a public suffix: the list's
    /// rules, the implicit `*` rule for single labels, or the conservative rule without a list.
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard !domain.isEmpty else { return true }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count == 1 { return true }
        guard let rules else {
            return labels.count == 2 && labels[1].count == 2 && labels[1].allSatisfy(\.isLetter)
                && Self.commonSecondLevelLabels.contains(String(labels[0]))
        }
        if rules.exceptions.contains(domain) { return false }
        if rules.rules.contains(domain) { return true }
        let parent = labels.dropFirst().joined(separator: ".")
        return rules.wildcards.contains(parent)
    }
}

extension PublicSuffixList.Rules {
    /// Parses the list's text; nil when it holds no rule.
    init?(listText: String) {
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
        self.init(rules: rules, wildcards: wildcards, exceptions: exceptions)
    }
}
