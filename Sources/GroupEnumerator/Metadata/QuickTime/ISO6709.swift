/// Parses the ISO 6709 point strings QuickTime and MP4 files use for locations.
///
/// ISO 6709:2008 Annex H (text string representation): a latitude, a longitude, an
/// optional altitude and an optional `CRS…` identifier, each number sign-prefixed, the
/// whole ended by `/`. Latitude takes `±DD.DDD`, `±DDMM.MMM` or `±DDMMSS.SSS`; longitude
/// `±DDD.DDD`, `±DDDMM.MMM` or `±DDDMMSS.SSS`. The fraction is optional; minutes and
/// seconds must be below 60. Examples: `+35.0116+135.7681+050.000/`, `+48.8577+002.295/`,
/// `+404530.24-0735845.36/`. Anything else — a missing sign or terminator, a digit count
/// no form allows, trailing text — is rejected rather than guessed at.
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
      altitude = value.sign * value.magnitude
    }
    if scanner.consume("CRS") {
      guard scanner.skip(while: { $0 != UInt8(ascii: "/") && $0 >= 0x21 && $0 <= 0x7E }) > 0
      else { return nil }
    }
    guard scanner.consume("/"), scanner.isAtEnd else { return nil }
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

    /// An angle in one of the three forms, with `degreeDigits` digits of whole degrees.
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
      case 0:
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
