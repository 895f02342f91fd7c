/// curl's URL globbing (curl(1), "URL"): `{a,b,c}` lists and `[1-10]`, `[01-10]`, `[a-z]`,
/// `[1-10:2]` ranges expand into several URLs, left to right as curl orders them; `#N` in an
/// `-o` name is the N-th glob's value for that URL. `-g`/`--globoff` turns it off.
enum URLGlob {
    struct Expansion: Equatable {
        var url: String
        /// Each glob's value, in order, for `#1`, `#2`, ….
        var values: [String]
    }

    struct GlobError: Error, CustomStringConvertible {
        let description: String
    }

    /// At most this many URLs from one pattern.
    static let limit = 100_000

    static func expand(_ pattern: String) throws(GlobError) -> [Expansion] {
        var parts: [[String]] = []
        var literals: [String] = [""]
        var characters = Substring(pattern)
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "\\", let next = characters.first, next == "{" || next == "}" || next == "[" || next == "]" {
                literals[literals.count - 1].append(next)
                characters = characters.dropFirst()
            } else if character == "{" {
                guard let close = characters.firstIndex(of: "}") else { throw GlobError(description: "unmatched brace in \(pattern)") }
                parts.append(characters[..<close].split(separator: ",", omittingEmptySubsequences: false).map(String.init))
                characters = characters[characters.index(after: close)...]
                literals.append("")
            } else if character == "[" {
                guard let close = characters.firstIndex(of: "]") else { throw GlobError(description: "unmatched bracket in \(pattern)") }
                let body = String(characters[..<close])
                characters = characters[characters.index(after: close)...]
                // An IPv6 literal ([::1]) is not a range.
                if body.contains(":") && !body.contains("-") {
                    literals[literals.count - 1] += "[" + body + "]"
                    continue
                }
                parts.append(try range(body, in: pattern))
                literals.append("")
            } else {
                literals[literals.count - 1].append(character)
            }
        }
        var results = [Expansion(url: literals[0], values: [])]
        for (index, values) in parts.enumerated() {
            var next: [Expansion] = []
            for result in results {
                for value in values {
                    next.append(Expansion(url: result.url + value + literals[index + 1], values: result.values + [value]))
                }
            }
            guard next.count <= limit else { throw GlobError(description: "too many URLs in \(pattern)") }
            results = next
        }
        return results
    }

    private static func range(_ body: String, in pattern: String) throws(GlobError) -> [String] {
        var text = Substring(body)
        var step = 1
        if let colon = text.firstIndex(of: ":") {
            guard let parsed = Int(text[text.index(after: colon)...]), parsed > 0 else { throw GlobError(description: "bad range step in \(pattern)") }
            step = parsed
            text = text[..<colon]
        }
        let bounds = text.split(separator: "-", maxSplits: 1).map(String.init)
        guard bounds.count == 2 else { throw GlobError(description: "bad range in \(pattern)") }
        if let low = Int(bounds[0]), let high = Int(bounds[1]), low <= high {
            let width = bounds[0].hasPrefix("0") && bounds[0].count > 1 ? bounds[0].count : 0
            return stride(from: low, through: high, by: step).map { number in
                let digits = String(number)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
        }
        if bounds[0].count == 1, bounds[1].count == 1, let low = bounds[0].unicodeScalars.first?.value,
           let high = bounds[1].unicodeScalars.first?.value, low <= high, high < 128 {
            return stride(from: low, through: high, by: step).compactMap { Unicode.Scalar($0).map { String(Character($0)) } }
        }
        throw GlobError(description: "bad range in \(pattern)")
    }

    /// An `-o` name with `#N` replaced by the N-th glob value.
    static func outputName(_ template: String, values: [String]) -> String {
        var result = ""
        var characters = Substring(template)
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "#", let digit = characters.first?.wholeNumberValue, digit >= 1, digit <= values.count {
                result += values[digit - 1]
                characters = characters.dropFirst()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
