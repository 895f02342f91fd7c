/// Small text helpers for header values (FoundationEssentials has no `trimmingCharacters`).
extension StringProtocol {
    /// The text without leading and trailing optional whitespace (SP, HTAB; RFC 9110 §5.6.3).
    var trimmingOWS: String {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isOWS($0) }), let last = lastIndex(where: { !isOWS($0) }) else { return "" }
        return String(self[first...last])
    }
}
