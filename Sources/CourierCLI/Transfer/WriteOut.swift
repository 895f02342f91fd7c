/// `-w`/`--write-out` (curl(1), "write-out"): a format with `%{variable}`s, `\n`-style escapes,
/// `%{stdout}`/`%{stderr}` switching where it goes, and `%{json}` for every variable at once.
struct WriteOut {
    /// One variable's value, typed as curl's `%{json}` types it.
    enum Value: Sendable, Equatable {
        case integer(Int64)
        case seconds(Double)
        case text(String)
        case null

        /// As `%{name}` prints it: times in seconds with six decimals, as curl does.
        var plain: String {
            switch self {
            case .integer(let value): String(value)
            case .seconds(let value): WriteOut.sixDecimals(value)
            case .text(let text): text
            case .null: ""
            }
        }

        var json: String {
            switch self {
            case .integer(let value): String(value)
            case .seconds(let value): WriteOut.sixDecimals(value)
            case .text(let text): JSONText.string(text)
            case .null: "null"
            }
        }
    }

    /// Where a piece of the output goes.
    enum Stream { case standardOutput, standardError }

    /// The variables of one transfer, by curl's names (and Courier's extras).
    var variables: [(name: String, value: Value)]

    func value(_ name: String) -> Value? { variables.first { $0.name == name }?.value }

    /// The format with everything substituted, in pieces by stream. `%{http_code}` is printed
    /// with three digits, as curl prints it.
    func render(_ format: String) -> [(Stream, String)] {
        var pieces: [(Stream, String)] = []
        var stream = Stream.standardOutput
        var current = ""
        var characters = Substring(format)
        func flush() { if !current.isEmpty { pieces.append((stream, current)); current = "" } }
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "\\", let next = characters.first {
                characters = characters.dropFirst()
                switch next {
                case "n": current += "\n"
                case "r": current += "\r"
                case "t": current += "\t"
                case "\\": current += "\\"
                default: current += "\\" + String(next)
                }
            } else if character == "%", characters.first == "%" {
                characters = characters.dropFirst()
                current += "%"
            } else if character == "%", characters.first == "{", let close = characters.firstIndex(of: "}") {
                let name = String(characters[characters.index(after: characters.startIndex)..<close])
                characters = characters[characters.index(after: close)...]
                switch name {
                case "stdout": flush(); stream = .standardOutput
                case "stderr": flush(); stream = .standardError
                case "json": current += json()
                case "http_code", "response_code": current += paddedCode(value("http_code"))
                case "http_connect": current += paddedCode(value("http_connect"))
                default:
                    if let value = value(name) {
                        current += value.plain
                    } else {
                        StandardError.write("courier: unknown --write-out variable: '\(name)'\n")
                    }
                }
            } else if character == "%", characters.hasPrefix("header{"), let close = characters.firstIndex(of: "}") {
                let name = String(characters[characters.index(characters.startIndex, offsetBy: 7)..<close])
                characters = characters[characters.index(after: close)...]
                if case .text(let text)? = value("header:" + name.lowercased()) { current += text }
            } else {
                current.append(character)
            }
        }
        flush()
        return pieces
    }

    /// Every variable as one JSON object, as `%{json}` prints it.
    func json() -> String {
        let members = variables.filter { !$0.name.hasPrefix("header:") }.map { "\(JSONText.string($0.name)):\($0.value.json)" }
        return "{" + members.joined(separator: ",") + "}"
    }

    private func paddedCode(_ value: Value?) -> String {
        guard case .integer(let code)? = value else { return "000" }
        let digits = String(code)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    static func sixDecimals(_ value: Double) -> String {
        let micros = Int64((max(0, value) * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
