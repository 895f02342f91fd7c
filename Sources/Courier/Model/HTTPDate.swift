import FoundationEssentials

/// HTTP-date (RFC 9110 §5.6.7). A recipient must accept all three formats:
/// - IMF-fixdate, the only one a sender may generate: `Sun, 06 Nov 1994 08:49:37 GMT`;
/// - the obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`, whose two-digit year is read
///   as the most recent year with those digits that is not more than 50 years in the future;
/// - the obsolete asctime form: `Sun Nov  6 08:49:37 1994`.
///
/// Everything else is invalid (nil): other zones, out-of-range fields, missing or extra parts.
/// The weekday must be a weekday name, but, as RFC 9110 does not require it to match the date,
/// it is not checked against it. Years run from 1970 to 9999.
enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// The date `text` names (surrounding whitespace ignored); `now` decides the century of an
    /// RFC 850 year.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let trimmed = text.trimmingOWS
        return imfFixdate(trimmed) ?? rfc850(trimmed, now: now) ?? asctime(trimmed)
    }

    /// `day-name "," SP date1 SP time-of-day SP GMT`, date1 = `2DIGIT SP month SP 4DIGIT`: exactly
    /// 29 ASCII bytes, read in place (every cache decision and Retry-After reads one or two,
    /// so this form is parsed without splitting into strings).
    private static func imfFixdate(_ text: String) -> Date? {
        var text = text
        // Safe: every index read is below 29, and the count is checked to be 29 first.
        return text.withUTF8 { bytes -> Date? in
            // "Sun, 06 Nov 1994 08:49:37 GMT"
            guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
                  bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
                  bytes[26] == UInt8(ascii: "G"), bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T"),
                  name(bytes, at: 0, in: shortDayBytes) != nil,
                  let month = name(bytes, at: 8, in: monthBytes),
                  let day = number(bytes, at: 5, count: 2), let year = number(bytes, at: 12, count: 4),
                  let hour = number(bytes, at: 17, count: 2), let minute = number(bytes, at: 20, count: 2),
                  let second = number(bytes, at: 23, count: 2) else { return nil }
            return date(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second)
        }
    }

    /// The three-letter names as bytes, for ``imfFixdate(_:)``.
    private static let shortDayBytes: [[UInt8]] = shortDays.map { Array($0.utf8) }
    private static let monthBytes: [[UInt8]] = months.map { Array($0.utf8) }

    /// The index in `names` of the three bytes at `offset` (case-sensitive, as RFC 9110 §5.6.7).
    private static func name(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, in names: [[UInt8]]) -> Int? {
        names.firstIndex { $0[0] == bytes[offset] && $0[1] == bytes[offset + 1] && $0[2] == bytes[offset + 2] }
    }

    /// `count` ASCII digits at `offset` as a number.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, count: Int) -> Int? {
        var value = 0
        for index in offset..<(offset + count) {
            let digit = bytes[index] &- 0x30
            guard digit <= 9 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// `day-name-l "," SP date2 SP time-of-day SP GMT`, date2 = `2DIGIT "-" month "-" 2DIGIT`.
    private static func rfc850(_ text: String, now: Date) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].hasSuffix(","), longDays.contains(String(parts[0].dropLast())), parts[3] == "GMT" else { return nil }
        let date2 = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard date2.count == 3, date2[0].count == 2, let day = digits(date2[0]), let month = months.firstIndex(of: String(date2[1])),
              date2[2].count == 2, let twoDigits = digits(date2[2]) else { return nil }
        // RFC 9110 §5.6.7: more than 50 years in the future means the previous century.
        let currentYear = 1970 + Int(now.timeIntervalSince1970 / 86_400 / 365.2425)
        var year = (currentYear / 100) * 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return date(year: year, month: month + 1, day: day, time: parts[2])
    }

    /// `day-name SP month SP ( 2DIGIT / ( SP DIGIT )) SP time-of-day SP 4DIGIT`.
    private static func asctime(_ text: String) -> Date? {
        var parts = text.split(separator: " ", omittingEmptySubsequences: false)
        // A one-digit day is padded with a space: "Nov  6".
        if parts.count == 6, parts[2].isEmpty, parts[3].count == 1 { parts.remove(at: 2) } else if parts.count == 5, parts[2].count == 1 { return nil }
        guard parts.count == 5, shortDays.contains(String(parts[0])), let month = months.firstIndex(of: String(parts[1])),
              (1...2).contains(parts[2].count), let day = digits(parts[2]), parts[4].count == 4, let year = digits(parts[4]) else { return nil }
        return date(year: year, month: month + 1, day: day, time: parts[3])
    }

    /// `hour ":" minute ":" second`, two digits each.
    private static func date(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ $0.count == 2 }), let hour = digits(fields[0]), let minute = digits(fields[1]),
              let second = digits(fields[2]) else { return nil }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The instant of a date and time of day in GMT, when every field is in range.
    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1970...9999).contains(year), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// ASCII digits only (no sign, no spaces), as a number.
    private static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// The days in `month` of `year` (Gregorian leap years).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
