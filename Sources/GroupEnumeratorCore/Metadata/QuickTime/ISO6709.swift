/// Parses the ISO 6709 point strings QuickTime and MP4 files use for locations.
///
/// The text form of a point: a latitude, a longitude, an
/// optional altitude and an optional `CRS…` identifier, each number sign-prefixed, the
/// whole ended by `/`. Latitude takes `±DD.DDD`, `±DDMM.MMM` or `±DDMMSS.SSS`; longitude
/// `±DDD.DDD`, `±DDDMM.MMM` or `±DDDMMSS.SSS`. The fraction is optional; minutes and
/// seconds must be below 60. Examples: `+35.0116+135.7681+050.000/`, `+48.8577+002.295/`,
/// `+404530.24-0735845.36/`.
///
/// Writers in the wild drop the zero padding of whole degrees and the closing `/`: a
/// Google Pixel writes `+47.5383-2.8919+000.000/`, Apple's ISO6709 key
/// `+29.758938-095.36770`. So whole degrees may have 1–2 latitude or 1–3 longitude
/// digits, and the `/` may be missing. Degrees-and-minutes and degrees-minutes-seconds
/// keep their full widths (4 or 6 latitude digits, 5 or 7 longitude digits): a digit
/// count between them (3 or 5 for latitude, 4 or 6 for longitude) says nothing certain
/// about where degrees end, so it is rejected, as is a missing sign, trailing text or a
/// value out of range, rather than guessed at.
enum ISO6709 {
  /// The location a string describes, or `nil` when it is not a valid ISO 6709 point
  /// or its values are out of range.
  ///
  /// - Parameter text: The string; trailing NUL bytes (C-string padding) are ignored.
  static func location(parsing text: String) -> Location? {
    var bytes = Array(text.utf8)
    while bytes.last == 0 { bytes.removeLast() }
    var scanner = Scanner(bytes: bytes)
    guard let latitude = scanner.angle(degreeDigits: 2, limit: 90),
      let longitude = scanner.angle(degreeDigits: 3, limit: 180)
    else { return nil }
    var altitude: Double?
    if scanner.peek == UInt8(ascii: "+") || scanner.peek == UInt8(ascii: "-") {
      guard let value = scanner.number() else { return nil }
      let metres = value.sign * value.magnitude
      guard metres.isFinite else { return nil }
      altitude = metres
    }
    if scanner.consume("CRS") {
      guard scanner.skip(while: { $0 != UInt8(ascii: "/") && $0 >= 0x21 && $0 <= 0x7E }) > 0
      else { return nil }
    }
    _ = scanner.consume("/")
    guard scanner.isAtEnd else { return nil }
    return Location(latitude: latitude, longitude: longitude, altitude: altitude)
  }

  /// A signed decimal number as it appears in the string.
  private struct Number {
    var sign: Double
    var integerDigits: [UInt8]
    var fractionDigits: [UInt8]
    var magnitude: Double {
      let text =
        String(decoding: integerDigits, as: UTF8.self)
        + (fractionDigits.isEmpty ? "" : "." + String(decoding: fractionDigits, as: UTF8.self))
      return Double(text) ?? .nan
    }
  }

  private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func consume(_ literal: String) -> Bool {
      let expected = Array(literal.utf8)
      guard bytes.count - index >= expected.count,
        Array(bytes[index..<(index + expected.count)]) == expected
      else { return false }
      index += expected.count
      return true
    }

    mutating func skip(while predicate: (UInt8) -> Bool) -> Int {
      let start = index
      while let byte = peek, predicate(byte) { index += 1 }
      return index - start
    }

    mutating func digits() -> [UInt8] {
      let start = index
      _ = skip { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
      return Array(bytes[start..<index])
    }

    /// `±digits[.digits]`.
    mutating func number() -> Number? {
      let sign: Double
      switch peek {
      case UInt8(ascii: "+"): sign = 1
      case UInt8(ascii: "-"): sign = -1
      default: return nil
      }
      index += 1
      let integer = digits()
      guard !integer.isEmpty else { return nil }
      var fraction: [UInt8] = []
      if peek == UInt8(ascii: ".") {
        index += 1
        fraction = digits()
        guard !fraction.isEmpty else { return nil }
      }
      return Number(sign: sign, integerDigits: integer, fractionDigits: fraction)
    }

    /// An angle in one of the three forms, with at most `degreeDigits` digits of whole
    /// degrees alone and exactly `degreeDigits` before minutes.
    mutating func angle(degreeDigits: Int, limit: Double) -> Double? {
      guard let number = number() else { return nil }
      let whole = number.integerDigits
      let fraction =
        number.fractionDigits.isEmpty
        ? 0 : Double("0." + String(decoding: number.fractionDigits, as: UTF8.self)) ?? .nan
      func value(_ digits: ArraySlice<UInt8>) -> Double {
        Double(String(decoding: digits, as: UTF8.self)) ?? .nan
      }
      let degrees: Double
      switch whole.count - degreeDigits {
      case (1 - degreeDigits)...0:
        // Whole degrees, zero padding optional.
        degrees = number.magnitude
      case 2:
        let minutes = value(whole[degreeDigits...]) + fraction
        guard minutes < 60 else { return nil }
        degrees = value(whole[..<degreeDigits]) + minutes / 60
      case 4:
        let minutes = value(whole[degreeDigits..<(degreeDigits + 2)])
        let seconds = value(whole[(degreeDigits + 2)...]) + fraction
        guard minutes < 60, seconds < 60 else { return nil }
        degrees = value(whole[..<degreeDigits]) + minutes / 60 + seconds / 3600
      default:
        return nil
      }
      guard degrees.isFinite, degrees <= limit else { return nil }
      return number.sign * degrees
    }
  }
}
