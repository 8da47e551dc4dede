/// Parses the recording dates AVI cameras write: the `IDIT` chunk of the header list and
/// the `ICRD` item of the `INFO` list.
///
/// `IDIT` is free text. Canon, Nikon, Fujifilm, Kodak and Pentax compacts write the C
/// library's `asctime` form, `MON SEP 10 20:52:00 2012\n` (any letter case, the day
/// padded with a space or a zero); others write `2012:09:10 20:52:00`, with `-` or `/`
/// between the date's numbers, or a `T` before the time; Casio and Konica pad with spaces,
/// leave out the seconds or add `PM` (`2001/ 1/27  1:42PM`). `ICRD` (the RIFF `INFO` creation
/// date) is `2012-09-10`, sometimes with a time after it in the same forms. Both are the
/// camera's wall clock, in a zone the file does not say. Trailing NULs, spaces and line
/// breaks are padding; anything else around the date, or an impossible date, is refused.
enum AVIDateText {
  /// A date parsed from the text, and whether the text gave a time of day.
  struct Parsed: Equatable {
    var date: CaptureDate
    var hasTime: Bool
  }

  /// The date `text` gives, or `nil` when it is in no accepted form.
  ///
  /// - Parameters:
  ///   - text: The chunk's bytes.
  ///   - source: The source the date is recorded with.
  ///   - allowsDateOnly: Whether a date without a time of day is accepted (`ICRD`).
  static func parse(
    _ text: some Collection<UInt8>, source: CaptureDate.Source, allowsDateOnly: Bool
  )
    -> Parsed?
  {
    var bytes = Array(text.prefix(64))
    guard text.count <= 64 else { return nil }
    while let last = bytes.last, last == 0 || last == space || last == 0x0A || last == 0x0D {
      bytes.removeLast()
    }
    while bytes.first == space { bytes.removeFirst() }
    if let parsed = asctime(bytes, source: source) { return Parsed(date: parsed, hasTime: true) }
    return numeric(bytes, source: source, allowsDateOnly: allowsDateOnly)
  }

  /// `WWW MMM DD HH:MM:SS YYYY`, the weekday not checked against the date.
  private static func asctime(_ bytes: [UInt8], source: CaptureDate.Source) -> CaptureDate? {
    let words = bytes.split(separator: space, omittingEmptySubsequences: true)
    guard words.count == 5, words[0].count == 3, words[0].allSatisfy(isLetter),
      let month = monthNames.firstIndex(of: String(decoding: words[1], as: UTF8.self).uppercased()),
      (1...2).contains(words[2].count), let day = number(words[2]),
      words[3].count == 8, let time = clock(Array(words[3])),
      words[4].count == 4, let year = number(words[4])
    else { return nil }
    return CaptureDate(
      year: year, month: month + 1, day: day, hour: time.hour, minute: time.minute,
      second: time.second, zone: .unknown, source: source)
  }

  /// `YYYY?MM?DD` with `:`, `-` or `/` between (the month and day may have one digit, or
  /// be padded with spaces: Casio writes `2001/ 1/27  1:42PM` and `2005/11/28/ 09:19`),
  /// then optionally spaces or a `T` and `HH:MM`, `:SS` and `AM`/`PM` optional.
  private static func numeric(_ bytes: [UInt8], source: CaptureDate.Source, allowsDateOnly: Bool)
    -> Parsed?
  {
    var index = 0
    func digits(_ range: ClosedRange<Int>) -> Int? {
      var count = 0
      var value = 0
      while index < bytes.count, count < range.upperBound,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
      {
        value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
        count += 1
        index += 1
      }
      return range.contains(count) ? value : nil
    }
    func skipSpaces() -> Int {
      let start = index
      while index < bytes.count, bytes[index] == space { index += 1 }
      return index - start
    }
    func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }
    guard let year = digits(4...4), index < bytes.count else { return nil }
    let separator = bytes[index]
    guard [colon, UInt8(ascii: "-"), UInt8(ascii: "/")].contains(separator), take(separator)
    else { return nil }
    _ = skipSpaces()
    guard let month = digits(1...2), take(separator) else { return nil }
    _ = skipSpaces()
    guard let day = digits(1...2) else { return nil }
    if separator == UInt8(ascii: "/") { _ = take(separator) }
    if index == bytes.count {
      guard allowsDateOnly,
        let date = CaptureDate(
          year: year, month: month, day: day, hour: 0, minute: 0, second: 0, zone: .unknown,
          source: source)
      else { return nil }
      return Parsed(date: date, hasTime: false)
    }
    guard skipSpaces() > 0 || take(UInt8(ascii: "T")), var hour = digits(1...2), take(colon)
    else { return nil }
    _ = skipSpaces()
    guard let minute = digits(2...2) else { return nil }
    var second = 0
    if take(colon) {
      guard let value = digits(2...2) else { return nil }
      second = value
    }
    _ = skipSpaces()
    if index + 2 == bytes.count, bytes[index + 1] | 0x20 == UInt8(ascii: "m") {
      switch bytes[index] | 0x20 {
      case UInt8(ascii: "a"):
        guard (1...12).contains(hour) else { return nil }
        if hour == 12 { hour = 0 }
      case UInt8(ascii: "p"):
        guard (1...12).contains(hour) else { return nil }
        if hour < 12 { hour += 12 }
      default: return nil
      }
      index += 2
    }
    guard index == bytes.count,
      let date = CaptureDate(
        year: year, month: month, day: day, hour: hour, minute: minute, second: second,
        zone: .unknown, source: source)
    else { return nil }
    return Parsed(date: date, hasTime: true)
  }

  /// `HH:MM:SS`.
  private static func clock(_ bytes: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
    guard bytes.count == 8, bytes[2] == colon, bytes[5] == colon,
      let hour = number(bytes[0..<2]), let minute = number(bytes[3..<5]),
      let second = number(bytes[6..<8])
    else { return nil }
    return (hour, minute, second)
  }

  /// The decimal value of a run of ASCII digits (at most 4), or `nil`.
  private static func number(_ digits: some Collection<UInt8>) -> Int? {
    guard !digits.isEmpty, digits.count <= 4 else { return nil }
    var value = 0
    for byte in digits {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
  }

  private static let monthNames = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
  ]
  private static let space = UInt8(ascii: " ")
  private static let colon = UInt8(ascii: ":")
}
