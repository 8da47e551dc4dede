/// Strict parsing of the text forms EXIF uses for dates, offsets and fractional seconds.
///
/// `DateTime` is `YYYY:MM:DD HH:MM:SS` (20 bytes with the NUL),
/// `OffsetTime*` is `+HH:MM` or `-HH:MM`, `SubSecTime*` is ASCII digits. Writers often
/// pad with spaces or NULs, or leave the whole field blank; padding is tolerated, nothing
/// else is.
enum EXIFDateText {
  /// What a date field held.
  enum Parsed: Equatable {
    /// The field was blank (only spaces and NULs).
    case blank
    /// A date-shaped text; `text` is the text without its padding, `subsecond` the
    /// fraction written inside it (`…:33.847`), `zone` the zone it carried itself (only
    /// the ISO 8601 variant can).
    case date(
      year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
      subsecond: String?, text: String, zone: CaptureDate.Zone?)
    /// Anything else: wrong shape or non-digits.
    case invalid
  }

  /// Parses `YYYY:MM:DD HH:MM:SS`, then optionally `.` and fraction digits, allowing
  /// trailing NULs and spaces.
  ///
  /// Some phone software writes ISO 8601 instead (`2023-09-27T14:32:53+02:00`); that
  /// variant is accepted too — `YYYY-MM-DD`, `T` or a space, `HH:MM:SS`, then optionally
  /// `Z`, `±HH:MM` or `±HHMM` — because it names a real time just as clearly.
  /// Whether the components make a real date is checked by ``CaptureDate``'s initializer;
  /// this only checks the shape and that every numeric position is an ASCII digit.
  static func parseDate(_ bytes: [UInt8]) -> Parsed {
    let trimmed = Array(trimmingPadding(bytes))
    if trimmed.isEmpty { return .blank }
    guard trimmed.count >= 19 else { return .invalid }
    let isISO = trimmed[4] == minus
    let dateSeparator = isISO ? minus : colon
    for index in 0..<19 {
      let byte = trimmed[index]
      switch index {
      case 4, 7: guard byte == dateSeparator else { return .invalid }
      case 10: guard byte == space || (isISO && byte == UInt8(ascii: "T")) else { return .invalid }
      case 13, 16: guard byte == colon else { return .invalid }
      default: guard isDigit(byte) else { return .invalid }
      }
    }
    var zone: CaptureDate.Zone?
    var suffix = Array(trimmed[19...])
    // Some writers put the fraction of a second inside the field
    // (`2018:06:26 17:46:33.847`) instead of in SubSecTime*: it is kept as the sub-seconds.
    var subsecond: String?
    if suffix.first == UInt8(ascii: ".") {
      let digits = suffix.dropFirst().prefix(while: isDigit)
      guard !digits.isEmpty else { return .invalid }
      subsecond = String(decoding: digits, as: UTF8.self)
      suffix = Array(suffix.dropFirst(1 + digits.count))
    }
    if !suffix.isEmpty {
      guard isISO, let parsed = parseISOZone(suffix) else { return .invalid }
      zone = parsed
    }
    func number(_ start: Int, _ length: Int) -> Int {
      trimmed[start..<(start + length)].reduce(0) { $0 * 10 + Int($1 - zero) }
    }
    return .date(
      year: number(0, 4), month: number(5, 2), day: number(8, 2), hour: number(11, 2),
      minute: number(14, 2), second: number(17, 2), subsecond: subsecond,
      text: String(decoding: trimmed, as: UTF8.self), zone: zone)
  }

  /// Parses the zone after an ISO 8601 time: `Z`, `±HH:MM` or `±HHMM`.
  private static func parseISOZone(_ suffix: [UInt8]) -> CaptureDate.Zone? {
    if suffix == [UInt8(ascii: "Z")] { return .utc }
    var colonForm = suffix
    if suffix.count == 5 { colonForm.insert(colon, at: 3) }
    guard let parsed = parseOffset(colonForm), let seconds = parsed else { return nil }
    return .offset(seconds: seconds)
  }

  /// Parses `+HH:MM` / `-HH:MM` into seconds east of UTC.
  ///
  /// - Returns: `.some(nil)` for a blank field, `nil` for an invalid one.
  static func parseOffset(_ bytes: [UInt8]) -> Int?? {
    let trimmed = trimmingPadding(bytes)
    if trimmed.isEmpty { return .some(nil) }
    guard trimmed.count == 6, trimmed[0] == plus || trimmed[0] == minus, trimmed[3] == colon,
      isDigit(trimmed[1]), isDigit(trimmed[2]), isDigit(trimmed[4]), isDigit(trimmed[5])
    else { return nil }
    let hours = Int(trimmed[1] - zero) * 10 + Int(trimmed[2] - zero)
    let minutes = Int(trimmed[4] - zero) * 10 + Int(trimmed[5] - zero)
    guard hours <= 18, minutes < 60 else { return nil }
    let seconds = hours * 3600 + minutes * 60
    return .some(trimmed[0] == minus ? -seconds : seconds)
  }

  /// Parses fractional-second digits (`"120"`), allowing padding on both sides.
  ///
  /// - Returns: `.some(nil)` for a blank field, `nil` for one that is not all digits.
  static func parseSubsecond(_ bytes: [UInt8]) -> String?? {
    let trimmed = trimmingPadding(bytes).drop { $0 == space }
    if trimmed.isEmpty { return .some(nil) }
    guard trimmed.allSatisfy(isDigit) else { return nil }
    return .some(String(decoding: trimmed, as: UTF8.self))
  }

  /// The bytes without trailing NULs and spaces.
  private static func trimmingPadding(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
    var end = bytes.endIndex
    while end > bytes.startIndex, bytes[end - 1] == 0 || bytes[end - 1] == space { end -= 1 }
    return bytes[bytes.startIndex..<end]
  }

  private static func isDigit(_ byte: UInt8) -> Bool { (zero...(zero + 9)).contains(byte) }

  private static let zero = UInt8(ascii: "0")
  private static let colon = UInt8(ascii: ":")
  private static let space = UInt8(ascii: " ")
  private static let plus = UInt8(ascii: "+")
  private static let minus = UInt8(ascii: "-")
}
