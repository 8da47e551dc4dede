/// Parses the text of Apple's `com.apple.quicktime.creationdate` metadata item.
///
/// Apple writes ISO 8601 local time with its UTC offset: `2021-06-01T19:00:00+0900`;
/// other writers use `+09:00` or `Z`, and some add fractional seconds. Accepted, exactly:
/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HHMM|±HH:MM|±HH)?`; without a zone the date is a
/// local time in an unknown zone. Everything else, and impossible dates, give `nil`.
enum QuickTimeDateText {
  /// The capture date the text describes, or `nil` when it is not in the accepted form.
  static func captureDate(parsing text: String) -> CaptureDate? {
    var bytes = Array(text.utf8)
    while bytes.last == 0 { bytes.removeLast() }
    func number(_ start: Int, _ length: Int) -> Int? {
      guard start >= 0, length > 0, start <= bytes.count - length else { return nil }
      var value = 0
      for byte in bytes[start..<(start + length)] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    func byte(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
    guard let year = number(0, 4), byte(4) == UInt8(ascii: "-"), let month = number(5, 2),
      byte(7) == UInt8(ascii: "-"), let day = number(8, 2), byte(10) == UInt8(ascii: "T"),
      let hour = number(11, 2), byte(13) == UInt8(ascii: ":"), let minute = number(14, 2),
      byte(16) == UInt8(ascii: ":"), let second = number(17, 2)
    else { return nil }
    var index = 19
    var subsecond: String?
    if byte(index) == UInt8(ascii: ".") {
      var end = index + 1
      while let digit = byte(end), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") {
        end += 1
      }
      guard end > index + 1 else { return nil }
      subsecond = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
      index = end
    }
    let zone: CaptureDate.Zone
    let rest = bytes.count - index
    switch byte(index) {
    case nil:
      zone = .unknown
    case UInt8(ascii: "Z"):
      guard rest == 1 else { return nil }
      zone = .utc
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      let sign = byte(index) == UInt8(ascii: "-") ? -1 : 1
      guard let hours = number(index + 1, 2) else { return nil }
      var minutes = 0
      switch rest {
      case 3: break
      case 5:
        guard let value = number(index + 3, 2) else { return nil }
        minutes = value
      case 6:
        guard byte(index + 3) == UInt8(ascii: ":"), let value = number(index + 4, 2) else {
          return nil
        }
        minutes = value
      default: return nil
      }
      guard hours <= 18, minutes < 60 else { return nil }
      zone = .offset(seconds: sign * (hours * 3600 + minutes * 60))
    default:
      return nil
    }
    return CaptureDate(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second,
      subsecond: subsecond, zone: zone, source: .quickTimeCreationDate)
  }
}
