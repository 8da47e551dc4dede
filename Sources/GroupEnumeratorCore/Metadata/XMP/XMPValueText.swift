/// Strict parsing of the text forms XMP uses for dates, GPS coordinates and rationals.
enum XMPValueText {
  /// A date and time as XMP writes it, before it is checked as a calendar date.
  struct DateComponents: Sendable, Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var subsecond: String?
    var zone: CaptureDate.Zone
  }

  /// Parses an XMP date (ISO 8601 as XMP restricts it): `YYYY-MM-DDThh:mm`, then
  /// optionally `:ss` and `.s…`, then optionally `Z` or `±hh:mm`. A date without a time of
  /// day (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`) says nothing about when in the day the shot was
  /// taken and is refused, as is an impossible date. Some writers use EXIF's
  /// `YYYY:MM:DD hh:mm:ss` in XMP; that form is accepted too.
  static func date(_ text: String) -> DateComponents? {
    let bytes = Array(text.utf8.drop { $0 == space }.reversed().drop { $0 == space }.reversed())
    func number(_ start: Int, _ length: Int) -> Int? {
      guard start >= 0, start + length <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[start..<(start + length)] {
        guard isDigit(byte) else { return nil }
        value = value * 10 + Int(byte - zero)
      }
      return value
    }
    func byte(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
    let exifForm = byte(4) == colon
    let dateSeparator = exifForm ? colon : minus
    guard let year = number(0, 4), byte(4) == dateSeparator, let month = number(5, 2),
      byte(7) == dateSeparator, let day = number(8, 2),
      byte(10) == UInt8(ascii: "T") || byte(10) == space,
      let hour = number(11, 2), byte(13) == colon, let minute = number(14, 2)
    else { return nil }
    var index = 16
    var second = 0
    var subsecond: String?
    if byte(index) == colon {
      guard let value = number(index + 1, 2) else { return nil }
      second = value
      index += 3
      if byte(index) == UInt8(ascii: ".") {
        var end = index + 1
        while let digit = byte(end), isDigit(digit) { end += 1 }
        guard end > index + 1 else { return nil }
        subsecond = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        index = end
      }
    }
    let zone: CaptureDate.Zone
    switch byte(index) {
    case nil:
      zone = .unknown
    case UInt8(ascii: "Z"):
      guard index + 1 == bytes.count else { return nil }
      zone = .utc
    case plus, minus:
      guard index + 6 == bytes.count, byte(index + 3) == colon,
        let hours = number(index + 1, 2), let minutes = number(index + 4, 2),
        hours <= 18, minutes < 60
      else { return nil }
      let seconds = hours * 3600 + minutes * 60
      zone = .offset(seconds: byte(index) == minus ? -seconds : seconds)
    default:
      return nil
    }
    let components = DateComponents(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second,
      subsecond: subsecond, zone: zone)
    // Check it is a real date once, here, so that callers only see dates that exist.
    guard
      CaptureDate(
        year: year, month: month, day: day, hour: hour, minute: minute, second: second,
        subsecond: subsecond, zone: zone, source: .fileModificationTime) != nil
    else { return nil }
    return components
  }

  /// A day without a time of day (`YYYY-MM-DD`, a real date) as midnight in an unknown
  /// zone, or `nil` for any other text. `YYYY` and `YYYY-MM` are not days.
  static func day(_ text: String) -> DateComponents? {
    let bytes = Array(text.trimmingXMPSpaces().utf8)
    guard bytes.count == 10, bytes[4] == minus, bytes[7] == minus else { return nil }
    func number(_ start: Int, _ length: Int) -> Int? {
      var value = 0
      for byte in bytes[start..<(start + length)] {
        guard isDigit(byte) else { return nil }
        value = value * 10 + Int(byte - zero)
      }
      return value
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      CaptureDate(
        year: year, month: month, day: day, hour: 0, minute: 0, second: 0, zone: .unknown,
        source: .fileModificationTime) != nil
    else { return nil }
    return DateComponents(
      year: year, month: month, day: day, hour: 0, minute: 0, second: 0, zone: .unknown)
  }

  /// Whether `text` is an XMP date without a time of day: `YYYY`, `YYYY-MM` or
  /// `YYYY-MM-DD` (digits only).
  static func isDateWithoutTime(_ text: String) -> Bool {
    let bytes = Array(text.trimmingXMPSpaces().utf8)
    let shapes = ["dddd", "dddd-dd", "dddd-dd-dd"]
    return shapes.contains { shape in
      shape.utf8.count == bytes.count
        && zip(shape.utf8, bytes).allSatisfy { pattern, byte in
          pattern == UInt8(ascii: "d") ? isDigit(byte) : byte == pattern
        }
    }
  }

  /// Parses an XMP GPS coordinate (the `GPSCoordinate` type of XMP's EXIF schema):
  /// `DDD,MM,SSk` or `DDD,MM.mmk`, where `k` is the hemisphere letter. Degrees are whole;
  /// minutes below 60; seconds below 60.
  ///
  /// - Parameters:
  ///   - text: The property's text.
  ///   - positive: The letter of the positive hemisphere (`N` or `E`).
  ///   - negative: The letter of the negative one (`S` or `W`).
  /// - Returns: Signed decimal degrees, or `nil` when the text is not in that form.
  static func coordinate(_ text: String, positive: Character, negative: Character) -> Double? {
    var body = Substring(text.trimmingXMPSpaces())
    guard let letter = body.last?.uppercased().first, letter == positive || letter == negative
    else { return nil }
    body = body.dropLast()
    let parts = body.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3,
      parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } }
      ),
      let degrees = Int(parts[0]), let minutes = Double(parts[1]), minutes >= 0, minutes < 60
    else { return nil }
    var value = Double(degrees) + minutes / 60
    if parts.count == 3 {
      guard !parts[1].contains("."), let seconds = Double(parts[2]), seconds >= 0, seconds < 60
      else { return nil }
      value += seconds / 3600
    }
    return letter == negative ? -value : value
  }

  /// Parses an XMP rational (`"123/10"`) or a plain decimal (`"12.3"`).
  static func rational(_ text: String) -> Double? {
    let trimmed = text.trimmingXMPSpaces()
    let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
    func integer(_ part: Substring) -> Int64? {
      guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
      return Int64(part)
    }
    switch parts.count {
    case 1:
      guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
        let value = Double(trimmed), value.isFinite
      else { return nil }
      return value
    case 2:
      guard let numerator = integer(parts[0]), let denominator = integer(parts[1]),
        denominator != 0
      else { return nil }
      return Double(numerator) / Double(denominator)
    default:
      return nil
    }
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= zero + 9 }
  private static let zero = UInt8(ascii: "0")
  private static let colon = UInt8(ascii: ":")
  private static let space = UInt8(ascii: " ")
  private static let plus = UInt8(ascii: "+")
  private static let minus = UInt8(ascii: "-")
}

extension String {
  /// The text without leading and trailing spaces, tabs and line breaks.
  func trimmingXMPSpaces() -> String {
    // Most values have nothing to trim: when neither the first nor the last byte is one of
    // the four, neither the first nor the last character is, and the text is returned as
    // it is, without walking it by characters (which costs a grapheme break per step).
    let isSpaceByte: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    guard let first = utf8.first, let last = utf8.last, isSpaceByte(first) || isSpaceByte(last)
    else { return self }
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
  }
}
