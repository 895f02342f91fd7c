import FoundationEssentials

/// The cookie-date algorithm of RFC 6265bis §5.1.1 (RFC 6265 §5.1.1): tokens in any order, the
/// first time, day of month, month and year found, two-digit years windowed (70–99 → 19xx,
/// 00–69 → 20xx), and dates that do not exist refused. It reads IMF-fixdate, RFC 850 and
/// asctime dates and the many variants servers send.
enum CookieDate {
    /// The date, or nil when the algorithm fails.
    static func parse(_ bytes: some Collection<UInt8>) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var token: [UInt8] = []
        func take() {
            defer { token.removeAll(keepingCapacity: true) }
            guard !token.isEmpty else { return }
            if time == nil, let found = hmsTime(token) { time = found; return }
            if day == nil, let found = digits(token, min: 1, max: 2) { day = found; return }
            if month == nil, let found = monthNumber(token) { month = found; return }
            if year == nil, let found = digits(token, min: 2, max: 4) { year = found; return }
        }
        for byte in bytes {
            if isDelimiter(byte) { take() } else { token.append(byte) }
        }
        take()
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if year >= 70, year <= 99 { year += 1900 } else if year >= 0, year <= 69 { year += 2000 }
        guard day >= 1, day <= 31, year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        guard day <= HTTPDate.daysIn(month: month, year: year) else { return nil }
        let days = HTTPDate.daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    static func isDelimiter(_ b: UInt8) -> Bool {
        b == 0x09 || (b >= 0x20 && b <= 0x2F) || (b >= 0x3B && b <= 0x40) || (b >= 0x5B && b <= 0x60) || (b >= 0x7B && b <= 0x7E)
    }

    /// `min`…`max` digits, then nothing or a non-digit and anything.
    static func digits(_ token: [UInt8], min: Int, max: Int) -> Int? {
        var count = 0
        var value = 0
        for byte in token {
            guard SetCookie.isDigit(byte) else { break }
            count += 1
            if count > max { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return count >= min ? value : nil
    }

    /// hms-time ( non-digit *OCTET ), hms-time = time-field ":" time-field ":" time-field,
    /// time-field = 1*2DIGIT.
    static func hmsTime(_ token: [UInt8]) -> (Int, Int, Int)? {
        var fields: [Int] = []
        var index = 0
        for part in 0..<3 {
            var count = 0
            var value = 0
            while index < token.count, SetCookie.isDigit(token[index]) {
                count += 1
                if count > 2 { return nil }
                value = value * 10 + Int(token[index] - 0x30)
                index += 1
            }
            guard count > 0 else { return nil }
            fields.append(value)
            if part < 2 {
                guard index < token.count, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        // What follows must start with a non-digit (guaranteed: the loop stopped at one).
        return (fields[0], fields[1], fields[2])
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func monthNumber(_ token: [UInt8]) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }
}
