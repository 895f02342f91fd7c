/// A curl config file (`-K`/`--config`, curl(1) "-K, --config"): one option a line, written
/// with or without its leading dashes, then its value after whitespace, `=` or `:`. A value in
/// double quotes may hold whitespace and the escapes `\\`, `\"`, `\t`, `\n`, `\r` and `\v`;
/// an unquoted one ends at the first whitespace. What follows a value on its line is ignored,
/// as curl ignores it. Lines that are empty or start with `#` are comments.
///
/// ```
/// # fetch quietly
/// silent
/// url = "http://example.com/a b"
/// -o out.html
/// write-out: "%{http_code}\n"
/// ```
struct CurlConfigFile {
    struct Line: Equatable {
        /// As written: `silent`, `--silent` or `-s`.
        var option: String
        /// nil when the line has none.
        var value: String?
        /// 1 for the first line.
        var number: Int
    }

    static func parse(_ text: String) -> [Line] {
        var lines: [Line] = []
        var number = 0
        // CRLF is one `Character`: a split on "\n" alone would not see it.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var rest = raw.drop(while: isBlank)
            guard let first = rest.first, first != "#" else { continue }
            let option = rest.prefix { !isBlank($0) && $0 != "=" && $0 != ":" }
            rest = rest[option.endIndex...].drop(while: isBlank)
            if let separator = rest.first, separator == "=" || separator == ":" {
                rest = rest.dropFirst().drop(while: isBlank)
            }
            let value: String?
            if rest.isEmpty {
                value = nil
            } else if rest.first == "\"" {
                value = unquote(rest.dropFirst())
            } else {
                value = String(rest.prefix { !isBlank($0) })
            }
            lines.append(Line(option: String(option), value: value, number: number))
        }
        return lines
    }

    static func isBlank(_ character: Character) -> Bool { character == " " || character == "\t" }

    /// A quoted value up to its closing quote (or the line's end), escapes undone.
    static func unquote(_ text: Substring) -> String {
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
                switch character {
                case "t": out.append("\t")
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "v": out.append("\u{0B}")
                default: out.append(character)
                }
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                break
            } else {
                out.append(character)
            }
        }
        return out
    }
}
